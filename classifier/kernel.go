package classifier

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rfstream/rfstream/internal/linalg"
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
	a, c, err := kernelSystem(k, labels, classes, lambda)
	if err != nil {
		return nil, err
	}
	if err := linalg.CholeskySolve(a, c); err != nil {
		return nil, fmt.Errorf("classifier: kernel RLS with λ=%g: %w (increase λ)", lambda, err)
	}
	return &KernelRLS{N: k.Rows, Classes: classes, Lambda: lambda, C: c}, nil
}

// kernelSystem checks its arguments and returns K + λI (a copy) and the ±1
// one-vs-rest targets Y.
func kernelSystem(k blas64.General, labels []int, classes int, lambda float64) (a, y blas64.General, err error) {
	n := k.Rows
	if k.Cols != n || len(labels) != n {
		return a, y, fmt.Errorf("classifier: kernel RLS needs a square kernel with one label per row, have %dx%d and %d labels", k.Rows, k.Cols, len(labels))
	}
	if n == 0 {
		return a, y, errors.New("classifier: no training rows")
	}
	if classes < 2 {
		return a, y, fmt.Errorf("classifier: kernel RLS needs ≥ 2 classes, have %d", classes)
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return a, y, fmt.Errorf("classifier: λ = %v", lambda)
	}
	a = linalg.NewGeneral64(n, n)
	for i := 0; i < n; i++ {
		row := k.Data[i*k.Stride : i*k.Stride+n]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return a, y, fmt.Errorf("%w (kernel entry %d,%d = %v)", ErrNonFinite, i, j, v)
			}
		}
		copy(a.Data[i*n:(i+1)*n], row)
		a.Data[i*n+i] += lambda
	}
	y = linalg.NewGeneral64(n, classes)
	for i := range y.Data {
		y.Data[i] = -1
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return a, y, fmt.Errorf("classifier: label %d of row %d outside 0..%d", l, i, classes-1)
		}
		y.Data[i*classes+l] = 1
	}
	return a, y, nil
}

// KernelLOOScores returns, for every training row i, the class scores the
// kernel RLS model fitted with λ on all rows but i gives row i: N fits for
// the price of one. With G = (K + λI)⁻¹ and C = GY the fitted scores are
// KC = Y − λC and the hat matrix is I − λG, so the left-out residual is
// λCᵢ / (λGᵢᵢ) and the left-out scores are Yᵢ − Cᵢ/Gᵢᵢ (λ > 0). Gᵢᵢ is the
// squared norm of row i of U⁻¹, where K + λI = UᵀU. This is the exact
// leave-one-out that GURLS, the RLS package of the invariance paper, uses to
// choose λ; it costs one Cholesky factorisation and one triangular
// inverse, about twice a plain fit.
func KernelLOOScores(k blas64.General, labels []int, classes int, lambda float64) (blas64.General, error) {
	if !(lambda > 0) {
		return blas64.General{}, fmt.Errorf("classifier: leave-one-out needs λ > 0, have %v", lambda)
	}
	a, c, err := kernelSystem(k, labels, classes, lambda)
	if err != nil {
		return blas64.General{}, err
	}
	n := a.Rows
	y := linalg.NewGeneral64(n, classes)
	copy(y.Data, c.Data)
	if err := linalg.CholeskySolve(a, c); err != nil {
		return blas64.General{}, fmt.Errorf("classifier: kernel RLS with λ=%g: %w (increase λ)", lambda, err)
	}
	// a now holds U in its upper triangle; invert it in place.
	if ok := lapack64.Trtri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: a.Stride, Data: a.Data}); !ok {
		return blas64.General{}, fmt.Errorf("classifier: kernel RLS with λ=%g: %w (increase λ)", lambda, linalg.ErrNotPositiveDefinite)
	}
	for i := 0; i < n; i++ {
		var g float64
		for _, v := range a.Data[i*a.Stride+i : i*a.Stride+n] {
			g += v * v
		}
		for j := 0; j < classes; j++ {
			y.Data[i*classes+j] -= c.Data[i*classes+j] / g
		}
	}
	return y, nil
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
	return ArgMaxRows(r.Scores(kt))
}

// ArgMaxRows returns the column of the largest value in every row of s
// (the first on ties).
func ArgMaxRows(s blas64.General) []int {
	return argmaxRows(s.Data, s.Rows, s.Cols, s.Stride)
}
