package classifier

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/internal/linalg"
)

func gaussianRows(n, d int, r *rand.Rand) blas32.General {
	z := linalg.NewGeneral32(n, d)
	for i := range z.Data {
		z.Data[i] = float32(r.NormFloat64())
	}
	return z
}

// TestRecoversLinearModel: labels produced by a known linear scorer are
// learned back, and with ±1 targets exactly reproduced by a linear model
// (targets = Z·W*) and a tiny λ, the weights themselves come back.
func TestRecoversLinearModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, d, c = 3000, 12, 2
	z := gaussianRows(n, d, r)
	wstar := make([]float64, d)
	for i := range wstar {
		wstar[i] = r.NormFloat64()
	}
	labels := make([]int, n)
	for i := range labels {
		var s float64
		for k := 0; k < d; k++ {
			s += float64(z.Data[i*d+k]) * wstar[k]
		}
		if s > 0 {
			labels[i] = 1
		}
	}
	acc := NewRLSAccumulator(d, c)
	for i := 0; i < n; i += 700 {
		j := min(i+700, n)
		if err := acc.Add(linalg.Rows32(z, i, j), labels[i:j]); err != nil {
			t.Fatal(err)
		}
	}
	m, err := acc.Solve(1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if e := ErrorRate(m.Predict(z), labels); e > 0.03 {
		t.Fatalf("training error %.3f on linearly separable data", e)
	}
	// The class-1 weight vector points along w*.
	var dot, nw, ns float64
	for k := 0; k < d; k++ {
		w := float64(m.W.Data[k*c+1])
		dot += w * wstar[k]
		nw += w * w
		ns += wstar[k] * wstar[k]
	}
	if cos := dot / math.Sqrt(nw*ns); cos < 0.98 {
		t.Fatalf("learned direction has cosine %.3f with the true one", cos)
	}
}

func TestExactLeastSquaresSolution(t *testing.T) {
	// With d ≥ n... use a tiny overdetermined system solved by hand:
	// Z = [[1,0],[0,1],[1,1]], labels [0,1,1] → Y col1 = [-1,1,1].
	z := blas32.General{Rows: 3, Cols: 2, Stride: 2, Data: []float32{1, 0, 0, 1, 1, 1}}
	acc := NewRLSAccumulator(2, 2)
	if err := acc.Add(z, []int{0, 1, 1}); err != nil {
		t.Fatal(err)
	}
	m, err := acc.Solve(0)
	if err != nil {
		t.Fatal(err)
	}
	// ZᵀZ = [[2,1],[1,2]], ZᵀY₁ = [0,2] → α₁ = [-2/3, 4/3]; Y₀ = -Y₁ → α₀ = -α₁.
	want := []float32{2.0 / 3, -2.0 / 3, -4.0 / 3, 4.0 / 3}
	for i, w := range want {
		if math.Abs(float64(m.W.Data[i]-w)) > 1e-5 {
			t.Fatalf("W = %v, want %v", m.W.Data, want)
		}
	}
}

func TestBlockwiseGramEqualsOneShot(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, d = 1000, 37
	z := gaussianRows(n, d, r)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(3)
	}
	one := NewRLSAccumulator(d, 3)
	if err := one.Add(z, labels); err != nil {
		t.Fatal(err)
	}
	blocks := NewRLSAccumulator(d, 3)
	for i := 0; i < n; i += 64 {
		j := min(i+64, n)
		if err := blocks.Add(linalg.Rows32(z, i, j), labels[i:j]); err != nil {
			t.Fatal(err)
		}
	}
	// The one-shot reference in float64, straight from the definition.
	ga, gb := one.Gram(), blocks.Gram()
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += float64(z.Data[k*d+i]) * float64(z.Data[k*d+j])
			}
			tol := 1e-5 * float64(n)
			if math.Abs(ga.Data[i*d+j]-s) > tol || math.Abs(gb.Data[i*d+j]-s) > tol {
				t.Fatalf("Gram(%d,%d): one-shot %v, blocks %v, exact %v", i, j, ga.Data[i*d+j], gb.Data[i*d+j], s)
			}
		}
	}
	// ZᵀY against the definition with ±1 targets.
	for k := 0; k < d; k++ {
		for c := 0; c < 3; c++ {
			var s float64
			for i := 0; i < n; i++ {
				y := -1.0
				if labels[i] == c {
					y = 1
				}
				s += float64(z.Data[i*d+k]) * y
			}
			a, b := one.zty[k*3+c], blocks.zty[k*3+c]
			if math.Abs(a-s) > 1e-5*float64(n) || math.Abs(b-s) > 1e-5*float64(n) {
				t.Fatalf("ZᵀY(%d,%d): one-shot %v, blocks %v, exact %v", k, c, a, b, s)
			}
		}
	}
	// Merging two halves equals accumulating the whole.
	h1, h2 := NewRLSAccumulator(d, 3), NewRLSAccumulator(d, 3)
	h1.Add(linalg.Rows32(z, 0, 500), labels[:500])
	h2.Add(linalg.Rows32(z, 500, n), labels[500:])
	// A clone of the first half takes the second half's rows without
	// touching the first half, which a solve does not disturb either.
	half := h1.Clone()
	if _, err := h1.Solve(1); err != nil {
		t.Fatal(err)
	}
	if err := half.Add(linalg.Rows32(z, 500, n), labels[500:]); err != nil {
		t.Fatal(err)
	}
	if h1.N() != 500 || half.N() != n {
		t.Fatalf("after cloning and adding: N = %d and %d, want 500 and %d", h1.N(), half.N(), n)
	}
	first := NewRLSAccumulator(d, 3)
	first.Add(linalg.Rows32(z, 0, 500), labels[:500])
	if !slices.Equal(h1.Gram().Data, first.Gram().Data) || !slices.Equal(h1.zty, first.zty) {
		t.Fatal("adding rows to a clone changed the original")
	}
	gc := half.Gram()
	for i := range gc.Data {
		if math.Abs(gc.Data[i]-ga.Data[i]) > 1e-5*float64(n) {
			t.Fatalf("cloned-and-added Gram differs at %d", i)
		}
	}
	for i, v := range half.zty {
		if math.Abs(v-one.zty[i]) > 1e-5*float64(n) {
			t.Fatalf("cloned-and-added ZᵀY differs at %d", i)
		}
	}
	if err := h1.Merge(h2); err != nil {
		t.Fatal(err)
	}
	gm := h1.Gram()
	for i := range gm.Data {
		if math.Abs(gm.Data[i]-ga.Data[i]) > 1e-5*float64(n) {
			t.Fatalf("merged Gram differs at %d", i)
		}
	}
	if h1.N() != n {
		t.Fatalf("merged N = %d", h1.N())
	}
}

func TestBadInputIsAnErrorAndAddsNothing(t *testing.T) {
	acc := NewRLSAccumulator(2, 2)
	z := blas32.General{Rows: 2, Cols: 2, Stride: 2, Data: []float32{1, 2, float32(math.NaN()), 0}}
	if err := acc.Add(z, []int{0, 1}); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 1, feature 0") {
		t.Fatalf("NaN: error %v, want ErrNonFinite naming row 1, feature 0", err)
	}
	inf := blas32.General{Rows: 2, Cols: 2, Stride: 2, Data: []float32{1, float32(math.Inf(-1)), 0, 0}}
	if err := acc.Add(inf, []int{0, 1}); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 0, feature 1") {
		t.Fatalf("-Inf: error %v, want ErrNonFinite naming row 0, feature 1", err)
	}
	huge := blas32.General{Rows: 1, Cols: 2, Stride: 2, Data: []float32{1e30, 1}}
	if err := acc.Add(huge, []int{0}); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "overflows") {
		t.Fatalf("1e30: error %v, want an overflow error", err)
	}
	if err := acc.Add(blas32.General{Rows: 1, Cols: 2, Stride: 2, Data: []float32{1, 1}}, []int{2}); err == nil {
		t.Fatal("label out of range accepted")
	}
	if err := acc.Add(blas32.General{Rows: 1, Cols: 3, Stride: 3, Data: []float32{1, 1, 1}}, []int{0}); err == nil {
		t.Fatal("wrong width accepted")
	}
	if acc.N() != 0 {
		t.Fatalf("failed adds left %d rows", acc.N())
	}
	for i, v := range append(acc.gram, acc.zty...) {
		if v != 0 {
			t.Fatalf("failed adds changed the statistics (entry %d = %v)", i, v)
		}
	}
	if _, err := acc.Solve(1); err == nil {
		t.Fatal("solve with no rows succeeded")
	}
	acc.Add(blas32.General{Rows: 1, Cols: 2, Stride: 2, Data: []float32{1, 1}}, []int{0})
	if _, err := acc.Solve(0); err == nil {
		t.Fatal("singular Gram with λ=0 solved")
	}
	if _, err := acc.Solve(math.NaN()); err == nil {
		t.Fatal("NaN λ accepted")
	}
}

// TestSolveLeavesStatisticsIntact: Solve factors in the Gram's spare lower
// triangle, so after any number of solves (including a failed one) the
// Gram is unchanged bit for bit, and each solve equals a solve of a fresh
// copy of ZᵀZ + λI by linalg.CholeskySolve.
func TestSolveLeavesStatisticsIntact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, d, c = 400, 130, 4 // d spans several 64-wide tiles, not a multiple
	z := gaussianRows(n, d, r)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(c)
	}
	acc := NewRLSAccumulator(d, c)
	if err := acc.Add(z, labels); err != nil {
		t.Fatal(err)
	}
	before := acc.Gram()
	check := func(lambda float64) {
		t.Helper()
		got, err := acc.Solve(lambda)
		if err != nil {
			t.Fatal(err)
		}
		g := acc.Gram()
		for i := range g.Data {
			if g.Data[i] != before.Data[i] {
				t.Fatalf("λ=%g: Gram entry %d changed from %v to %v", lambda, i, before.Data[i], g.Data[i])
			}
		}
		for i := 0; i < d; i++ {
			g.Data[i*d+i] += lambda
		}
		b := blas64.General{Rows: d, Cols: c, Stride: c, Data: append([]float64(nil), acc.zty...)}
		if err := linalg.CholeskySolve(g, b); err != nil {
			t.Fatal(err)
		}
		for i, v := range b.Data {
			if math.Abs(float64(got.W.Data[i])-v) > 1e-5*(1+math.Abs(v)) {
				t.Fatalf("λ=%g: W[%d] = %v, reference %v", lambda, i, got.W.Data[i], v)
			}
		}
	}
	check(1)
	check(1e-3)
	if _, err := acc.Solve(0); err != nil { // n > d: ZᵀZ itself is positive definite
		t.Fatalf("λ=0 on a full-rank Gram: %v", err)
	}
	check(10)

	// A rank-deficient Gram fails to factor with λ=0; the statistics survive.
	small := NewRLSAccumulator(d, c)
	if err := small.Add(linalg.Rows32(z, 0, 10), labels[:10]); err != nil {
		t.Fatal(err)
	}
	g0 := small.Gram()
	if _, err := small.Solve(0); !errors.Is(err, linalg.ErrNotPositiveDefinite) {
		t.Fatalf("rank-10 Gram with λ=0: error %v", err)
	}
	for i, v := range small.Gram().Data {
		if v != g0.Data[i] {
			t.Fatalf("failed Solve changed Gram entry %d", i)
		}
	}
	if _, err := small.Solve(1); err != nil {
		t.Fatalf("solve after a failed one: %v", err)
	}
}

// TestFloat64Gram: CDF-like features, all positive and sharing a large
// common part, give ZᵀZ one eigenvalue near its trace, and float32 products
// round the Gram by more than the small λ such features need. The float64
// accumulator matches the exact Gram to float64 rounding (and float32 does
// not, or the option would be pointless), and solves at a tiny λ.
func TestFloat64Gram(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const n, d = 2000, 120
	z := linalg.NewGeneral32(n, d)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = r.IntN(2)
		row := linalg.Row32(z, i)
		for j := range row {
			row[j] = float32(1 + 0.01*r.NormFloat64())
		}
	}
	acc32 := NewRLSAccumulator(d, 2)
	acc64 := NewRLSAccumulator(d, 2)
	acc64.Float64 = true
	for b := 0; b < n; b += 500 {
		if err := acc32.Add(linalg.Rows32(z, b, b+500), labels[b:b+500]); err != nil {
			t.Fatal(err)
		}
		if err := acc64.Add(linalg.Rows32(z, b, b+500), labels[b:b+500]); err != nil {
			t.Fatal(err)
		}
	}
	g32, g64 := acc32.Gram(), acc64.Gram()
	var err32, err64, top float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var exact float64
			for k := 0; k < n; k++ {
				exact += float64(z.Data[k*d+i]) * float64(z.Data[k*d+j])
			}
			top = math.Max(top, exact)
			err32 = math.Max(err32, math.Abs(g32.Data[i*d+j]-exact))
			err64 = math.Max(err64, math.Abs(g64.Data[i*d+j]-exact))
		}
	}
	t.Logf("largest Gram entry %.4g: float32 products off by %.3g, float64 by %.3g", top, err32, err64)
	if err64 > 1e-12*top {
		t.Errorf("float64 Gram off by %.3g (largest entry %.4g)", err64, top)
	}
	if err32 < 100*err64 {
		t.Errorf("float32 Gram off by only %.3g, float64 by %.3g: the test data does not need float64", err32, err64)
	}
	if _, err := acc64.Solve(1e-9 * acc64.MeanDiagonal()); err != nil {
		t.Errorf("float64 Gram at λ = 1e-9 × mean diagonal: %v", err)
	}
	nan := linalg.NewGeneral32(1, d)
	nan.Data[5] = float32(math.NaN())
	if err := acc64.Add(nan, []int{0}); !errors.Is(err, ErrNonFinite) || acc64.N() != n {
		t.Errorf("NaN row: %v, N = %d", err, acc64.N())
	}
}

// TestAddTargetsRelabels: keeping the Gram and accumulating ZᵀY for new
// labels gives the same solution as accumulating both afresh.
func TestAddTargetsRelabels(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, d, c = 500, 7, 3
	z := gaussianRows(n, d, r)
	first, second := make([]int, n), make([]int, n)
	for i := range first {
		first[i], second[i] = r.IntN(c), r.IntN(c)
	}
	re := NewRLSAccumulator(d, c)
	fresh := NewRLSAccumulator(d, c)
	for i := 0; i < n; i += 128 {
		j := min(i+128, n)
		if err := re.Add(linalg.Rows32(z, i, j), first[i:j]); err != nil {
			t.Fatal(err)
		}
		if err := fresh.Add(linalg.Rows32(z, i, j), second[i:j]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := re.Solve(0.1); err != nil { // a solve in between must not disturb the relabelling
		t.Fatal(err)
	}
	re.ClearTargets()
	for i := 0; i < n; i += 100 {
		j := min(i+100, n)
		if err := re.AddTargets(linalg.Rows32(z, i, j), second[i:j]); err != nil {
			t.Fatal(err)
		}
	}
	a, err := re.Solve(0.1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fresh.Solve(0.1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.W.Data {
		if math.Abs(float64(a.W.Data[i]-b.W.Data[i])) > 1e-5 {
			t.Fatalf("weight %d: relabelled %v, fresh %v", i, a.W.Data[i], b.W.Data[i])
		}
	}
	if err := re.AddTargets(linalg.Rows32(z, 0, 2), []int{0, c}); err == nil {
		t.Error("AddTargets accepted a label outside the classes")
	}
}
