package rfstream

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/linalg"
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
