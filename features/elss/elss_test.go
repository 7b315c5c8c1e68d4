package elss_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

func fourierRecipe(in, m int, sigma float64, seed uint64) features.Recipe {
	return features.Recipe{Kind: features.FourierKind, In: in, Seed: seed, Params: features.MarshalParams(features.FourierParams{M: m, Sigma: sigma})}
}

func maxoutRecipe(in, m, q, pool int, seed uint64) features.Recipe {
	return features.Recipe{Kind: maxout.Kind, In: in, Seed: seed, Params: features.MarshalParams(maxout.Params{M: m, Q: q, Pool: pool})}
}

// clustered returns n rows of dimension d around a few centres, so that
// leverage scores differ between candidates.
func clustered(n, d int, seed uint64) blas32.General {
	x := linalg.NewGeneral32(n, d)
	centres := make([]float32, 3*d)
	features.FillNormal32(features.NewRand(seed, 9), centres)
	features.FillNormal32(features.NewRand(seed, 10), x.Data)
	for i := 0; i < n; i++ {
		c := centres[(i%3)*d : (i%3+1)*d]
		row := linalg.Row32(x, i)
		for k := range row {
			row[k] = c[k] + 0.3*row[k]
		}
	}
	return x
}

func apply(t testing.TB, m features.Applier, x blas32.General) blas32.General {
	t.Helper()
	z := linalg.NewGeneral32(x.Rows, m.OutDim())
	m.Apply(z, x)
	return z
}

// The column builders compute exactly the kept columns of the full map,
// including units whose projections straddle the generator's chunks.
func TestColumnsMatchFullMap(t *testing.T) {
	x := clustered(40, 7, 1)
	cols := []int{0, 1, 9362, 9363, 12000, 19999} // 9362·7 < 65536 < 9363·7
	for _, r := range []features.Recipe{
		fourierRecipe(7, 20000, 1.5, 3),
		maxoutRecipe(7, 5000, 3, 0, 4), // unit = 21 values; 65536/21 straddles
		maxoutRecipe(7, 20000, 2, 50, 5),
	} {
		full, err := features.Build(r)
		if err != nil {
			t.Fatal(err)
		}
		cs := cols
		if full.OutDim() == 5000 {
			cs = []int{0, 3120, 3121, 4999} // 3120·21 < 65536 < 3121·21
		}
		sub, ok, err := features.BuildColumns(r, cs)
		if err != nil || !ok {
			t.Fatalf("%s: BuildColumns: ok=%v err=%v", r.Kind, ok, err)
		}
		zf, zs := apply(t, full, x), apply(t, sub, x)
		for i := 0; i < x.Rows; i++ {
			for j, c := range cs {
				a, b := linalg.Row32(zf, i)[c], linalg.Row32(zs, i)[j]
				if math.Abs(float64(a-b)) > 1e-6*(1+math.Abs(float64(a))) {
					t.Fatalf("%s row %d column %d: full %v, columns %v", r.Kind, i, c, a, b)
				}
			}
		}
	}
}

func newScorer(t testing.TB, r features.Recipe, x blas32.General, side elss.Side) *elss.Scorer {
	t.Helper()
	pool, err := features.Build(r)
	if err != nil {
		t.Fatal(err)
	}
	s, err := elss.NewScorer(pool, x, side)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tvFromUniform is the total variation distance of p ∝ q from uniform.
func tvFromUniform(q []float64) float64 {
	var tv float64
	s := sum(q)
	for _, v := range q {
		tv += math.Abs(v/s - 1/float64(len(q)))
	}
	return tv / 2
}

// The n0×n0 and M0×M0 computations give the same scores, whichever is
// larger.
func TestSidesAgree(t *testing.T) {
	for _, c := range []struct{ n0, m0 int }{{60, 150}, {150, 60}} {
		x := clustered(c.n0, 6, 2)
		for _, r := range []features.Recipe{fourierRecipe(6, c.m0, 1, 1), maxoutRecipe(6, c.m0, 4, 0, 1)} {
			a := newScorer(t, r, x, elss.PoolSide)
			b := newScorer(t, r, x, elss.SampleSide)
			for _, lambda := range []float64{1e-4, 1e-2, 1, 100} {
				qa, err := a.Scores(lambda)
				if err != nil {
					t.Fatal(err)
				}
				qb, err := b.Scores(lambda)
				if err != nil {
					t.Fatal(err)
				}
				var sum float64
				for k := range qa {
					sum += qa[k]
					if math.Abs(qa[k]-qb[k]) > 1e-8 {
						t.Fatalf("%s n0=%d M0=%d λ=%g: q[%d] pool side %v, sample side %v", r.Kind, c.n0, c.m0, lambda, k, qa[k], qb[k])
					}
				}
				if sum > float64(min(c.n0, c.m0))+1e-6 {
					t.Fatalf("Σq = %v exceeds the rank bound %d", sum, min(c.n0, c.m0))
				}
			}
		}
	}
}

// λ → 0 makes every score 1 when n0 ≥ M0 (G has full rank). λ → ∞ gives
// q_k ≈ G_kk/λ, so p_k → G_kk/tr G, the candidate's mean square on the
// sample: that is plain sampling only when every candidate has the same
// mean square. For Fourier features it is 1 up to sampling noise (and
// exactly 1 in expectation over the phase, TestFourierLargeLambdaUniformOverPhases);
// maxout units' mean squares grow with their weights' norms, so there the
// limit is importance sampling by mean square, not uniform. In between the
// scores are far from uniform.
func TestScoresAtExtremeLambda(t *testing.T) {
	const n0, m0 = 2000, 100
	// Independent Gaussian inputs: every frequency sees the same spread of
	// phases, so G_kk ≈ 1 for all k.
	x := linalg.NewGeneral32(n0, 5)
	features.FillNormal32(features.NewRand(3, 3), x.Data)
	r := fourierRecipe(5, m0, 1, 7)
	s := newScorer(t, r, x, elss.Auto)
	if s.Side() != elss.PoolSide {
		t.Fatalf("auto side for n0=%d > M0=%d is %v", n0, m0, s.Side())
	}
	q, err := s.Scores(1e-10)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range q {
		if math.Abs(v-1) > 1e-4 {
			t.Fatalf("λ→0: q[%d] = %v, want 1", k, v)
		}
	}
	// λ → ∞: p = diag(G)/tr G for any map; near uniform for Fourier, not
	// for maxout on the same inputs.
	tvLarge := map[string]float64{}
	for _, r := range []features.Recipe{r, maxoutRecipe(5, m0, 4, 0, 7)} {
		s := newScorer(t, r, x, elss.Auto)
		q, err = s.Scores(1e8)
		if err != nil {
			t.Fatal(err)
		}
		pool, _ := features.Build(r)
		z := apply(t, pool, x)
		diag := make([]float64, m0)
		var tr, tq float64
		for i := 0; i < n0; i++ {
			for k, v := range linalg.Row32(z, i) {
				diag[k] += float64(v) * float64(v)
			}
		}
		for k := range q {
			tr += diag[k]
			tq += q[k]
		}
		for k := range q {
			if p, want := q[k]/tq, diag[k]/tr; math.Abs(p-want) > 1e-6*want {
				t.Fatalf("%s λ→∞: p[%d] = %v, want G_kk/tr G = %v", r.Kind, k, p, want)
			}
		}
		tvLarge[r.Kind] = tvFromUniform(q)
	}
	t.Logf("λ→∞, Gaussian inputs: total variation of p from uniform %v", tvLarge)
	if tvLarge[features.FourierKind] > 0.02 || tvLarge[maxout.Kind] < 5*tvLarge[features.FourierKind] {
		t.Fatalf("λ→∞: p from uniform %v, want Fourier < 0.02 and maxout (unequal mean squares) far larger", tvLarge)
	}
	// n0 < M0: G has rank n0, so λ → 0 gives the leverage of each column of
	// Φ0 in its n0-dimensional row space (Σq = n0, each q_k ≤ 1), not 1.
	small := newScorer(t, fourierRecipe(5, 4*50, 1, 7), linalg.Rows32(x, 0, 50), elss.Auto)
	q, err = small.Scores(1e-10)
	if err != nil {
		t.Fatal(err)
	}
	if tq := sum(q); math.Abs(tq-50) > 1e-3 {
		t.Fatalf("λ→0 with n0=50 < M0=200: Σq = %v, want n0 = 50", tq)
	}
	for k, v := range q {
		if v > 1+1e-6 {
			t.Fatalf("λ→0 with n0 < M0: q[%d] = %v > 1", k, v)
		}
	}
	// On clustered inputs the pool's features are far from independent, and
	// a moderate λ sets the candidates apart; both extremes still do not.
	xc := clustered(n0, 5, 3)
	sc := newScorer(t, r, xc, elss.Auto)
	tv := map[float64]float64{}
	for _, lambda := range []float64{1e-12, 1e-1, 1e8} {
		qc, err := sc.Scores(lambda)
		if err != nil {
			t.Fatal(err)
		}
		tv[lambda] = tvFromUniform(qc)
	}
	t.Logf("clustered inputs, total variation of p from uniform by λ: %v", tv)
	// At λ→∞ the clustered inputs' p ∝ G_kk is 0.07 from uniform (low
	// frequencies see almost one phase per cluster), at λ = 0.1 it is 0.17.
	if tv[1e-12] > 0.01 || tv[1e-1] < 1.5*tv[1e8] {
		t.Fatalf("clustered inputs: p from uniform %v, want < 0.01 at λ→0 and the largest at λ=0.1", tv)
	}
}

// phasedFourier is √(2/M0)·cos(<w_k,x> + b_k) with frequencies w held fixed
// and phases b given: it lets a test redraw the phases alone.
type phasedFourier struct {
	w  blas32.General // M0 × in
	b  []float64
	in int
}

func (f *phasedFourier) InDim() int  { return f.in }
func (f *phasedFourier) OutDim() int { return len(f.b) }
func (f *phasedFourier) Apply(dst, x blas32.General) {
	scale := math.Sqrt(2 / float64(len(f.b)))
	for i := 0; i < x.Rows; i++ {
		xi, out := linalg.Row32(x, i), linalg.Row32(dst, i)
		for k := range f.b {
			dot := f.b[k]
			for j, v := range linalg.Row32(f.w, k) {
				dot += float64(v) * float64(xi[j])
			}
			out[k] = float32(scale * math.Cos(dot))
		}
	}
}

// For Fourier features E_b[2cos²(<w,x>+b)] = 1 for every w and x, so with
// the frequencies held fixed every candidate's mean square G_kk is 1/M0 in
// expectation over its phase, whatever the data: the λ → ∞ distribution
// p_k = G_kk/tr G is uniform in expectation, while one draw of the phases on
// clustered inputs with low frequencies is far from it.
func TestFourierLargeLambdaUniformOverPhases(t *testing.T) {
	const d, n0, m0, draws = 5, 400, 60, 400
	x := clustered(n0, d, 12)
	f := &phasedFourier{w: linalg.NewGeneral32(m0, d), b: make([]float64, m0), in: d}
	features.FillNormal32(features.NewRand(5, 0), f.w.Data)
	for i := range f.w.Data {
		f.w.Data[i] /= 3 // σ = 3: low frequencies, few distinct phases per cluster
	}
	r := features.NewRand(5, 1)
	mean, sq := make([]float64, m0), make([]float64, m0)
	var tvOne float64
	for draw := 0; draw < draws; draw++ {
		for k := range f.b {
			f.b[k] = 2 * math.Pi * features.Uniform(r)
		}
		s, err := elss.NewScorer(f, x, elss.Auto)
		if err != nil {
			t.Fatal(err)
		}
		q, err := s.Scores(1e8)
		if err != nil {
			t.Fatal(err)
		}
		tq := sum(q)
		for k, v := range q {
			mp := float64(m0) * v / tq // M0·p_k: 1 when uniform
			mean[k] += mp / draws
			sq[k] += mp * mp / draws
		}
		if draw == 0 {
			tvOne = tvFromUniform(q)
		}
	}
	var tvMean float64
	for k := range mean {
		se := math.Sqrt((sq[k] - mean[k]*mean[k]) / draws)
		if math.Abs(mean[k]-1) > 4*se+1e-3 {
			t.Errorf("candidate %d: M0·p averaged over %d phase draws is %.4f ± %.4f, want 1", k, draws, mean[k], se)
		}
		tvMean += math.Abs(mean[k]-1) / float64(m0) / 2
	}
	t.Logf("λ→∞: one phase draw %.3f from uniform in total variation, the mean over %d draws %.4f", tvOne, draws, tvMean)
	if tvOne < 0.05 || tvMean > tvOne/4 {
		t.Fatalf("one draw %.3f from uniform (want ≥ 0.05: else the test has no power), mean over draws %.4f", tvOne, tvMean)
	}
}

func kernel(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Algorithm 1's reweighted features estimate the pool's kernel without
// bias: averaged over many selection seeds, the estimate matches the pool's
// kernel within Monte-Carlo error, while the same draws without the
// importance weights miss it (so the test can fail).
func TestAlgorithm1UnbiasedForPoolKernel(t *testing.T) {
	const n0, m0, m, seeds = 300, 200, 20, 3000
	x := clustered(n0, 5, 4)
	r := fourierRecipe(5, m0, 1, 11)
	s := newScorer(t, r, x, elss.Auto)
	q, err := s.Scores(1e-2)
	if err != nil {
		t.Fatal(err)
	}
	pool, _ := features.Build(r)
	pairs := linalg.Rows32(x, 0, 6) // rows 0..5: pairs (0,1), (2,3), (4,5); rows 0,3 share a cluster
	z := apply(t, pool, pairs)
	for p := 0; p < 3; p++ {
		a, b := linalg.Row32(z, 2*p), linalg.Row32(z, 2*p+1)
		exact := kernel(a, b)
		var sw, sw2, su float64
		for seed := uint64(0); seed < seeds; seed++ {
			kept, w, err := elss.Choose(q, m, elss.Sample, seed)
			if err != nil {
				t.Fatal(err)
			}
			var kw, ku float64
			for j, c := range kept {
				kw += float64(w[j]*w[j]) * float64(a[c]) * float64(b[c])
				// Unweighted: the plain map's √(M0/m) times √count.
				cnt := float64(w[j]*w[j]) * float64(m) * q[c] / sum(q)
				ku += cnt * float64(m0) / float64(m) * float64(a[c]) * float64(b[c])
			}
			sw += kw
			sw2 += kw * kw
			su += ku
		}
		mean := sw / seeds
		se := math.Sqrt((sw2/seeds - mean*mean) / seeds)
		if math.Abs(mean-exact) > 4*se {
			t.Errorf("pair %d: mean estimate %.5f, pool kernel %.5f (±%.5f)", p, mean, exact, se)
		}
		if p == 0 && math.Abs(su/seeds-exact) < 4*se {
			t.Errorf("pair %d: unweighted draws also match (%.5f vs %.5f ±%.5f): the test has no power", p, su/seeds, exact, se)
		}
	}
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// Over pools and selections together, Algorithm 1 estimates the Gaussian
// kernel exp(−‖x−y‖²/2σ²) itself.
func TestAlgorithm1UnbiasedForGaussianKernel(t *testing.T) {
	const d, n0, seeds, sigma = 4, 200, 600, 1.0
	x := clustered(n0, d, 5)
	for i := range x.Data {
		x.Data[i] *= 0.4
	}
	pairs := linalg.Rows32(x, 0, 4) // (0,1), (2,3)
	base := fourierRecipe(d, 10, sigma, 0)
	sums := make([]float64, 2)
	sq := make([]float64, 2)
	for seed := uint64(1); seed <= seeds; seed++ {
		base.Seed = seed
		mp, _, err := elss.Select(base, x, elss.Config{Algorithm: elss.Sample, Pool: 10, Lambda: 1e-2}, seed)
		if err != nil {
			t.Fatal(err)
		}
		z := apply(t, mp, pairs)
		for p := 0; p < 2; p++ {
			k := kernel(linalg.Row32(z, 2*p), linalg.Row32(z, 2*p+1))
			sums[p] += k
			sq[p] += k * k
		}
	}
	for p := 0; p < 2; p++ {
		a, b := linalg.Row32(pairs, 2*p), linalg.Row32(pairs, 2*p+1)
		var dist float64
		for i := range a {
			dist += float64(a[i]-b[i]) * float64(a[i]-b[i])
		}
		exact := math.Exp(-dist / (2 * sigma * sigma))
		mean := sums[p] / seeds
		se := math.Sqrt((sq[p]/seeds - mean*mean) / seeds)
		if math.Abs(mean-exact) > 4*se {
			t.Errorf("pair %d: mean estimate %.4f, Gaussian kernel %.4f (±%.4f)", p, mean, exact, se)
		}
	}
}

func TestSelectionDeterministicAndTopIsTop(t *testing.T) {
	x := clustered(200, 6, 6)
	base := maxoutRecipe(6, 30, 4, 0, 3)
	for _, alg := range []elss.Algorithm{elss.Sample, elss.Top} {
		cfg := elss.Config{Algorithm: alg, Pool: 5, Lambda: 1e-2}
		a, _, err := elss.Select(base, x, cfg, 42)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := elss.Select(base, x, cfg, 42)
		if err != nil {
			t.Fatal(err)
		}
		if string(a.Recipe().Params) != string(b.Recipe().Params) {
			t.Fatalf("algorithm %d: two selections with seed 42 differ", alg)
		}
		c, _, _ := elss.Select(base, x, cfg, 43)
		same := string(a.Recipe().Params) == string(c.Recipe().Params)
		if alg == elss.Sample && same {
			t.Fatal("algorithm 1: seeds 42 and 43 drew the same features")
		}
		if alg == elss.Top && !same {
			t.Fatal("algorithm 2 depends on the selection seed")
		}
	}
	// Top keeps exactly the largest scores.
	q := []float64{0.1, 0.9, 0.5, 0.9, 0.2}
	kept, w, err := elss.Choose(q, 3, elss.Top, 1)
	if err != nil || len(kept) != 3 || kept[0] != 1 || kept[1] != 2 || kept[2] != 3 {
		t.Fatalf("top 3 of %v: %v (%v)", q, kept, err)
	}
	if math.Abs(float64(w[0])-math.Sqrt(5.0/3)) > 1e-6 {
		t.Fatalf("top weight %v, want √(M0/M)", w[0])
	}
}

// A selected map rebuilds from its recipe (through the registry and JSON)
// to the same features.
func TestRecipeRoundTrip(t *testing.T) {
	x := clustered(100, 8, 7)
	for _, base := range []features.Recipe{fourierRecipe(8, 40, 1, 2), maxoutRecipe(8, 40, 4, 0, 2)} {
		mp, rep, err := elss.Select(base, x, elss.Config{Algorithm: elss.Sample, Pool: 10, Lambda: 1e-3}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if rep.M0 != 400 || rep.N0 != 100 || rep.Side != elss.SampleSide || rep.DistinctKept != mp.OutDim() || mp.OutDim() > 40 {
			t.Fatalf("report %+v, out %d", rep, mp.OutDim())
		}
		js, err := json.Marshal(mp.Recipe())
		if err != nil {
			t.Fatal(err)
		}
		var r features.Recipe
		if err := json.Unmarshal(js, &r); err != nil {
			t.Fatal(err)
		}
		rebuilt, err := features.Build(r)
		if err != nil {
			t.Fatal(err)
		}
		za, zb := apply(t, mp, x), apply(t, rebuilt, x)
		for i := range za.Data {
			if za.Data[i] != zb.Data[i] {
				t.Fatalf("%s: rebuilt map differs at %d: %v vs %v", base.Kind, i, za.Data[i], zb.Data[i])
			}
		}
	}
}

// A base kind without a column builder is applied whole, in row chunks,
// and gives the same features as the column path.
func init() {
	// Fourier features without a column builder: the fallback path.
	features.Register("test-fourier-whole", func(r features.Recipe) (features.Map, error) {
		var p features.FourierParams
		if err := features.UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		return features.NewFourier(r.In, p, r.Seed)
	})
}

func TestFallbackMatchesColumns(t *testing.T) {
	x := clustered(300, 3, 8)
	p := elss.Params{Base: fourierRecipe(3, 40000, 1, 3), Kept: []int{5, 700, 39999}, Weights: []float32{1, 2, 3}, Algorithm: elss.Top, M: 3}
	a, err := elss.New(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Base.Kind = "test-fourier-whole"
	b, err := elss.New(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	za, zb := apply(t, a, x), apply(t, b, x)
	for i := range za.Data {
		if math.Abs(float64(za.Data[i]-zb.Data[i])) > 1e-5 {
			t.Fatalf("fallback differs at %d: %v vs %v", i, zb.Data[i], za.Data[i])
		}
	}
}

func TestCorruptParamsAreErrors(t *testing.T) {
	good := elss.Params{Base: fourierRecipe(3, 10, 1, 3), Kept: []int{1, 4}, Weights: []float32{1, 1}, Algorithm: elss.Top, M: 2}
	mk := func(edit func(p *elss.Params)) features.Recipe {
		p := good
		p.Kept = append([]int(nil), good.Kept...)
		p.Weights = append([]float32(nil), good.Weights...)
		edit(&p)
		return features.Recipe{Kind: elss.Kind, In: 3, Seed: 1, Params: features.MarshalParams(p)}
	}
	if _, err := features.Build(mk(func(*elss.Params) {})); err != nil {
		t.Fatalf("good recipe refused: %v", err)
	}
	cases := map[string]features.Recipe{
		"out of range":    mk(func(p *elss.Params) { p.Kept[1] = 10 }),
		"negative":        mk(func(p *elss.Params) { p.Kept[0] = -1 }),
		"not ascending":   mk(func(p *elss.Params) { p.Kept = []int{4, 1} }),
		"repeated":        mk(func(p *elss.Params) { p.Kept = []int{4, 4} }),
		"weights":         mk(func(p *elss.Params) { p.Weights = p.Weights[:1] }),
		"zero weight":     mk(func(p *elss.Params) { p.Weights[0] = 0 }),
		"empty":           mk(func(p *elss.Params) { p.Kept, p.Weights = nil, nil }),
		"algorithm":       mk(func(p *elss.Params) { p.Algorithm = 3 }),
		"unknown base":    mk(func(p *elss.Params) { p.Base.Kind = "nope" }),
		"bad base params": mk(func(p *elss.Params) { p.Base.Params = []byte(`{"m":10,"sigma":-1}`) }),
		"nested":          mk(func(p *elss.Params) { p.Base.Kind = elss.Kind }),
		"unknown field":   {Kind: elss.Kind, In: 3, Params: []byte(`{"base":{"kind":"fourier","in":3},"kept":[1],"weights":[1],"algorithm":2,"extra":1}`)},
		"input mismatch":  {Kind: elss.Kind, In: 4, Params: mk(func(*elss.Params) {}).Params},
		"not json":        {Kind: elss.Kind, In: 3, Params: []byte(`{"kept":`)},
	}
	for name, r := range cases {
		if _, err := features.Build(r); err == nil {
			t.Errorf("%s: corrupted recipe accepted", name)
		} else if !strings.Contains(err.Error(), "elss") && !strings.Contains(err.Error(), "features") {
			t.Errorf("%s: error %q does not say where", name, err)
		}
	}
}

func FuzzBuildRecipe(f *testing.F) {
	f.Add([]byte(`{"base":{"kind":"fourier","in":3,"seed":1,"params":{"m":10,"sigma":1}},"kept":[1,4],"weights":[1,2],"algorithm":2}`))
	f.Add([]byte(`{"base":{"kind":"maxout","in":3,"params":{"m":5,"q":2}},"kept":[0],"weights":[1e30],"algorithm":1}`))
	f.Add([]byte(`{"base":{"kind":"elss","in":3},"kept":[],"weights":[]}`))
	f.Fuzz(func(t *testing.T, params []byte) {
		if len(params) > 4096 {
			return
		}
		m, err := features.Build(features.Recipe{Kind: elss.Kind, In: 3, Params: params})
		if err != nil {
			return
		}
		if m.OutDim() > 1<<16 {
			return
		}
		x := linalg.NewGeneral32(2, 3)
		x.Data[0], x.Data[4] = 1, -1
		m.Apply(linalg.NewGeneral32(2, m.OutDim()), x)
	})
}

// BenchmarkApply compares a selected map of 500 of 5000 Fourier features on
// MNIST-sized inputs computed through the column builder (only the kept
// frequencies) with the fallback that computes the whole pool and picks.
func BenchmarkApply(b *testing.B) {
	const in, m0, rows = 784, 5000, 1024
	kept := make([]int, 500)
	w := make([]float32, len(kept))
	for i := range kept {
		kept[i], w[i] = 10*i+3, 1
	}
	x := clustered(rows, in, 1)
	for _, kind := range []string{features.FourierKind, "test-fourier-whole"} {
		p := elss.Params{Base: fourierRecipe(in, m0, 1, 1), Kept: kept, Weights: w, Algorithm: elss.Top, M: len(kept)}
		p.Base.Kind = kind
		mp, err := elss.New(p, 1)
		if err != nil {
			b.Fatal(err)
		}
		z := linalg.NewGeneral32(rows, len(kept))
		b.Run(kind, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				mp.Apply(z, x)
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// An invariant base map is selected like any other (its pool is the map
// with Pool times the templates; it has no column builder, so the selected
// map applies the pool and picks), and each kept column is still a pooled
// feature: with the whole permutation group the selected features of every
// point of an orbit are bit-identical, and a point of another orbit maps
// elsewhere.
func TestInvariantBaseStaysInvariant(t *testing.T) {
	const positions, symbols, n0 = 5, 8, 300
	g, err := transforms.NewPermutationGroup(positions, symbols)
	if err != nil {
		t.Fatal(err)
	}
	d := positions * symbols
	base := features.Recipe{Kind: invariant.Kind, In: d, Seed: 4, Params: features.MarshalParams(invariant.Params{
		M: 6, N: 3, Group: g.Spec(), GridBits: 12, S: math.Sqrt(positions) * 1.5})}
	r := rand.New(rand.NewPCG(2, 3))
	randomSeq := func() []int {
		seq := make([]int, positions)
		for i := range seq {
			seq[i] = r.IntN(symbols)
		}
		return seq
	}
	oneHot := func(seq []int) []float32 {
		v := make([]float32, d)
		for i, c := range seq {
			v[i*symbols+c] = 1
		}
		return v
	}
	x0 := linalg.NewGeneral32(n0, d)
	for i := 0; i < n0; i++ {
		copy(linalg.Row32(x0, i), oneHot(randomSeq()))
	}
	all, _ := g.Elements()
	for _, alg := range []elss.Algorithm{elss.Sample, elss.Top} {
		mp, rep, err := elss.Select(base, x0, elss.Config{Algorithm: alg, Pool: 4, Lambda: 1e-2}, 9)
		if err != nil {
			t.Fatalf("algorithm %d: %v", alg, err)
		}
		if rep.M0 != 4*6*7 || mp.OutDim() > 6*7 || (alg == elss.Top && mp.OutDim() != 6*7) {
			t.Fatalf("algorithm %d: pool %d, kept %d", alg, rep.M0, mp.OutDim())
		}
		rebuilt, err := features.Build(mp.Recipe())
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 5; trial++ {
			seq := randomSeq()
			x := oneHot(seq)
			orbit := linalg.NewGeneral32(len(all), d)
			for i, e := range all {
				g.Apply(linalg.Row32(orbit, i), x, e)
			}
			z := apply(t, rebuilt, orbit)
			first := linalg.Row32(z, 0)
			for i := range all {
				for j, v := range linalg.Row32(z, i) {
					if v != first[j] {
						t.Fatalf("algorithm %d: selected feature %d of %v·x is %v, of x %v", alg, j, all[i], v, first[j])
					}
				}
			}
			other := append([]int(nil), seq...)
			other[0] = (other[0] + 1) % symbols
			xo := linalg.NewGeneral32(1, d)
			copy(xo.Data, oneHot(other))
			zo := apply(t, rebuilt, xo)
			var dist float64
			for j, v := range linalg.Row32(zo, 0) {
				dist += float64(v-first[j]) * float64(v-first[j])
			}
			if dist < 1e-8 {
				t.Fatalf("algorithm %d: sequences %v and %v (different orbits) have the same selected features", alg, seq, other)
			}
		}
	}
}
