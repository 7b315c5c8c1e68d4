package classifier

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/linalg"
)

// KernelRLS is regularised least squares in its dual form: for a training
// kernel matrix K (N×N) the coefficients are C = (K + λI)⁻¹Y with the same
// one-vs-rest ±1 targets as RLS, and a test point's scores are k(x)ᵀC where
// k(x) holds its kernel values against the training points. With K = ZZᵀ
// this is exactly the primal RLS (ZᵀZ + λI)⁻¹ZᵀY, so λ means the same in
// both; the dual is what a kernel without a finite feature map (the exact
// Haar-integration kernel) needs.
type KernelRLS struct {
	N, Classes int
	Lambda     float64
	C          blas64.General // N × Classes
}

// FitKernelRLS solves (K + λI)C = Y by Cholesky. K is read, not changed.
func FitKernelRLS(k blas64.General, labels []int, classes int, lambda float64) (*KernelRLS, error) {
	n := k.Rows
	if k.Cols != n || len(labels) != n {
		return nil, fmt.Errorf("classifier: kernel RLS needs a square kernel with one label per row, have %dx%d and %d labels", k.Rows, k.Cols, len(labels))
	}
	if n == 0 {
		return nil, errors.New("classifier: no training rows")
	}
	if classes < 2 {
		return nil, fmt.Errorf("classifier: kernel RLS needs ≥ 2 classes, have %d", classes)
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("classifier: λ = %v", lambda)
	}
	a := linalg.NewGeneral64(n, n)
	for i := 0; i < n; i++ {
		row := k.Data[i*k.Stride : i*k.Stride+n]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w (kernel entry %d,%d = %v)", ErrNonFinite, i, j, v)
			}
		}
		copy(a.Data[i*n:(i+1)*n], row)
		a.Data[i*n+i] += lambda
	}
	c := linalg.NewGeneral64(n, classes)
	for i := range c.Data {
		c.Data[i] = -1
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("classifier: label %d of row %d outside 0..%d", l, i, classes-1)
		}
		c.Data[i*classes+l] = 1
	}
	if err := linalg.CholeskySolve(a, c); err != nil {
		return nil, fmt.Errorf("classifier: kernel RLS with λ=%g: %w (increase λ)", lambda, err)
	}
	return &KernelRLS{N: n, Classes: classes, Lambda: lambda, C: c}, nil
}

// Scores returns kt·C: the class scores of test points whose kernel values
// against the training points are the rows of kt.
func (r *KernelRLS) Scores(kt blas64.General) blas64.General {
	if kt.Cols != r.N {
		panic(fmt.Sprintf("classifier: kernel rows of %d columns for a model of %d training points", kt.Cols, r.N))
	}
	s := linalg.NewGeneral64(kt.Rows, r.Classes)
	if kt.Rows > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kt, r.C, 0, s)
	}
	return s
}

// Predict returns the arg-max class of every row of kt.
func (r *KernelRLS) Predict(kt blas64.General) []int {
	s := r.Scores(kt)
	out := make([]int, kt.Rows)
	for i := range out {
		row := s.Data[i*r.Classes : (i+1)*r.Classes]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		out[i] = best
	}
	return out
}
