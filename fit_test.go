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
