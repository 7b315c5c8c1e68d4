package classifier

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// Naming the held-out rows explicitly is the same as the random split
// when they are the rows the random split would take; bad row lists are
// clear errors.
func TestFitRLSHeldOutRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := linalg.NewGeneral32(200, 8)
	y := make([]int, 200)
	for i := 0; i < 200; i++ {
		y[i] = i % 3
		for j := range linalg.Row32(x, i) {
			linalg.Row32(x, i)[j] = float32(r.NormFloat64()) + float32(y[i]*(j%3))
		}
	}
	m, err := maxout.New(8, maxout.Params{M: 40, Q: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	opt := FitOptions{Seed: 9}
	random, rep, err := FitRLS(m, x, y, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	held, _, _ := heldOutSplit(200, FitOptions{Seed: 9, HoldOut: 0.1}) // FitRLS's default fraction
	if len(held) != 20 {
		t.Fatalf("random split holds out %d rows, want 10%% of 200", len(held))
	}
	opt.HeldOutRows = append([]int(nil), held...)
	opt.HeldOutRows[0], opt.HeldOutRows[19] = opt.HeldOutRows[19], opt.HeldOutRows[0] // order does not matter
	named, rep2, err := FitRLS(m, x, y, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lambda != rep2.Lambda || len(rep.Trials) != len(rep2.Trials) {
		t.Fatalf("λ %v (random) vs %v (named rows)", rep.Lambda, rep2.Lambda)
	}
	for i := range random.W.Data {
		if random.W.Data[i] != named.W.Data[i] {
			t.Fatalf("weights differ at %d", i)
		}
	}
	for _, bad := range [][]int{{3, 3}, {-1}, {200}, identityOrder(200)} {
		opt.HeldOutRows = bad
		if _, _, err := FitRLS(m, x, y, 3, opt); err == nil || !strings.Contains(err.Error(), "held") && !strings.Contains(err.Error(), "hold out") {
			t.Errorf("held-out rows %v: error %v", bad[:min(3, len(bad))], err)
		}
	}
}

// The slab-by-slab float64 Gram is zzᵀ summed in float64: checked against
// the plain triple loop on a z wider than one slab and not a multiple of it,
// read through a stride larger than its width.
func TestGramFloat64Slabs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const rows, cols, stride = 7, 2*gramColumns + 37, 2*gramColumns + 40
	z := blas32.General{Rows: rows, Cols: cols, Stride: stride, Data: make([]float32, rows*stride)}
	for i := range z.Data {
		z.Data[i] = float32(r.Float64()) // positive, so no sum cancels and the relative bound is tight
	}
	k := linalg.NewGeneral64(rows, rows)
	gramFloat64(k, z)
	for i := 0; i < rows; i++ {
		for j := 0; j < rows; j++ {
			var want float64
			for c := 0; c < cols; c++ {
				want += float64(z.Data[i*stride+c]) * float64(z.Data[j*stride+c])
			}
			if got := k.Data[i*k.Stride+j]; math.Abs(got-want) > 1e-12*want {
				t.Fatalf("k[%d][%d] = %.17g, want %.17g", i, j, got, want)
			}
		}
	}
}

// Leave-one-out selection: every trial's error is the error of N refits
// without the scored row (counted by brute force through FitRLS with that λ
// fixed), the chosen λ has the lowest error with ties to the larger, the
// model is the fixed-λ fit at that λ on all rows, and the primal form is
// refused.
func TestFitRLSLeaveOneOut(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n, classes = 60, 3
	x := linalg.NewGeneral32(n, 5)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % classes
		for j := range linalg.Row32(x, i) {
			linalg.Row32(x, i)[j] = 1.5*float32(r.NormFloat64()) + float32(y[i]*(j%3))
		}
	}
	m, err := maxout.New(5, maxout.Params{M: 80, Q: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1e-4, 1e-2, 1, 100}
	opt := FitOptions{LeaveOneOut: true, Float64Gram: true, Grid: grid}
	model, rep, err := FitRLS(m, x, y, classes, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Trials) != len(grid) {
		t.Fatalf("%d trials for a grid of %d", len(rep.Trials), len(grid))
	}
	var distinct = map[float64]bool{}
	best := 0
	for ti, trial := range rep.Trials {
		wrong := 0
		for i := 0; i < n; i++ {
			keep := linalg.NewGeneral32(n-1, x.Cols)
			labels := make([]int, 0, n-1)
			for j := 0; j < n; j++ {
				if j != i {
					copy(linalg.Row32(keep, len(labels)), linalg.Row32(x, j))
					labels = append(labels, y[j])
				}
			}
			fit, _, err := FitRLS(m, keep, labels, classes, FitOptions{Lambda: trial.Lambda, Float64Gram: true, Form: FormDual})
			if err != nil {
				t.Fatal(err)
			}
			if Predict(m, fit, linalg.Rows32(x, i, i+1), 0)[0] != y[i] {
				wrong++
			}
		}
		if want := float64(wrong) / n; math.Abs(trial.HeldOutError-want) > 1e-12 {
			t.Errorf("λ = %g: leave-one-out error %.4f, refits without each row give %.4f", trial.Lambda, trial.HeldOutError, want)
		}
		distinct[trial.HeldOutError] = true
		if trial.HeldOutError <= rep.Trials[best].HeldOutError {
			best = ti
		}
	}
	if len(distinct) < 2 {
		t.Errorf("every λ gave the same leave-one-out error %v: the grid cannot test the choice", rep.Trials[0].HeldOutError)
	}
	if rep.Lambda != rep.Trials[best].Lambda {
		t.Errorf("chose λ = %g, the lowest error (ties to the larger) is at %g", rep.Lambda, rep.Trials[best].Lambda)
	}
	fixed, _, err := FitRLS(m, x, y, classes, FitOptions{Lambda: rep.Lambda, Float64Gram: true, Form: FormDual})
	if err != nil {
		t.Fatal(err)
	}
	for i := range fixed.W.Data {
		if fixed.W.Data[i] != model.W.Data[i] {
			t.Fatalf("weight %d: %v from leave-one-out selection, %v fitted at its λ", i, model.W.Data[i], fixed.W.Data[i])
		}
	}
	opt.Form = FormPrimal
	if _, _, err := FitRLS(m, x, y, classes, opt); err == nil || !strings.Contains(err.Error(), "dual") {
		t.Errorf("leave-one-out in the primal form: error %v", err)
	}
}

// The exact-count kernel is the integer Gram of the counts times unit²,
// to the last bit, over chunks that do not divide the feature count; it
// agrees with the float64 products to their rounding; and a value that is
// not a count hands the kernel back to the caller.
func TestGramCountsIsTheIntegerGram(t *testing.T) {
	const rows = 40
	m, _, z, _ := fixtures.CountFeatures(t, rows)
	unit, maxCount := m.(CountMap).CountUnit()
	if width := exactFloat32Sum / (maxCount * maxCount); z.Cols <= width || z.Cols%width == 0 {
		t.Fatalf("%d features in chunks of %d: the test wants a partial last chunk", z.Cols, width)
	}
	k := linalg.NewGeneral64(rows, rows)
	if !gramCounts(k, z, unit, maxCount) {
		t.Fatal("invariant features not taken as counts")
	}
	k64 := linalg.NewGeneral64(rows, rows)
	gramFloat64(k64, z)
	u2 := float64(unit) * float64(unit)
	for i := 0; i < rows; i++ {
		for j := 0; j < rows; j++ {
			var sum int64
			for c := 0; c < z.Cols; c++ {
				sum += int64(math.Round(float64(z.Data[i*z.Stride+c]/unit))) * int64(math.Round(float64(z.Data[j*z.Stride+c]/unit)))
			}
			got := k.Data[i*rows+j]
			if want := float64(sum) * u2; got != want {
				t.Fatalf("k[%d][%d] = %.17g, integer Gram %.17g", i, j, got, want)
			}
			if f := k64.Data[i*rows+j]; math.Abs(got-f) > 1e-6*f {
				t.Fatalf("k[%d][%d] = %.17g, float64 products %.17g", i, j, got, f)
			}
		}
	}
	z.Data[z.Stride+3] += unit / 2
	if gramCounts(k, z, unit, maxCount) {
		t.Fatal("a value half a unit off a count was taken as a count")
	}
}

// FitRLS with ExactCounts: on the invariant map it chooses the same λ and
// predicts as the float64 kernel does; on a map that is not count-valued it
// is the float64 fit to the bit.
func TestFitRLSExactCounts(t *testing.T) {
	m, x, _, labels := fixtures.CountFeatures(t, 300)
	opt := FitOptions{Seed: 3, Float64Gram: true, Form: FormDual}
	ref, refRep, err := FitRLS(m, x, labels, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.ExactCounts = true
	got, rep, err := FitRLS(m, x, labels, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	// λ is a grid value times the kernel's mean diagonal, which the two
	// kernels round differently: the same grid point is within 1e-6.
	if math.Abs(rep.Lambda-refRep.Lambda) > 1e-6*refRep.Lambda {
		t.Fatalf("λ %g with exact counts, %g with float64 products", rep.Lambda, refRep.Lambda)
	}
	pg, pr := Predict(m, got, x, 64), Predict(m, ref, x, 64)
	for i := range pg {
		if pg[i] != pr[i] {
			t.Fatalf("row %d: exact counts predict %d, float64 products %d", i, pg[i], pr[i])
		}
	}

	mo, err := maxout.New(x.Cols, maxout.Params{M: 400, Q: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	opt.ExactCounts = false
	plain, _, err := FitRLS(mo, x, labels, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.ExactCounts = true
	asked, _, err := FitRLS(mo, x, labels, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain.W.Data {
		if plain.W.Data[i] != asked.W.Data[i] {
			t.Fatalf("maxout W[%d]: %v with ExactCounts, %v without", i, asked.W.Data[i], plain.W.Data[i])
		}
	}
}

// A λ path hands over, for every grid value x, the model a search over the
// one-value grid {x} returns, bit for bit, in the primal, the dual and with
// leave-one-out; the path's model at the chosen λ is the fit's own; a λ
// too small to solve is skipped; a path beside a fixed λ is refused.
func TestFitRLSPathIsOneValueGridFits(t *testing.T) {
	x, labels := fixtures.ThreeClassRows(11)
	mp, err := maxout.New(8, maxout.Params{M: 200, Q: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1e-3, 1e-2, 1e-1, 1}
	pathGrid := []float64{1e-30, 1e-4, 1e-2, 3e-1}
	for _, tc := range []struct {
		name string
		opt  FitOptions
	}{
		{"primal", FitOptions{Seed: 2, Form: FormPrimal}},
		{"dual", FitOptions{Seed: 2, Form: FormDual}},
		{"dual, exact counts asked", FitOptions{Seed: 2, Form: FormDual, Float64Gram: true, ExactCounts: true}},
		{"leave-one-out", FitOptions{LeaveOneOut: true, Float64Gram: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Grid = grid
			var got []PathPoint
			models := map[float64]*RLS{}
			opt.PathGrid = append(append([]float64(nil), grid...), pathGrid...)
			opt.Path = func(p PathPoint, r *RLS) error {
				got = append(got, p)
				models[p.Relative] = r
				return nil
			}
			chosen, rep, err := FitRLS(mp, x, labels, 3, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < len(grid) || got[0].Relative != grid[0] {
				t.Fatalf("path %+v: want it to start with the grid %v", got, grid)
			}
			for _, rel := range opt.PathGrid {
				one := tc.opt
				one.Grid = []float64{rel}
				want, wrep, err := FitRLS(mp, x, labels, 3, one)
				r, ok := models[rel]
				if err != nil {
					if ok {
						t.Fatalf("grid value %g: the path has a model where the one-value search failed (%v)", rel, err)
					}
					continue
				}
				if !ok {
					t.Fatalf("grid value %g: missing from the path %+v", rel, got)
				}
				if r.Lambda != wrep.Lambda || !sameWeights(r.W.Data, want.W.Data) {
					t.Fatalf("grid value %g: path λ %v, one-value search λ %v; weights equal: %v", rel, r.Lambda, wrep.Lambda, sameWeights(r.W.Data, want.W.Data))
				}
			}
			var atChosen *RLS
			for _, p := range got {
				if p.Lambda == rep.Lambda {
					atChosen = models[p.Relative]
				}
			}
			if rep.Lambda == 0 || atChosen == nil || !sameWeights(atChosen.W.Data, chosen.W.Data) {
				t.Fatalf("chosen λ %v: the path's model there differs from the fit's (path %+v)", rep.Lambda, got)
			}
		})
	}
	bad := FitOptions{Lambda: 0.1, Path: func(PathPoint, *RLS) error { return nil }}
	if _, _, err := FitRLS(mp, x, labels, 3, bad); err == nil || !strings.Contains(err.Error(), "path") {
		t.Fatalf("a path with a fixed λ: error %v", err)
	}
}

func sameWeights(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// threeClusters makes a 3-class problem in the plane that a linear read-out of
// maxout features separates well.
func threeClusters(n int) (blas32.General, []int) {
	r := features.NewRand(5, 0)
	x := linalg.NewGeneral32(n, 3)
	labels := make([]int, n)
	centres := [][2]float64{{1, 0}, {-0.5, 0.87}, {-0.5, -0.87}}
	for i := 0; i < n; i++ {
		c := i % 3
		labels[i] = c
		x.Data[i*3] = float32(centres[c][0] + 0.3*(features.Uniform(r)-0.5))
		x.Data[i*3+1] = float32(centres[c][1] + 0.3*(features.Uniform(r)-0.5))
		x.Data[i*3+2] = 1
	}
	return x, labels
}

func TestFitRLSChoosesLambdaAndLearns(t *testing.T) {
	x, labels := threeClusters(3000)
	mp, _ := maxout.New(3, maxout.Params{M: 64, Q: 2}, 1)
	r, rep, err := FitRLS(mp, x, labels, 3, FitOptions{Block: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The smallest λ may leave this nearly rank-deficient Gram unsolvable
	// in float32 accumulation; the others must all be tried.
	if len(rep.Trials) < 4 || rep.Lambda <= 0 {
		t.Fatalf("λ search report %+v", rep)
	}
	z := features.Apply(mp, x, 700)
	if e := ErrorRate(r.Predict(z), labels); e > 0.01 {
		t.Fatalf("training error %.3f on separable clusters", e)
	}
	// Streaming prediction equals prediction from the whole feature matrix.
	pz, ps := r.Predict(z), Predict(mp, r, x, 333)
	for i := range pz {
		if pz[i] != ps[i] {
			t.Fatalf("row %d: streamed prediction %d, one-shot %d", i, ps[i], pz[i])
		}
	}
	// The final model is the one-shot solve on every row (held-out rows
	// included exactly once) at the reported λ.
	acc := NewRLSAccumulator(64, 3)
	if err := acc.Add(z, labels); err != nil {
		t.Fatal(err)
	}
	d, err := acc.Solve(rep.Lambda)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.W.Data {
		if math.Abs(float64(d.W.Data[i]-r.W.Data[i])) > 1e-3*(1+math.Abs(float64(d.W.Data[i]))) {
			t.Fatalf("weight %d: fit %v, one-shot on all rows %v", i, r.W.Data[i], d.W.Data[i])
		}
	}
}

func TestFitRLSFixedLambdaEqualsDirectSolve(t *testing.T) {
	// Random inputs keep the Gram well conditioned, so the comparison
	// measures blocking, not the amplification of rounding.
	x := linalg.NewGeneral32(1000, 8)
	features.FillNormal32(features.NewRand(4, 0), x.Data)
	labels := make([]int, 1000)
	for i := range labels {
		labels[i] = i % 3
	}
	mp, _ := maxout.New(8, maxout.Params{M: 40, Q: 3}, 2)
	r, _, err := FitRLS(mp, x, labels, 3, FitOptions{Lambda: 0.1, Block: 128})
	if err != nil {
		t.Fatal(err)
	}
	acc := NewRLSAccumulator(40, 3)
	if err := acc.Add(features.Apply(mp, x, 0), labels); err != nil {
		t.Fatal(err)
	}
	d, _ := acc.Solve(0.1)
	for i := range d.W.Data {
		if math.Abs(float64(d.W.Data[i]-r.W.Data[i])) > 1e-3*(1+math.Abs(float64(d.W.Data[i]))) {
			t.Fatalf("weight %d: blockwise %v, one-shot %v", i, r.W.Data[i], d.W.Data[i])
		}
	}
	if _, _, err := FitRLS(mp, x, labels[:10], 3, FitOptions{}); err == nil {
		t.Fatal("label count mismatch accepted")
	}
}

// TestFitRLSDualEqualsPrimal: with fewer rows than features FitRLS solves
// the N×N dual system; it must choose the same λ from the same held-out
// rows and return the primal's weights.
func TestFitRLSDualEqualsPrimal(t *testing.T) {
	x, labels := fixtures.ThreeClassRows(5)
	mp, _ := maxout.New(8, maxout.Params{M: 200, Q: 2}, 3)
	grid := []float64{1e-3, 1e-2, 1e-1, 1}
	primal, prep, err := FitRLS(mp, x, labels, 3, FitOptions{Seed: 2, Form: FormPrimal, Grid: grid})
	if err != nil {
		t.Fatal(err)
	}
	dual, drep, err := FitRLS(mp, x, labels, 3, FitOptions{Seed: 2, Grid: grid}) // auto: 150 rows < 200 features
	if err != nil {
		t.Fatal(err)
	}
	if len(prep.Trials) != len(drep.Trials) {
		t.Fatalf("trials: primal %+v, dual %+v", prep.Trials, drep.Trials)
	}
	for i := range prep.Trials {
		p, d := prep.Trials[i], drep.Trials[i]
		if math.Abs(p.Lambda-d.Lambda) > 1e-4*p.Lambda || p.HeldOutError != d.HeldOutError {
			t.Fatalf("trial %d: primal %+v, dual %+v", i, p, d)
		}
	}
	var worst, scale float64
	for i := range primal.W.Data {
		worst = math.Max(worst, math.Abs(float64(primal.W.Data[i]-dual.W.Data[i])))
		scale = math.Max(scale, math.Abs(float64(primal.W.Data[i])))
	}
	if worst > 1e-3*scale {
		t.Fatalf("dual weights differ from primal by %.3g (largest %.3g)", worst, scale)
	}
	fixed, _, err := FitRLS(mp, x, labels, 3, FitOptions{Lambda: 0.5, Form: FormDual})
	if err != nil {
		t.Fatal(err)
	}
	acc := NewRLSAccumulator(200, 3)
	if err := acc.Add(features.Apply(mp, x, 0), labels); err != nil {
		t.Fatal(err)
	}
	d, _ := acc.Solve(0.5)
	for i := range d.W.Data {
		if math.Abs(float64(d.W.Data[i]-fixed.W.Data[i])) > 1e-3*(1+math.Abs(float64(d.W.Data[i]))) {
			t.Fatalf("fixed λ: weight %d dual %v, primal %v", i, fixed.W.Data[i], d.W.Data[i])
		}
	}
}
