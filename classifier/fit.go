package classifier

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/progress"
)

// Featurizer is what FitRLS needs of a random feature map: every
// features.Map is one. It is declared here, where it is used, so that the
// classifiers stay independent of the maps that feed them.
type Featurizer interface {
	InDim() int
	OutDim() int
	Apply(dst, x blas32.General)
}

// FitOptions control FitRLS.
type FitOptions struct {
	// Lambda is the ridge parameter; 0 chooses it on a held-out split.
	Lambda float64
	// Block is how many rows go through the map at a time (default 4096).
	Block int
	// HoldOut is the fraction of training rows held out to choose λ
	// (default 0.1). The test set is never used for this.
	HoldOut float64
	// LeaveOneOut chooses λ by the exact leave-one-out error over every
	// training row instead of a held-out fraction, as GURLS (the invariance
	// paper's RLS) does. It needs the dual form: each λ costs a Cholesky
	// factorisation and a triangular inverse of the N×N kernel, and no row
	// is set aside, so the chosen λ is used as it is for the final fit.
	LeaveOneOut bool
	// Grid lists candidate λ relative to the mean diagonal of ZᵀZ
	// (default 1e-6 … 1e-1 by decades; with LeaveOneOut, 1e-8 … 1e-1 by
	// half decades, since a leave-one-out error over all N rows can tell
	// neighbouring λ apart where 10 % of them could not).
	Grid []float64
	// Seed fixes which rows are held out.
	Seed uint64
	// HeldOutRows, when set, are the rows held out to choose λ instead of
	// a random HoldOut fraction: e.g. every recording of some speakers, so
	// λ is chosen for new speakers rather than new takes of known ones.
	HeldOutRows []int
	// Progress, when set, receives progress reports.
	Progress io.Writer
	// Float64Gram forms ZᵀZ (or ZZᵀ in the dual) from float64 products:
	// twice the cost, but it lets positive, strongly correlated features
	// (CDF counts) use the small λ that float32 rounding forbids.
	Float64Gram bool
	// ExactCounts forms the dual kernel ZZᵀ of a map whose features are
	// integer counts times one unit (CountMap, e.g. the invariant map's CDF
	// features) from the counts themselves: float32 SYRK over column chunks
	// narrow enough that every partial sum is an integer below 2²⁴, hence
	// exact, summed in float64 and scaled by unit² once. That is about 1.6×
	// as fast as float64 products here, and exact where they round; it is
	// not bit-identical to them (they multiply the float32-rounded
	// features). Any other map, or features that are not such counts, take
	// the path Float64Gram chooses, unchanged.
	ExactCounts bool
	// Path, when set, is given the model refitted on all training rows at
	// every λ of PathGrid, after the chosen model is fitted. Each λ is
	// scaled from its grid value as the chosen one is, so the model at a
	// grid value x is the one a search over Grid = {x} returns. It lets a
	// caller score a whole λ path on its own test set from one Gram, the
	// costliest step, instead of one fit per λ.
	Path func(p PathPoint, r *RLS) error
	// PathGrid lists the λ of the path relative to the mean diagonal of
	// ZᵀZ (default: Grid).
	PathGrid []float64
	// Form chooses how the system is solved: FormAuto (the default) solves
	// the dual N×N system when there are fewer rows than features and the
	// primal dim×dim system otherwise. Both give the same model.
	Form Form
}

// Form is the shape of the linear system RLS solves.
type Form int

const (
	// FormAuto picks the smaller of the two systems.
	FormAuto Form = iota
	// FormPrimal solves (ZᵀZ + λI)W = ZᵀY: dim×dim, streamed over rows.
	FormPrimal
	// FormDual solves (ZZᵀ + λI)C = Y and sets W = ZᵀC: N×N, with Z held
	// whole (smaller than the dim×dim Gram when N < dim).
	FormDual
)

// LambdaTrial is one candidate λ and its held-out (or leave-one-out) error.
type LambdaTrial struct {
	Lambda, Relative, HeldOutError float64
}

// PathPoint is one λ of a fit's λ path: Relative is its grid value.
type PathPoint struct {
	Lambda, Relative float64
}

// FitReport says how a fit went.
type FitReport struct {
	Lambda float64
	Trials []LambdaTrial
}

// FitRLS trains an RLS read-out on map m of the rows of x, streaming x
// through the map block by block so only one block of features is held at
// a time (plus, when λ is being chosen, the held-out rows' features).
func FitRLS(m Featurizer, x blas32.General, labels []int, classes int, opt FitOptions) (*RLS, FitReport, error) {
	if x.Rows != len(labels) {
		return nil, FitReport{}, fmt.Errorf("rfstream: %d rows but %d labels", x.Rows, len(labels))
	}
	if x.Cols != m.InDim() {
		return nil, FitReport{}, fmt.Errorf("rfstream: %d-column input for a %d-input map", x.Cols, m.InDim())
	}
	if opt.Block <= 0 {
		opt.Block = 4096
	}
	if opt.HoldOut <= 0 {
		opt.HoldOut = 0.1
	}
	if len(opt.Grid) == 0 {
		opt.Grid = []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1}
		if opt.LeaveOneOut {
			opt.Grid = halfDecades(1e-8, 1e-1)
		}
	}
	if opt.Path != nil && opt.Lambda > 0 {
		return nil, FitReport{}, errors.New("rfstream: a λ path needs λ chosen by a search, not given")
	}
	if opt.LeaveOneOut && opt.Lambda == 0 {
		if opt.Form == FormPrimal {
			return nil, FitReport{}, errors.New("rfstream: leave-one-out λ selection needs the dual form")
		}
		opt.Form = FormDual
	}
	var bar *progress.Bar
	if opt.Progress != nil {
		bar = progress.New(opt.Progress, "features+gram", int64(x.Rows), "rows")
		defer bar.Finish()
	}
	if opt.Form == FormDual || (opt.Form == FormAuto && x.Rows < m.OutDim()) {
		return fitDual(m, x, labels, classes, opt, bar)
	}
	train := NewRLSAccumulator(m.OutDim(), classes)
	train.Float64 = opt.Float64Gram
	if opt.Lambda > 0 {
		err := streamRows(m, x, labels, identityOrder(x.Rows), opt.Block, bar, func(z blas32.General, l []int) error { return train.Add(z, l) })
		if err != nil {
			return nil, FitReport{}, err
		}
		r, err := train.Solve(opt.Lambda)
		return r, FitReport{Lambda: opt.Lambda}, err
	}

	// Hold out a seeded random subset to choose λ.
	held, rest, err := heldOutSplit(x.Rows, opt)
	if err != nil {
		return nil, FitReport{}, err
	}
	nHeld := len(held)
	// The held-out rows' features are kept (they are scored for every λ
	// and join the Gram afterwards), so only one dim×dim Gram ever exists.
	heldZ := linalg.NewGeneral32(nHeld, m.OutDim())
	heldLabels := make([]int, 0, nHeld)
	at := 0
	err = streamRows(m, x, labels, held, opt.Block, bar, func(z blas32.General, l []int) error {
		for i := 0; i < z.Rows; i++ {
			copy(linalg.Row32(heldZ, at+i), linalg.Row32(z, i))
		}
		at += z.Rows
		heldLabels = append(heldLabels, l...)
		return nil
	})
	if err != nil {
		return nil, FitReport{}, err
	}
	err = streamRows(m, x, labels, rest, opt.Block, bar, func(z blas32.General, l []int) error { return train.Add(z, l) })
	if err != nil {
		return nil, FitReport{}, err
	}
	scale := train.MeanDiagonal()
	rep, err := searchLambda(opt.Grid, scale, func(lambda float64) (float64, error) {
		r, err := train.Solve(lambda)
		if err != nil {
			return 0, err
		}
		return ErrorRate(r.Predict(heldZ), heldLabels), nil
	})
	if err != nil {
		return nil, rep, err
	}
	// Refit on all rows. λ grows with N so the balance between data and
	// regulariser stays the one the held-out rows chose.
	for b0 := 0; b0 < nHeld; b0 += opt.Block {
		b1 := min(b0+opt.Block, nHeld)
		if err := train.Add(linalg.Rows32(heldZ, b0, b1), heldLabels[b0:b1]); err != nil {
			return nil, rep, err
		}
	}
	growth := float64(x.Rows) / float64(len(rest))
	rep.Lambda *= growth
	r, err := train.Solve(rep.Lambda)
	// Features that are constant or duplicated (CDF thresholds that every
	// input passes) make the Gram singular; float32 rounding can then leave
	// it indefinite by more than the chosen λ once the held-out rows have
	// joined. A larger λ is the smallest change that solves.
	for tries := 0; tries < 3 && errors.Is(err, linalg.ErrNotPositiveDefinite); tries++ {
		rep.Lambda *= 10
		r, err = train.Solve(rep.Lambda)
	}
	if err != nil {
		return nil, rep, err
	}
	return r, rep, walkPath(opt, scale, growth, r, train.Solve)
}

// fitDual is FitRLS through the N×N kernel K = ZZᵀ: the same held-out rows,
// the same λ grid relative to the mean diagonal of ZᵀZ and the same refit,
// so it returns the model the primal would, at O(N²·dim + N³) cost instead
// of O(N·dim² + dim³).
func fitDual(m Featurizer, x blas32.General, labels []int, classes int, opt FitOptions, bar *progress.Bar) (*RLS, FitReport, error) {
	// The map writes straight into z, block by block: a separate block
	// buffer would be one more block×OutDim matrix (800 MB at 4096 rows of
	// 49 500 features) alive beside z.
	z := linalg.NewGeneral32(x.Rows, m.OutDim())
	for b0 := 0; b0 < x.Rows; b0 += opt.Block {
		b1 := min(b0+opt.Block, x.Rows)
		m.Apply(linalg.Rows32(z, b0, b1), linalg.Rows32(x, b0, b1))
		if bar != nil {
			bar.Add(int64(b1 - b0))
		}
	}
	for i, v := range z.Data {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, FitReport{}, fmt.Errorf("%w (row %d, feature %d = %v)", ErrNonFinite, i/z.Cols, i%z.Cols, v)
		}
	}
	k64 := linalg.NewGeneral64(x.Rows, x.Rows)
	switch {
	case opt.ExactCounts && gramOfCounts(m, k64, z):
	case opt.Float64Gram:
		gramFloat64(k64, z)
	default:
		k32 := linalg.NewGeneral32(x.Rows, x.Rows)
		linalg.MulABt32(k32, z, z)
		for i, v := range k32.Data {
			k64.Data[i] = float64(v)
		}
	}
	kernel := func(rows, cols []int) blas64.General {
		k := linalg.NewGeneral64(len(rows), len(cols))
		for a, i := range rows {
			kr := k64.Data[i*k64.Stride : (i+1)*k64.Stride]
			for b, j := range cols {
				k.Data[a*k.Stride+b] = kr[j]
			}
		}
		return k
	}
	pick := func(idx []int) []int {
		out := make([]int, len(idx))
		for a, i := range idx {
			out[a] = labels[i]
		}
		return out
	}
	// weights turns dual coefficients for the rows idx into W = Z[idx]ᵀC.
	weights := func(c *KernelRLS, idx []int) *RLS {
		w := make([]float64, z.Cols*classes)
		// Split by features: every w[f, k] still sums its rows in order,
		// so the split changes no bit.
		linalg.ParallelRows(z.Cols, 256, func(f0, f1 int) {
			for a, i := range idx {
				zr := linalg.Row32(z, i)[f0:f1]
				cr := c.C.Data[a*c.C.Stride : a*c.C.Stride+classes]
				for f, v := range zr {
					wf := w[(f0+f)*classes : (f0+f+1)*classes]
					for k, cv := range cr {
						wf[k] += float64(v) * cv
					}
				}
			}
		})
		out := linalg.NewGeneral32(z.Cols, classes)
		for i, v := range w {
			out.Data[i] = float32(v)
		}
		return &RLS{Dim: z.Cols, Classes: classes, Lambda: c.Lambda, W: out}
	}
	all := identityOrder(x.Rows)
	if opt.Lambda > 0 {
		c, err := FitKernelRLS(k64, labels, classes, opt.Lambda)
		if err != nil {
			return nil, FitReport{}, err
		}
		return weights(c, all), FitReport{Lambda: opt.Lambda}, nil
	}
	solve := func(lambda float64) (*RLS, error) {
		c, err := FitKernelRLS(k64, labels, classes, lambda)
		if err != nil {
			return nil, err
		}
		return weights(c, all), nil
	}
	if opt.LeaveOneOut {
		c, rep, err := fitDualLOO(k64, labels, classes, z.Cols, opt.Grid)
		if err != nil {
			return nil, rep, err
		}
		// Leave-one-out uses its λ as it is: no rows were set aside.
		r := weights(c, all)
		return r, rep, walkPath(opt, meanDiagonal(k64, all, z.Cols), 1, r, solve)
	}
	held, rest, err := heldOutSplit(x.Rows, opt)
	if err != nil {
		return nil, FitReport{}, err
	}
	kRest, kHeld, restLabels, heldLabels := kernel(rest, rest), kernel(held, rest), pick(rest), pick(held)
	scale := meanDiagonal(k64, rest, z.Cols)
	rep, err := searchLambda(opt.Grid, scale, func(lambda float64) (float64, error) {
		c, err := FitKernelRLS(kRest, restLabels, classes, lambda)
		if err != nil {
			return 0, err
		}
		return ErrorRate(c.Predict(kHeld), heldLabels), nil
	})
	if err != nil {
		return nil, rep, err
	}
	growth := float64(x.Rows) / float64(len(rest))
	rep.Lambda *= growth
	c, err := FitKernelRLS(k64, labels, classes, rep.Lambda)
	for tries := 0; tries < 3 && errors.Is(err, linalg.ErrNotPositiveDefinite); tries++ {
		rep.Lambda *= 10 // as in the primal: a singular kernel rounded indefinite
		c, err = FitKernelRLS(k64, labels, classes, rep.Lambda)
	}
	if err != nil {
		return nil, rep, err
	}
	r := weights(c, all)
	return r, rep, walkPath(opt, scale, growth, r, solve)
}

// walkPath refits at every λ of opt.PathGrid (default opt.Grid) and hands
// each model to opt.Path. A grid value rel becomes λ = rel·scale·growth, in
// the order the search and its refit compute it, so the path's model at rel
// is bit for bit the fit a one-value grid {rel} gives. A λ too small for
// the Gram to stay positive definite is skipped, as the search skips it.
// The chosen model is handed over as it is where the path meets its λ:
// refitting would repeat a factorisation to get the same bits.
func walkPath(opt FitOptions, scale, growth float64, chosen *RLS, solve func(lambda float64) (*RLS, error)) error {
	if opt.Path == nil {
		return nil
	}
	if scale == 0 {
		scale = 1 // as searchLambda counts it
	}
	grid := opt.PathGrid
	if len(grid) == 0 {
		grid = opt.Grid
	}
	for _, rel := range grid {
		lambda := rel * scale
		lambda *= growth
		r, err := chosen, error(nil)
		if lambda != chosen.Lambda {
			r, err = solve(lambda)
		}
		if errors.Is(err, linalg.ErrNotPositiveDefinite) {
			continue
		}
		if err != nil {
			return err
		}
		if err := opt.Path(PathPoint{Lambda: lambda, Relative: rel}, r); err != nil {
			return err
		}
	}
	return nil
}

// fitDualLOO chooses λ on the grid (relative to the mean diagonal of ZᵀZ,
// dim features) by the leave-one-out error over all rows of kernel k and
// fits the model with it. Ties go to the larger λ, as on a held-out split.
func fitDualLOO(k blas64.General, labels []int, classes, dim int, grid []float64) (*KernelRLS, FitReport, error) {
	rep, err := searchLambda(grid, meanDiagonal(k, identityOrder(k.Rows), dim), func(lambda float64) (float64, error) {
		s, err := KernelLOOScores(k, labels, classes, lambda)
		if err != nil {
			return 0, err
		}
		return ErrorRate(ArgMaxRows(s), labels), nil
	})
	if err != nil {
		return nil, rep, err
	}
	c, err := FitKernelRLS(k, labels, classes, rep.Lambda)
	return c, rep, err
}

// searchLambda tries λ = rel·scale for every rel of grid, skipping the λ
// errorAt cannot solve for (too small for the Gram), and returns every
// trial with the lowest error's λ in Lambda. Ties go to the later λ of the
// grid: with the ascending grids FitRLS uses, the larger λ and the
// smoother model. A zero scale (all-zero features) counts as 1.
func searchLambda(grid []float64, scale float64, errorAt func(lambda float64) (float64, error)) (FitReport, error) {
	if scale == 0 {
		scale = 1
	}
	var rep FitReport
	best := -1
	for _, rel := range grid {
		e, err := errorAt(rel * scale)
		if err != nil {
			continue
		}
		rep.Trials = append(rep.Trials, LambdaTrial{Lambda: rel * scale, Relative: rel, HeldOutError: e})
		if best < 0 || e <= rep.Trials[best].HeldOutError {
			best = len(rep.Trials) - 1
		}
	}
	if best < 0 {
		return rep, fmt.Errorf("rfstream: no λ in %v gave a solvable system", grid)
	}
	rep.Lambda = rep.Trials[best].Lambda
	return rep, nil
}

// meanDiagonal is the mean diagonal of ZᵀZ (dim features) over the rows of
// Z whose kernel diagonal k holds: the trace is the same either way round.
func meanDiagonal(k blas64.General, rows []int, dim int) float64 {
	var t float64
	for _, i := range rows {
		t += k.Data[i*k.Stride+i]
	}
	return t / float64(dim)
}

// halfDecades returns lo, lo·√10, 10·lo, … up to hi.
func halfDecades(lo, hi float64) []float64 {
	var g []float64
	for e := math.Log10(lo); e <= math.Log10(hi)+1e-9; e += 0.5 {
		g = append(g, math.Pow(10, e))
	}
	return g
}

// gramColumns is how many feature columns gramFloat64 widens to float64 at
// a time: wide enough for the BLAS to run near its peak, narrow enough that
// the float64 copy (N × gramColumns) stays small beside z itself.
const gramColumns = 1024

// gramFloat64 sets k = zzᵀ with float64 products and sums, one slab of
// columns at a time, so the float64 copy of z never exists whole: at 10 000
// rows and 99 000 features that copy alone would be 7.9 GB. k is n×n and
// contiguous.
func gramFloat64(k blas64.General, z blas32.General) {
	n := z.Rows
	if k.Rows != n || k.Cols != n || k.Stride != n {
		panic(fmt.Sprintf("rfstream: gramFloat64 needs a contiguous %d×%d kernel, have %d×%d stride %d", n, n, k.Rows, k.Cols, k.Stride))
	}
	slab := linalg.NewGeneral64(n, min(gramColumns, z.Cols))
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: k.Stride, Data: k.Data}
	for c0 := 0; c0 < z.Cols; c0 += gramColumns {
		c1 := min(c0+gramColumns, z.Cols)
		w := c1 - c0
		a := blas64.General{Rows: n, Cols: w, Stride: w, Data: slab.Data[:n*w]}
		for i := 0; i < n; i++ {
			dst := a.Data[i*w : (i+1)*w]
			for j, v := range z.Data[i*z.Stride+c0 : i*z.Stride+c1] {
				dst[j] = float64(v)
			}
		}
		beta := 1.0
		if c0 == 0 {
			beta = 0
		}
		blas64.Syrk(blas.NoTrans, 1, a, beta, sym)
	}
	linalg.MirrorUpperToLower(k.Data, n)
}

// CountMap is a feature map whose every output is float32(count)·unit
// for an integer count in [0, maxCount].
type CountMap interface {
	Featurizer
	CountUnit() (unit float32, maxCount int)
}

// gramOfCounts is gramCounts for a map that says its features are counts;
// it reports false for any other map.
func gramOfCounts(m Featurizer, k blas64.General, z blas32.General) bool {
	cm, ok := m.(CountMap)
	if !ok {
		return false
	}
	unit, maxCount := cm.CountUnit()
	return gramCounts(k, z, unit, maxCount)
}

// gramCounts sets k = zzᵀ for features z = float32(count)·unit, from the
// counts: each chunk of columns is small enough that its partial sums
// (at most width·maxCount²) stay below 2²⁴, so float32 SYRK adds them
// exactly whatever its order; the chunks are summed in float64 (exact up
// to 2⁵³) and scaled by unit² once. It reports false, leaving k to the
// caller, when some value of z is not such a count or maxCount is too large
// for a useful chunk.
func gramCounts(k blas64.General, z blas32.General, unit float32, maxCount int) bool {
	n := z.Rows
	if k.Rows != n || k.Cols != n || k.Stride != n {
		panic(fmt.Sprintf("rfstream: gramCounts needs a contiguous %d×%d kernel, have %d×%d stride %d", n, n, k.Rows, k.Cols, k.Stride))
	}
	if unit <= 0 || maxCount < 1 {
		return false
	}
	width := min(exactFloat32Sum/(maxCount*maxCount), z.Cols)
	if width < 64 {
		return false // maxCount > 512: chunks too narrow for the BLAS to pay
	}
	slab := linalg.NewGeneral32(n, width)
	part := make([]float32, n*n)
	clear(k.Data[:n*n])
	inv, top := 1/unit, float32(maxCount)
	for c0 := 0; c0 < z.Cols; c0 += width {
		c1 := min(c0+width, z.Cols)
		w := c1 - c0
		a := blas32.General{Rows: n, Cols: w, Stride: w, Data: slab.Data[:n*w]}
		for i := 0; i < n; i++ {
			dst := a.Data[i*w : (i+1)*w]
			for j, v := range z.Data[i*z.Stride+c0 : i*z.Stride+c1] {
				c, ok := CountOf(v, unit, inv, top)
				if !ok {
					return false
				}
				dst[j] = c
			}
		}
		blas32.Syrk(blas.NoTrans, 1, a, 0, blas32.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: part})
		for i := 0; i < n; i++ {
			kr, pr := k.Data[i*n+i:(i+1)*n], part[i*n+i:(i+1)*n]
			for j, v := range pr {
				kr[j] += float64(v)
			}
		}
	}
	u2 := float64(unit) * float64(unit)
	for i := 0; i < n; i++ {
		kr := k.Data[i*n+i : (i+1)*n]
		for j := range kr {
			kr[j] *= u2
		}
	}
	linalg.MirrorUpperToLower(k.Data, n)
	return true
}

// CountOf is the count c in [0, top] whose feature float32(c)·unit is v,
// found by rounding v·inv (inv = 1/unit) and checked by recomputing the
// feature the way a CountMap makes it; ok is false for any other value,
// NaN included.
func CountOf(v, unit, inv, top float32) (c float32, ok bool) {
	c = float32(int32(v*inv + 0.5))
	return c, c*unit == v && c <= top && v >= 0
}

// exactFloat32Sum is 2²⁴: float32 represents every integer up to it.
const exactFloat32Sum = 1 << 24

// heldOutSplit returns the sorted rows held out to choose λ and the rest.
func heldOutSplit(n int, opt FitOptions) (held, rest []int, err error) {
	if len(opt.HeldOutRows) > 0 {
		in := make([]bool, n)
		for _, r := range opt.HeldOutRows {
			if r < 0 || r >= n || in[r] {
				return nil, nil, fmt.Errorf("rfstream: held-out row %d is out of range or repeated (%d rows)", r, n)
			}
			in[r] = true
		}
		for i, h := range in {
			if h {
				held = append(held, i)
			} else {
				rest = append(rest, i)
			}
		}
	} else {
		order := rand.New(rand.NewPCG(opt.Seed, 0x686f6c64)).Perm(n)
		k := int(math.Round(opt.HoldOut * float64(n)))
		held, rest = order[:min(max(k, 0), n)], order[min(max(k, 0), n):]
		sort.Ints(held)
		sort.Ints(rest)
	}
	if len(held) < 1 || len(rest) < 1 {
		return nil, nil, fmt.Errorf("rfstream: cannot hold out %d of %d rows to choose λ; give --lambda", len(held), n)
	}
	return held, rest, nil
}

// AddMapped adds the features m gives the rows of x, with their labels,
// streaming x through m block rows at a time (4096 when block ≤ 0), so only
// one block of features is held at once.
func (a *RLSAccumulator) AddMapped(m Featurizer, x blas32.General, labels []int, block int) error {
	if block <= 0 {
		block = 4096
	}
	return streamRows(m, x, labels, identityOrder(x.Rows), block, nil, a.Add)
}

func identityOrder(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// streamRows applies m to the rows of x listed in idx, block by block, and
// hands each block of features with its labels to sink, in order. The
// labels may be a slice of labels itself: sink must not change them, nor
// keep the block after it returns.
//
// The next block is mapped while sink takes the last one: a fit's sink
// is a BLAS call (the Gram update) and the map, for sparse rows, Go code,
// so the two overlap instead of each leaving cores idle — or, worse,
// leaving the BLAS's threads spinning for work on the cores the map
// needs.
func streamRows(m Featurizer, x blas32.General, labels []int, idx []int, block int, bar *progress.Bar, sink func(blas32.General, []int) error) error {
	type mapped struct {
		z  blas32.General
		lb []int
		// slot is the buffer the block lies in, handed back once sunk.
		slot int
	}
	type buffers struct {
		in, out  blas32.General
		gathered []int
	}
	var bufs [2]buffers
	free := make(chan int, 2)
	free <- 0
	free <- 1
	ready := make(chan mapped)
	stop := make(chan struct{})
	go func() {
		defer close(ready)
		for b0 := 0; b0 < len(idx); b0 += block {
			var slot int
			select {
			case slot = <-free:
			case <-stop:
				return
			}
			buf := &bufs[slot]
			if buf.out.Data == nil {
				buf.out = linalg.NewGeneral32(min(block, len(idx)), m.OutDim())
			}
			rows := idx[b0:min(b0+block, len(idx))]
			var xi blas32.General
			var lb []int
			if first, last := rows[0], rows[len(rows)-1]; last-first == len(rows)-1 && contiguous(rows) {
				// Rows in order are mapped where they lie.
				xi, lb = linalg.Rows32(x, first, last+1), labels[first:last+1]
			} else {
				if buf.in.Data == nil {
					buf.in = linalg.NewGeneral32(min(block, len(idx)), x.Cols)
				}
				xi = linalg.Rows32(buf.in, 0, len(rows))
				buf.gathered = buf.gathered[:0]
				for i, r := range rows {
					copy(linalg.Row32(xi, i), linalg.Row32(x, r))
					buf.gathered = append(buf.gathered, labels[r])
				}
				lb = buf.gathered
			}
			z := linalg.Rows32(buf.out, 0, len(rows))
			m.Apply(z, xi)
			select {
			case ready <- mapped{z, lb, slot}:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range ready { // the producer has stopped once ready is closed
		}
	}()
	for b := range ready {
		if err := sink(b.z, b.lb); err != nil {
			return err
		}
		if bar != nil {
			bar.Add(int64(b.z.Rows))
		}
		free <- b.slot
	}
	return nil
}

// contiguous reports whether rows counts up by one.
func contiguous(rows []int) bool {
	for i := 1; i < len(rows); i++ {
		if rows[i] != rows[i-1]+1 {
			return false
		}
	}
	return true
}

// Predict maps the rows of x through m block by block and returns r's
// arg-max class for each, holding one block of features at a time rather
// than the whole n×OutDim feature matrix (400 MB for the MNIST test set at
// 10000 features).
func Predict(m Featurizer, r *RLS, x blas32.General, block int) []int {
	if block <= 0 {
		block = 4096
	}
	pred := make([]int, 0, x.Rows)
	z := linalg.NewGeneral32(min(block, x.Rows), m.OutDim())
	for b0 := 0; b0 < x.Rows; b0 += block {
		b1 := min(b0+block, x.Rows)
		zb := linalg.Rows32(z, 0, b1-b0)
		m.Apply(zb, linalg.Rows32(x, b0, b1))
		pred = append(pred, r.Predict(zb)...)
	}
	return pred
}
