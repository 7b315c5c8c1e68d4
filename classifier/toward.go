package classifier

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rfstream/rfstream/internal/linalg"
)

// MaxTowardRows bounds RefitToward's rows: its cost is a rows×rows
// Cholesky factorisation (6000 rows: 72 billion flops at most, a few
// seconds), and its memory rows² float64s (288 MB at 6000).
const MaxTowardRows = 6000

// RefitToward returns the read-out that fits a few labelled rows z (their
// features) while staying near w0, when the rows w0 was trained on are not
// at hand: the W minimising ‖zW − Y‖² + μ‖W − W0‖² (Y the ±1 targets of
// labels, as RLS uses), which is W0 + zᵀ(zzᵀ + μI)⁻¹(Y − zW0). It is the
// ridge regression of the residual, solved in the dual form, so it costs
// the rows, not the features: a rank-rows update of W0. μ is in units of
// the rows' mean squared feature norm (relMu · tr(zzᵀ)/rows), so that one
// setting means the same pull toward W0 for any feature map: relMu = 1
// lets a row move W about as much as its own norm allows.
func RefitToward(w0 *RLS, z blas32.General, labels []int, relMu float64) (*RLS, error) {
	n := z.Rows
	switch {
	case n == 0:
		return nil, errors.New("classifier: no rows to refit toward")
	case n > MaxTowardRows:
		return nil, fmt.Errorf("classifier: %d rows to refit toward a read-out (at most %d)", n, MaxTowardRows)
	case z.Cols != w0.Dim || len(labels) != n:
		return nil, fmt.Errorf("classifier: %d×%d rows with %d labels for a %d-feature read-out", n, z.Cols, len(labels), w0.Dim)
	case !(relMu > 0) || math.IsInf(relMu, 0):
		return nil, fmt.Errorf("classifier: pull toward the read-out %v, want > 0", relMu)
	}
	for i, l := range labels {
		if l < 0 || l >= w0.Classes {
			return nil, fmt.Errorf("classifier: label %d of row %d is not one of %d classes", l, i, w0.Classes)
		}
	}
	// The residual R = Y − zW0.
	res := linalg.NewGeneral32(n, w0.Classes)
	w0.Scores(res, z)
	r := blas64.General{Rows: n, Cols: w0.Classes, Stride: w0.Classes, Data: make([]float64, n*w0.Classes)}
	for i := range n {
		for c := range w0.Classes {
			y := -1.0
			if labels[i] == c {
				y = 1
			}
			r.Data[i*r.Stride+c] = y - float64(res.Data[i*res.Stride+c])
		}
	}
	// K = zzᵀ + μI in float64.
	z64 := blas64.General{Rows: n, Cols: z.Cols, Stride: z.Cols, Data: make([]float64, n*z.Cols)}
	for i := range n {
		for j, v := range linalg.Row32(z, i) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, nonFiniteError(z, j)
			}
			z64.Data[i*z64.Stride+j] = float64(v)
		}
	}
	k := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
	blas64.Syrk(blas.NoTrans, 1, z64, 0, k)
	trace := 0.0
	for i := range n {
		trace += k.Data[i*n+i]
	}
	if !(trace > 0) {
		return nil, errors.New("classifier: the rows to refit toward are all zero")
	}
	mu := relMu * trace / float64(n)
	for i := range n {
		k.Data[i*n+i] += mu
	}
	if _, ok := lapack64.Potrf(k); !ok {
		return nil, fmt.Errorf("classifier: refit toward a read-out with μ=%g: %w", mu, linalg.ErrNotPositiveDefinite)
	}
	lapack64.Potrs(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: k.Data}, r)
	// W = W0 + zᵀα.
	dw := blas64.General{Rows: z.Cols, Cols: w0.Classes, Stride: w0.Classes, Data: make([]float64, z.Cols*w0.Classes)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, z64, r, 0, dw)
	w := linalg.NewGeneral32(w0.Dim, w0.Classes)
	for i := range w0.Dim {
		for c := range w0.Classes {
			w.Data[i*w.Stride+c] = w0.W.Data[i*w0.W.Stride+c] + float32(dw.Data[i*dw.Stride+c])
		}
	}
	return &RLS{Dim: w0.Dim, Classes: w0.Classes, Lambda: w0.Lambda, W: w}, nil
}

// RefitTowardGram is RefitToward for rows given by their statistics: the
// accumulator a holds ZᵀZ and ZᵀY of every row to fit (as RLSAccumulator
// adds them), and the read-out is solved in the primal form, (ZᵀZ + μI)W =
// ZᵀY + μW0, the same W as RefitToward's dual. Its cost is the features',
// not the rows': a feature-sized Cholesky factorisation, whatever the
// number of rows, and rows taught one recording at a time are each added
// once. μ is relMu · trace(ZᵀZ)/rows, as in RefitToward. a is not changed.
func RefitTowardGram(w0 *RLS, a *RLSAccumulator, relMu float64) (*RLS, error) {
	switch {
	case a.N() == 0:
		return nil, errors.New("classifier: no rows to refit toward")
	case a.Dim() != w0.Dim || a.Classes() != w0.Classes:
		return nil, fmt.Errorf("classifier: statistics of %d features and %d classes for a %d-feature read-out of %d", a.Dim(), a.Classes(), w0.Dim, w0.Classes)
	case !(relMu > 0) || math.IsInf(relMu, 0):
		return nil, fmt.Errorf("classifier: pull toward the read-out %v, want > 0", relMu)
	}
	d := a.Dim()
	g := a.Gram()
	trace := 0.0
	for i := range d {
		trace += g.Data[i*d+i]
	}
	if !(trace > 0) {
		return nil, errors.New("classifier: the rows to refit toward are all zero")
	}
	mu := relMu * trace / float64(a.N())
	for i := range d {
		g.Data[i*d+i] += mu
	}
	b := blas64.General{Rows: d, Cols: w0.Classes, Stride: w0.Classes, Data: make([]float64, d*w0.Classes)}
	for i := range d {
		for c := range w0.Classes {
			b.Data[i*b.Stride+c] = a.zty[i*w0.Classes+c] + mu*float64(w0.W.Data[i*w0.W.Stride+c])
		}
	}
	sym := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: g.Data}
	if _, ok := lapack64.Potrf(sym); !ok {
		return nil, fmt.Errorf("classifier: refit toward a read-out with μ=%g: %w", mu, linalg.ErrNotPositiveDefinite)
	}
	lapack64.Potrs(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: g.Data}, b)
	w := linalg.NewGeneral32(d, w0.Classes)
	for i, v := range b.Data {
		w.Data[i] = float32(v)
	}
	return &RLS{Dim: d, Classes: w0.Classes, Lambda: w0.Lambda, W: w}, nil
}
