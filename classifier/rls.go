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

// RLSAccumulator streams the sufficient statistics of regularised least
// squares, ZᵀZ and ZᵀY, block by block, so the N×m feature matrix Z is never
// held whole: memory is O(m² + block·m) whatever N is.
//
// Targets are one-vs-rest ±1: Y[i][c] = +1 if label i is c, else -1.
//
// Each block's Gram is formed in float32 by SYRK (twice the speed of
// float64 on this hardware) and added into a float64 total, so rounding
// grows with the block length, not with N.
type RLSAccumulator struct {
	dim, classes int
	n            int
	gram         []float64 // dim×dim, upper triangle valid
	zty          []float64 // dim×classes
	block        []float32 // dim×dim SYRK scratch
	y            []float32 // block rows × classes: ±1 targets
	ztyBlock     []float32 // dim×classes: one block's ZᵀY
	// Float64 forms each block's Gram from float64 products (twice the
	// cost, no float32 scratch). Features that are all positive and
	// strongly correlated, such as CDF counts, give ZᵀZ one eigenvalue
	// near trace(ZᵀZ); float32 rounding of that direction then swamps the
	// small λ such features need, and Cholesky fails below it.
	Float64 bool
	z64     []float64 // block rows × dim, for Float64
}

// NewRLSAccumulator returns an empty accumulator for dim features and
// classes classes.
func NewRLSAccumulator(dim, classes int) *RLSAccumulator {
	if dim <= 0 || classes < 2 {
		panic(fmt.Sprintf("classifier: RLS needs dim ≥ 1 and ≥ 2 classes, have %d, %d", dim, classes))
	}
	return &RLSAccumulator{
		dim: dim, classes: classes,
		gram: make([]float64, dim*dim),
		zty:  make([]float64, dim*classes),
	}
}

// N is the number of rows accumulated so far.
func (a *RLSAccumulator) N() int { return a.n }

// Dim is the feature dimension.
func (a *RLSAccumulator) Dim() int { return a.dim }

// Classes is the number of classes.
func (a *RLSAccumulator) Classes() int { return a.classes }

// ErrNonFinite reports a NaN or infinite feature.
var ErrNonFinite = errors.New("classifier: feature matrix has a NaN or infinite value")

// nonFiniteError names the first row of z whose feature col is NaN or
// infinite, or says the column overflowed when every value is finite.
func nonFiniteError(z blas32.General, col int) error {
	for i := 0; i < z.Rows; i++ {
		v := float64(z.Data[i*z.Stride+col])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w (row %d, feature %d = %v)", ErrNonFinite, i, col, v)
		}
	}
	return fmt.Errorf("%w: feature %d overflows float32 when squared", ErrNonFinite, col)
}

// Add accumulates the rows of z with their labels. Nothing is added when it
// returns an error.
func (a *RLSAccumulator) Add(z blas32.General, labels []int) error {
	if z.Cols != a.dim || z.Rows != len(labels) {
		return fmt.Errorf("classifier: block of %dx%d with %d labels for a %d-feature accumulator", z.Rows, z.Cols, len(labels), a.dim)
	}
	for i, l := range labels {
		if l < 0 || l >= a.classes {
			return fmt.Errorf("classifier: label %d of row %d outside 0..%d", l, i, a.classes-1)
		}
	}
	if z.Rows == 0 {
		return nil
	}
	if a.Float64 {
		return a.add64(z, labels)
	}
	if a.block == nil {
		a.block = make([]float32, a.dim*a.dim)
	}
	c := blas32.Symmetric{Uplo: blas.Upper, N: a.dim, Stride: a.dim, Data: a.block}
	blas32.Syrk(blas.Trans, 1, z, 0, c)
	// The diagonal of the block Gram is Σ z², which is NaN or infinite
	// exactly when some feature is (or when one is too large to square in
	// float32): the check costs dim reads instead of a pass over z.
	for i := 0; i < a.dim; i++ {
		if d := float64(a.block[i*a.dim+i]); math.IsNaN(d) || math.IsInf(d, 0) {
			return nonFiniteError(z, i)
		}
	}
	a.addZtY(z, labels)
	for i := 0; i < a.dim; i++ {
		g := a.gram[i*a.dim+i : (i+1)*a.dim]
		b := a.block[i*a.dim+i : (i+1)*a.dim]
		for j := range g {
			g[j] += float64(b[j])
		}
	}
	a.n += z.Rows
	return nil
}

// add64 is Add with the block Gram formed in float64 straight into the
// total.
func (a *RLSAccumulator) add64(z blas32.General, labels []int) error {
	if cap(a.z64) < z.Rows*a.dim {
		a.z64 = make([]float64, z.Rows*a.dim)
	}
	z64 := blas64.General{Rows: z.Rows, Cols: a.dim, Stride: a.dim, Data: a.z64[:z.Rows*a.dim]}
	for i := 0; i < z.Rows; i++ {
		for j, v := range linalg.Row32(z, i) {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("%w (row %d, feature %d = %v)", ErrNonFinite, i, j, v)
			}
			z64.Data[i*a.dim+j] = f
		}
	}
	blas64.Syrk(blas.Trans, 1, z64, 1, blas64.Symmetric{Uplo: blas.Upper, N: a.dim, Stride: a.dim, Data: a.gram})
	a.addZtY(z, labels)
	a.n += z.Rows
	return nil
}

// addZtY adds one block's ZᵀY, by a small GEMM against its ±1 targets.
func (a *RLSAccumulator) addZtY(z blas32.General, labels []int) {
	if cap(a.y) < z.Rows*a.classes {
		a.y = make([]float32, z.Rows*a.classes)
	}
	if a.ztyBlock == nil {
		a.ztyBlock = make([]float32, a.dim*a.classes)
	}
	y := blas32.General{Rows: z.Rows, Cols: a.classes, Stride: a.classes, Data: a.y[:z.Rows*a.classes]}
	for i := range y.Data {
		y.Data[i] = -1
	}
	for i, l := range labels {
		y.Data[i*a.classes+l] = 1
	}
	zty := blas32.General{Rows: a.dim, Cols: a.classes, Stride: a.classes, Data: a.ztyBlock}
	blas32.Gemm(blas.Trans, blas.NoTrans, 1, z, y, 0, zty)
	for i, v := range zty.Data {
		a.zty[i] += float64(v)
	}
}

// ClearTargets forgets ZᵀY but keeps ZᵀZ, for relabelling: when only the
// labels of rows already added change (as in align-and-retrain), the Gram
// stays and AddTargets accumulates the new ZᵀY.
func (a *RLSAccumulator) ClearTargets() { clear(a.zty) }

// AddTargets accumulates the ZᵀY of rows whose ZᵀZ is already in the
// accumulator (see ClearTargets).
func (a *RLSAccumulator) AddTargets(z blas32.General, labels []int) error {
	if z.Cols != a.dim || z.Rows != len(labels) {
		return fmt.Errorf("classifier: block of %dx%d with %d labels for a %d-feature accumulator", z.Rows, z.Cols, len(labels), a.dim)
	}
	for i, l := range labels {
		if l < 0 || l >= a.classes {
			return fmt.Errorf("classifier: label %d of row %d outside 0..%d", l, i, a.classes-1)
		}
	}
	if z.Rows > 0 {
		a.addZtY(z, labels)
	}
	return nil
}

// Clone returns an independent copy of a: statistics shared by several
// fits (the training rows of every self-training round) are accumulated
// once and each fit adds its own rows to a copy.
func (a *RLSAccumulator) Clone() *RLSAccumulator {
	return &RLSAccumulator{
		dim: a.dim, classes: a.classes, n: a.n,
		gram:    append([]float64(nil), a.gram...),
		zty:     append([]float64(nil), a.zty...),
		Float64: a.Float64,
	}
}

// Merge adds b's statistics into a.
func (a *RLSAccumulator) Merge(b *RLSAccumulator) error {
	if a.dim != b.dim || a.classes != b.classes {
		return fmt.Errorf("classifier: merging a %d×%d accumulator into %d×%d", b.dim, b.classes, a.dim, a.classes)
	}
	for i := 0; i < a.dim; i++ {
		for j := i; j < a.dim; j++ {
			a.gram[i*a.dim+j] += b.gram[i*a.dim+j]
		}
	}
	for i := range a.zty {
		a.zty[i] += b.zty[i]
	}
	a.n += b.n
	return nil
}

// MergeWeighted adds b's statistics into a as if each of b's rows had been
// added weight times (weight > 0; its row count is rounded).
func (a *RLSAccumulator) MergeWeighted(b *RLSAccumulator, weight float64) error {
	if a.dim != b.dim || a.classes != b.classes {
		return fmt.Errorf("classifier: merging a %d×%d accumulator into %d×%d", b.dim, b.classes, a.dim, a.classes)
	}
	if !(weight > 0) || math.IsInf(weight, 0) {
		return fmt.Errorf("classifier: merging with weight %v, want > 0", weight)
	}
	for i := 0; i < a.dim; i++ {
		for j := i; j < a.dim; j++ {
			a.gram[i*a.dim+j] += weight * b.gram[i*a.dim+j]
		}
	}
	for i := range a.zty {
		a.zty[i] += weight * b.zty[i]
	}
	a.n += int(math.Round(weight * float64(b.n)))
	return nil
}

// Gram returns a copy of ZᵀZ as a full symmetric matrix.
func (a *RLSAccumulator) Gram() blas64.General {
	g := linalg.NewGeneral64(a.dim, a.dim)
	for i := 0; i < a.dim; i++ {
		for j := i; j < a.dim; j++ {
			v := a.gram[i*a.dim+j]
			g.Data[i*a.dim+j] = v
			g.Data[j*a.dim+i] = v
		}
	}
	return g
}

// MeanDiagonal is trace(ZᵀZ)/dim: the natural scale for λ.
func (a *RLSAccumulator) MeanDiagonal() float64 {
	var s float64
	for i := 0; i < a.dim; i++ {
		s += a.gram[i*a.dim+i]
	}
	return s / float64(a.dim)
}

// Solve returns the RLS weights α = (ZᵀZ + λI)⁻¹ ZᵀY.
//
// The Gram lives in the upper triangle; Solve factors ZᵀZ + λI in the
// unused lower triangle instead of in a copy, which saves a dim×dim float64
// matrix (800 MB at dim = 10000) and leaves the accumulator ready for the
// next λ or more rows. So Solve is not safe to call concurrently with Add,
// Merge or another Solve on the same accumulator.
func (a *RLSAccumulator) Solve(lambda float64) (*RLS, error) {
	if a.n == 0 {
		return nil, errors.New("classifier: no training rows")
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("classifier: λ = %v", lambda)
	}
	n := a.dim
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = a.gram[i*n+i]
	}
	defer func() { // the factor overwrote the diagonal: put ZᵀZ's back
		for i, v := range diag {
			a.gram[i*n+i] = v
		}
	}()
	linalg.MirrorUpperToLower(a.gram, n)
	for i := 0; i < n; i++ {
		a.gram[i*n+i] += lambda
	}
	b := blas64.General{Rows: n, Cols: a.classes, Stride: a.classes, Data: make([]float64, len(a.zty))}
	copy(b.Data, a.zty)
	a.block = nil // the SYRK scratch is only needed while adding
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: a.gram}); !ok {
		return nil, fmt.Errorf("classifier: RLS with λ=%g: %w (increase λ)", lambda, linalg.ErrNotPositiveDefinite)
	}
	lapack64.Potrs(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: a.gram}, b)
	w := linalg.NewGeneral32(n, a.classes)
	for i, v := range b.Data {
		w.Data[i] = float32(v)
	}
	return &RLS{Dim: n, Classes: a.classes, Lambda: lambda, W: w}, nil
}

// RLS is a trained one-vs-rest linear read-out: scores = z·W.
type RLS struct {
	Dim, Classes int
	Lambda       float64
	W            blas32.General // Dim × Classes
}

// Scores writes z·W (n×Classes) into dst.
func (r *RLS) Scores(dst, z blas32.General) {
	if z.Cols != r.Dim || dst.Rows != z.Rows || dst.Cols != r.Classes {
		panic(fmt.Sprintf("classifier: scores of %dx%d into %dx%d for a %d→%d model", z.Rows, z.Cols, dst.Rows, dst.Cols, r.Dim, r.Classes))
	}
	if z.Rows == 0 {
		return
	}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, z, r.W, 0, dst)
}

// Predict returns the arg-max class of every row of z.
func (r *RLS) Predict(z blas32.General) []int {
	s := linalg.NewGeneral32(z.Rows, r.Classes)
	r.Scores(s, z)
	return Argmax(s)
}

// Argmax returns the index of the largest entry of every row (the first
// on ties).
func Argmax(s blas32.General) []int {
	return argmaxRows(s.Data, s.Rows, s.Cols, s.Stride)
}

// argmaxRows is Argmax for row-major data of either precision.
func argmaxRows[T float32 | float64](data []T, rows, cols, stride int) []int {
	out := make([]int, rows)
	for i := range out {
		row := data[i*stride : i*stride+cols]
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

// ErrorRate is the fraction of predictions that differ from the labels.
func ErrorRate(pred, labels []int) float64 {
	if len(pred) != len(labels) {
		panic("classifier: ErrorRate of slices of different lengths")
	}
	if len(pred) == 0 {
		return 0
	}
	wrong := 0
	for i := range pred {
		if pred[i] != labels[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(pred))
}
