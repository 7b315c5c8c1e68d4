package invariant

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// oneHot encodes a sequence over an alphabet of size a as concatenated
// one-hot blocks.
func oneHot(seq []int, a int) []float32 {
	v := make([]float32, len(seq)*a)
	for i, c := range seq {
		v[i*a+c] = 1
	}
	return v
}

func rows(vs ...[]float32) blas32.General {
	x := linalg.NewGeneral32(len(vs), len(vs[0]))
	for i, v := range vs {
		copy(linalg.Row32(x, i), v)
	}
	return x
}

func apply(m features.Map, x blas32.General) blas32.General {
	z := linalg.NewGeneral32(x.Rows, m.OutDim())
	m.Apply(z, x)
	return z
}

func dist(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

func permGroup(t *testing.T, positions, block int) *transforms.PermutationGroup {
	g, err := transforms.NewPermutationGroup(positions, block)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestWholeFiniteGroupIsExactlyInvariant: with all 120 permutations of 5
// positions, Φ(g·x) = Φ(x) bit for bit for every g and every sequence.
func TestWholeFiniteGroupIsExactlyInvariant(t *testing.T) {
	g := permGroup(t, 5, 8)
	// One-hot inputs have norm √5, so s = √5·(1+ε).
	for _, p := range []Params{
		{M: 25, N: 10, Group: g.Spec(), GridBits: 12, S: math.Sqrt(5) * 1.5},
		{M: 25, N: 10, Group: g.Spec(), GridBits: 12, Lo: -0.5, Hi: 1.2}, // a threshold range instead of [−s, s]
	} {
		m, err := New(40, p, 3)
		if err != nil {
			t.Fatal(err)
		}
		checkOrbitInvariance(t, g, m)
	}
}

func checkOrbitInvariance(t *testing.T, g *transforms.PermutationGroup, m *Map) {
	all, _ := g.Elements()
	r := rand.New(rand.NewPCG(1, 2))
	moved := make([]float32, 40)
	for trial := 0; trial < 20; trial++ {
		seq := make([]int, 5)
		for i := range seq {
			seq[i] = r.IntN(8)
		}
		x := oneHot(seq, 8)
		orbit := make([][]float32, len(all))
		for i, e := range all {
			g.Apply(moved, x, e)
			orbit[i] = append([]float32(nil), moved...)
		}
		z := apply(m, rows(orbit...))
		base := linalg.Row32(z, 0)
		for i := range all {
			if !reflect.DeepEqual(linalg.Row32(z, i), base) {
				t.Fatalf("Φ(%v·x) ≠ Φ(x) for x = %v", all[i], seq)
			}
		}
		// A sequence outside the orbit (one symbol changed) must map
		// elsewhere, or the check above would prove nothing.
		other := append([]int(nil), seq...)
		other[0] = (other[0] + 1) % 8
		if d := dist(linalg.Row32(apply(m, rows(oneHot(other, 8))), 0), base); d < 1e-3 {
			t.Fatalf("sequences %v and %v (different orbits) have features %.2g apart", seq, other, d)
		}
	}
}

// TestPoolingMatchesDefinition checks the histogram counting against the
// definition: feature (j, k) = √(Δ/m)·(1/|G|)·#{i : ⟨g_i·t_j, x⟩ ≤ τ_jk},
// with τ_jk = s·k/n and Δ = s/n on the symmetric grid, τ_jk = lo + k·Δ and
// Δ = (hi−lo)/(2n) on a threshold range, and τ_jk = lo_j + k·Δ_j with Δ the
// mean of the Δ_j = (hi_j−lo_j)/(2n) on per-template ranges.
func TestPoolingMatchesDefinition(t *testing.T) {
	g := permGroup(t, 4, 3)
	for _, c := range []struct {
		p      Params
		ranged bool // per-template ranges from the inner 80 % of x's projections
	}{
		{p: Params{M: 7, N: 5, G: 0, Group: g.Spec()}},
		{p: Params{M: 3, N: 1, G: 9, Group: g.Spec(), Templates: Sphere, S: 0.3}}, // many projections beyond ±s
		{p: Params{M: 4, N: 6, G: 0, Group: g.Spec(), Lo: -0.1, Hi: 0.35}},        // an off-centre range, projections on both sides
		{p: Params{M: 5, N: 3, G: 0, Group: g.Spec()}, ranged: true},
	} {
		p := c.p
		m, err := New(12, p, 11)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		x := linalg.NewGeneral32(50, 12)
		for i := range x.Data {
			x.Data[i] = float32(r.NormFloat64() / 3)
		}
		if c.ranged {
			if m, err = m.WithRanges(x, x.Rows, 0.1, 0.9); err != nil {
				t.Fatal(err)
			}
			p = m.Params()
		}
		z := apply(m, x)
		_, elems := m.Group()
		ng, nb := len(elems), 2*p.N+1
		lo, delta := -m.S(), m.S()/float64(p.N)
		if p.Hi != 0 {
			lo, delta = p.Lo, (p.Hi-p.Lo)/float64(2*p.N)
		}
		los, deltas := make([]float64, p.M), make([]float64, p.M)
		for j := range los {
			los[j], deltas[j] = lo, delta
		}
		if c.ranged {
			delta = 0
			for j := range los {
				los[j], deltas[j] = p.Ranges[2*j], (p.Ranges[2*j+1]-p.Ranges[2*j])/float64(2*p.N)
				delta += deltas[j] / float64(p.M)
			}
			if deltas[0] == deltas[1] {
				t.Fatalf("ranges %v: templates 0 and 1 share a range, so per-template ranges are not exercised", p.Ranges)
			}
		}
		for j := range los {
			thr := m.Thresholds(j)
			if len(thr) != nb || math.Abs(thr[0]-los[j]) > 1e-12 || math.Abs(thr[nb-1]-(los[j]+float64(2*p.N)*deltas[j])) > 1e-12 {
				t.Fatalf("params %+v: template %d thresholds %v", p, j, thr)
			}
		}
		w := math.Sqrt(delta/float64(p.M)) / float64(ng)
		var below, above int // projections outside the thresholds, so both ends are exercised
		for row := 0; row < x.Rows; row++ {
			xr := linalg.Row32(x, row)
			for j := 0; j < p.M; j++ {
				for k := -p.N; k <= p.N; k++ {
					tau := float32(los[j] + float64(k+p.N)*deltas[j])
					count := 0
					for i := 0; i < ng; i++ {
						var v float32
						for c, tv := range linalg.Row32(m.Transformed(), j*ng+i) {
							v += tv * xr[c]
						}
						if v <= tau {
							count++
						}
						if k == -p.N && v <= tau {
							below++
						}
						if k == p.N && v > tau {
							above++
						}
					}
					got := float64(linalg.Row32(z, row)[j*nb+k+p.N])
					if math.Abs(got-w*float64(count)) > 1e-6 && math.Abs(got-w*float64(count)) > w*1.01 {
						t.Fatalf("row %d template %d k=%d: feature %v, definition %v", row, j, k, got, w*float64(count))
					}
				}
			}
		}
		if (p.Hi != 0 || c.ranged) && (below == 0 || above == 0) {
			t.Errorf("range [%v, %v] (per template: %v): %d projections below it, %d above: the ends were not exercised", p.Lo, p.Hi, c.ranged, below, above)
		}
	}
}

// TestKernelTracksOrbitDistance checks Theorem 1 on random unit vectors in
// d = 40 under all permutations of 5 blocks of 8: the empirical kernel
// ⟨Φ(x), Φ(z)⟩ equals s − d_G(x, z) + s/(2n) (the last term is the mean
// discretisation bias of 2n+1 thresholds) within 0.004, while d_G itself
// varies over the pairs by more than ten times that.
func TestKernelTracksOrbitDistance(t *testing.T) {
	g := permGroup(t, 5, 8)
	const n = 40
	m, err := New(40, Params{M: 2000, N: n, Group: g.Spec(), Epsilon: 0.5}, 7)
	if err != nil {
		t.Fatal(err)
	}
	s := m.S()
	r := rand.New(rand.NewPCG(5, 6))
	unit := func() []float32 {
		v := make([]float32, 40)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		normalize(v)
		return v
	}
	var pts [][]float32
	// A vector with five equal blocks is fixed by every permutation, so
	// d_G(x, x) = 0; points blended with noise move away from it.
	x := unit()
	for b := 1; b < 5; b++ {
		copy(x[8*b:8*b+8], x[:8])
	}
	normalize(x)
	pts = append(pts, x)
	for _, a := range []float64{0.1, 0.3, 1, 3} {
		w := unit()
		z := make([]float32, 40)
		for i := range z {
			z[i] = x[i] + float32(a)*w[i]
		}
		normalize(z)
		pts = append(pts, z)
	}
	moved := make([]float32, 40)
	g.Apply(moved, x, transforms.Perm{2, 0, 4, 1, 3})
	pts = append(pts, moved, unit())
	phi := apply(m, rows(pts...))
	dmin, dmax, worst := math.Inf(1), math.Inf(-1), 0.0
	for i := range pts {
		for j := i; j < len(pts); j++ {
			dg, err := OrbitDistance(g, pts[i], pts[j])
			if err != nil {
				t.Fatal(err)
			}
			dmin, dmax = math.Min(dmin, dg), math.Max(dmax, dg)
			var k float64
			for c, v := range linalg.Row32(phi, i) {
				k += float64(v) * float64(linalg.Row32(phi, j)[c])
			}
			want := s - dg + s/(2*n)
			worst = math.Max(worst, math.Abs(k-want))
			if math.Abs(k-want) > 0.004 {
				t.Errorf("pair (%d,%d): ⟨Φx,Φz⟩ = %.4f, s − d_G + s/2n = %.4f (d_G = %.4f)", i, j, k, want, dg)
			}
		}
	}
	t.Logf("d_G in [%.4f, %.4f]; largest kernel error %.4f", dmin, dmax, worst)
	if dmax-dmin < 0.05 {
		t.Fatalf("d_G spans only [%.3f, %.3f]: the check cannot tell kernels apart", dmin, dmax)
	}
}

// TestRecipeRebuilds: a map rebuilt from its recipe, data templates
// included, computes the same features.
func TestRecipeRebuilds(t *testing.T) {
	g := permGroup(t, 3, 4)
	data := uniformRows(30, 12, 8)
	a, err := NewFromData(data, Params{M: 5, N: 4, G: 4, Group: g.Spec()}, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(12, Params{M: 5, N: 4, G: 0, Group: g.Spec(), Templates: Sphere}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Map{a, b} {
		rec, err := features.Build(m.Recipe())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(apply(rec, data).Data, apply(m, data).Data) {
			t.Errorf("%s templates: rebuilt map computes different features", m.Params().Templates)
		}
	}
	// Data templates are unit-length copies of the chosen rows.
	src := linalg.Row32(data, a.Params().Sources[0])
	tm := linalg.Row32(a.Transformed(), 0) // template 0 under the first sampled element
	var n2 float64
	for _, v := range tm {
		n2 += float64(v) * float64(v)
	}
	if math.Abs(n2-1) > 1e-5 || len(a.Params().Sources) != 5 || len(src) != 12 {
		t.Errorf("data template norm² %v", n2)
	}
	bad := []Params{
		{M: 0, N: 4, Group: g.Spec()},
		{M: 2, N: 4, Group: g.Spec(), Templates: "nope"},
		{M: 2, N: 4, Group: g.Spec(), Templates: Data},
		{M: 2, N: 4, Group: g.Spec(), Lo: 0.5, Hi: 0.5},
		{M: 2, N: 4, Group: g.Spec(), Lo: 0.5, Hi: -0.5},
		{M: 2, N: 4, Group: g.Spec(), Lo: math.NaN(), Hi: 1},
		{M: 2, N: 4, Group: g.Spec(), Lo: -1, Hi: math.Inf(1)},
		{M: 2, N: 4, Group: g.Spec(), Lo: -1, Hi: 1, S: 2},
		{M: 2, N: 4, Group: transforms.Spec{Kind: "rotation", Params: []byte(`{"width":3,"height":4,"max_degrees":20}`)}},
	}
	for _, p := range bad {
		if _, err := New(12, p, 1); err == nil {
			t.Errorf("params %+v accepted", p)
		}
	}
}

// TestWithRanges checks per-template ranges against NumPy's quantile rule
// on projections computed here in float64, that a subsample is drawn by the
// seed alone, that the ranges travel in the recipe, that a finite group
// used whole still gives exactly invariant features, and that bad ranges
// are refused.
func TestWithRanges(t *testing.T) {
	g := permGroup(t, 5, 8)
	all, _ := g.Elements()
	m, err := New(40, Params{M: 6, N: 4, G: 0, Group: g.Spec(), Templates: Sphere, GridBits: 12}, 7)
	if err != nil {
		t.Fatal(err)
	}
	x := uniformRows(40, 40, 3)
	rm, err := m.WithRanges(x, x.Rows, 0.01, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	ng := len(all)
	for j := 0; j < 6; j++ {
		var v []float64
		for row := 0; row < x.Rows; row++ {
			for i := 0; i < ng; i++ {
				var d float64
				for c, tv := range linalg.Row32(m.Transformed(), j*ng+i) {
					d += float64(tv) * float64(linalg.Row32(x, row)[c])
				}
				v = append(v, d)
			}
		}
		slices.Sort(v)
		for end, q := range []float64{0.01, 0.99} {
			h := q * float64(len(v)-1)
			i := int(h)
			want := v[i] + (h-float64(i))*(v[i+1]-v[i])
			if got := rm.Params().Ranges[2*j+end]; math.Abs(got-want) > 1e-5 {
				t.Errorf("template %d: quantile %v is %v, want %v", j, q, got, want)
			}
		}
	}
	if m.Params().Ranges != nil {
		t.Error("WithRanges changed the map it was called on")
	}
	// A subsample is the seed's: the same twice, and not all of x.
	s1, err := m.WithRanges(x, 10, 0.01, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := m.WithRanges(x, 10, 0.01, 0.99)
	if !reflect.DeepEqual(s1.Params().Ranges, s2.Params().Ranges) || reflect.DeepEqual(s1.Params().Ranges, rm.Params().Ranges) {
		t.Errorf("ranges from 10 rows: %v and %v, from all %v", s1.Params().Ranges, s2.Params().Ranges, rm.Params().Ranges)
	}
	rec, err := features.Build(rm.Recipe())
	if err != nil {
		t.Fatal(err)
	}
	z := apply(rm, x)
	if !reflect.DeepEqual(apply(rec, x).Data, z.Data) {
		t.Error("the rebuilt map computes different features")
	}
	if reflect.DeepEqual(apply(m, x).Data, z.Data) {
		t.Error("per-template ranges left the features as they were")
	}
	// One-hot sequences under every permutation: Φ(g·x) = Φ(x) bit for bit.
	seq := []int{1, 4, 4, 0, 7}
	base := linalg.Row32(apply(rm, rows(oneHot(seq, 8))), 0)
	if distinct := len(slices.Compact(slices.Sorted(slices.Values(base)))); distinct < 4 {
		t.Fatalf("the sequence's features take %d values: its projections miss the ranges, so invariance would be trivial", distinct)
	}
	for _, e := range all {
		moved := linalg.NewGeneral32(1, 40)
		g.Apply(linalg.Row32(moved, 0), linalg.Row32(rows(oneHot(seq, 8)), 0), e)
		if !reflect.DeepEqual(linalg.Row32(apply(rm, moved), 0), base) {
			t.Fatalf("element %v: features differ from the sequence's", e)
		}
	}
	if _, err := m.WithRanges(x, x.Rows, 0.5, 0.5); err == nil {
		t.Error("equal quantiles accepted")
	}
	if _, err := m.WithRanges(linalg.NewGeneral32(3, 40), 3, 0.1, 0.9); err == nil || !strings.Contains(err.Error(), "no spread") {
		t.Errorf("rows projecting without spread: %v", err)
	}
	nan := uniformRows(40, 40, 3)
	for i := range nan.Data[:40] {
		nan.Data[i] = float32(math.NaN()) // one whole row: its projections are NaN at every template
	}
	if _, err := m.WithRanges(nan, nan.Rows, 0, 1); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("rows with NaN: %v", err)
	}
	p := rm.Params()
	for _, bad := range [][]float64{p.Ranges[:10], append(slices.Clone(p.Ranges[:11]), p.Ranges[10]), append(slices.Clone(p.Ranges[:11]), math.Inf(1))} {
		q := p
		q.Ranges = bad
		if _, err := New(40, q, 7); err == nil {
			t.Errorf("ranges %v accepted", bad)
		}
	}
	q := p
	q.Lo, q.Hi = -1, 1
	if _, err := New(40, q, 7); err == nil {
		t.Error("per-template ranges beside lo and hi accepted")
	}
}

// TestSampledGroupIsNearlyInvariant: with |G| = 60 permutations sampled from
// the 120 (with repeats), Φ(g·x) pools x against a different sample of the
// group, so invariance is approximate: for random g, ‖Φ(g·x) − Φ(x)‖ must be
// small next to ‖Φ(x′) − Φ(x)‖ for x′ of another orbit, and well below what
// a single group element (no pooling) gives.
func TestSampledGroupIsNearlyInvariant(t *testing.T) {
	g := permGroup(t, 5, 8)
	all, _ := g.Elements()
	ratio := func(size int) float64 {
		m, err := New(40, Params{M: 200, N: 10, G: size, Group: g.Spec(), S: math.Sqrt(5) * 1.5}, 4)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(14, 15))
		moved := make([]float32, 40)
		var sum float64
		const trials = 30
		for k := 0; k < trials; k++ {
			seq, other := make([]int, 5), make([]int, 5)
			for i := range seq {
				seq[i], other[i] = r.IntN(8), r.IntN(8)
			}
			x := oneHot(seq, 8)
			g.Apply(moved, x, all[r.IntN(len(all))])
			z := apply(m, rows(x, moved, oneHot(other, 8)))
			sum += dist(linalg.Row32(z, 1), linalg.Row32(z, 0)) / math.Max(1e-9, dist(linalg.Row32(z, 2), linalg.Row32(z, 0)))
		}
		return sum / trials
	}
	sampled, single := ratio(60), ratio(1)
	t.Logf("‖Φ(gx)−Φ(x)‖/‖Φ(x′)−Φ(x)‖: |G| = 60 sampled %.3f, one element %.3f", sampled, single)
	if sampled > 0.4 || sampled > single/2 {
		t.Errorf("sampled group: ratio %.3f (one element: %.3f)", sampled, single)
	}
}

// TestTiledApplyMatchesRowByRow forces Apply to cut a batch into several row
// blocks and template chunks, and checks it against the map applied to one
// row at a time (a single tile each): the same features, up to a projection
// that lands on a threshold and rounds differently in another GEMM shape.
func TestTiledApplyMatchesRowByRow(t *testing.T) {
	g := permGroup(t, 4, 3)
	m, err := New(12, Params{M: 10, N: 3, G: 0, Group: g.Spec(), Templates: Sphere, S: 1}, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int) { projBudget = b }(projBudget)
	_, elems := m.Group()
	projBudget = 512 * len(elems) * 3 // a few templates per chunk
	rows := 1100                      // three row blocks
	if block, chunk := m.tiles(rows); chunk >= 10 || block >= rows {
		t.Fatalf("tiles(%d) = %d rows × %d templates: the test means several of each", rows, block, chunk)
	}
	r := rand.New(rand.NewPCG(8, 9))
	x := linalg.NewGeneral32(rows, 12)
	for i := range x.Data {
		x.Data[i] = float32(r.NormFloat64() / 3)
	}
	z := apply(m, x)
	w := math.Sqrt(m.S()/float64(3*10)) / float64(len(elems))
	off := 0
	for i := 0; i < rows; i++ {
		one := apply(m, linalg.Rows32(x, i, i+1))
		for k, v := range linalg.Row32(one, 0) {
			d := math.Abs(float64(v - linalg.Row32(z, i)[k]))
			if d > w*1.01 {
				t.Fatalf("row %d feature %d: tiled %v, alone %v", i, k, linalg.Row32(z, i)[k], v)
			}
			if d > 0 {
				off++
			}
		}
	}
	if off > rows*m.OutDim()/1000 {
		t.Errorf("%d of %d features differ by a count", off, rows*m.OutDim())
	}
}

// TestDataDiffTemplates: datadiff templates are the unit-length differences
// of the recorded pairs of distinct rows and rebuild from the recipe; too
// few rows for m pairs are refused.
func TestDataDiffTemplates(t *testing.T) {
	g := permGroup(t, 3, 4)
	data := uniformRows(20, 12, 3)
	p := Params{M: 6, N: 4, G: 0, Group: g.Spec(), Templates: DataDiff}
	m, err := NewFromData(data, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	src := m.Params().Sources
	seen := map[int]bool{}
	for _, i := range src {
		seen[i] = true
	}
	if m.Params().Templates != DataDiff || len(src) != 12 || len(seen) != 12 {
		t.Fatalf("templates %q, sources %v: want 12 distinct rows", m.Params().Templates, src)
	}
	// Element 0 of the permutations, listed in lexicographic order, is the
	// identity: the stored template j is (row a − row b)/‖row a − row b‖.
	elems := m.elems
	if len(elems) != 6 {
		t.Fatalf("%d group elements, want all 3! = 6", len(elems))
	}
	for j := 0; j < p.M; j++ {
		a, b := linalg.Row32(data, src[2*j]), linalg.Row32(data, src[2*j+1])
		var n2 float64
		for k := range a {
			d := float64(a[k] - b[k])
			n2 += d * d
		}
		tm := linalg.Row32(m.Transformed(), j*len(elems))
		for k := range a {
			want := float64(a[k]-b[k]) / math.Sqrt(n2)
			if math.Abs(float64(tm[k])-want) > 1e-6 {
				t.Fatalf("template %d entry %d = %v, want %v", j, k, tm[k], want)
			}
		}
	}
	rec, err := features.Build(m.Recipe())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(apply(rec, data).Data, apply(m, data).Data) {
		t.Error("rebuilt datadiff map computes different features")
	}
	if _, err := NewFromData(linalg.NewGeneral32(11, 12), p, 7); err == nil {
		t.Error("6 datadiff templates from 11 rows accepted")
	}
	if !FromData(Data) || !FromData(DataDiff) || FromData(Gaussian) || FromData(Sphere) {
		t.Error("FromData misclassifies a template source")
	}
}

// TestDataMixTemplates: a datamix template is the unit-length combination
// Σ wᵢ xᵢ of its k recorded distinct rows with recorded weights summing to
// zero; the map rebuilds from the recipe, draws the rows data or datadiff
// would draw for the same seed, and refuses k < 2 or too few rows.
func TestDataMixTemplates(t *testing.T) {
	g := permGroup(t, 3, 4)
	data := uniformRows(40, 12, 3)
	const k = 3
	p := Params{M: 6, N: 4, G: 0, Group: g.Spec(), Templates: DataMix, MixRows: k}
	m, err := NewFromData(data, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	mp := m.Params()
	seen := map[int]bool{}
	for _, i := range mp.Sources {
		seen[i] = true
	}
	if len(mp.Sources) != k*p.M || len(seen) != k*p.M || len(mp.MixWeights) != k*p.M {
		t.Fatalf("sources %v, weights %v: want %d distinct rows and as many weights", mp.Sources, mp.MixWeights, k*p.M)
	}
	diff, err := NewFromData(data, Params{M: 9, N: 4, G: 0, Group: g.Spec(), Templates: DataDiff}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(diff.Params().Sources, mp.Sources) {
		t.Errorf("datamix drew rows %v, datadiff with as many rows drew %v", mp.Sources, diff.Params().Sources)
	}
	for j := 0; j < p.M; j++ {
		w := mp.MixWeights[k*j : k*(j+1)]
		var sum, spread float64
		for _, v := range w {
			sum += float64(v)
			spread += math.Abs(float64(v))
		}
		if math.Abs(sum) > 1e-6 || spread < 1e-3 {
			t.Fatalf("template %d weights %v: want a non-zero set summing to zero", j, w)
		}
		want := make([]float64, data.Cols)
		var n2 float64
		for c := range want {
			for i, v := range w {
				want[c] += float64(v) * float64(linalg.Row32(data, mp.Sources[k*j+i])[c])
			}
			n2 += want[c] * want[c]
		}
		got := linalg.Row32(m.Transformed(), j*len(m.elems))
		for c := range want {
			if math.Abs(float64(got[c])-want[c]/math.Sqrt(n2)) > 1e-5 {
				t.Fatalf("template %d entry %d = %v, want %v", j, c, got[c], want[c]/math.Sqrt(n2))
			}
		}
	}
	rec, err := features.Build(m.Recipe())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(apply(rec, data).Data, apply(m, data).Data) {
		t.Error("rebuilt datamix map computes different features")
	}
	for _, bad := range []Params{
		{M: 6, N: 4, Group: g.Spec(), Templates: DataMix, MixRows: 1},
		{M: 6, N: 4, Group: g.Spec(), Templates: DataMix, MixRows: 7},
	} {
		if _, err := NewFromData(data, bad, 7); err == nil {
			t.Errorf("datamix with %d rows per template from 40 rows accepted", bad.MixRows)
		}
	}
	if !FromData(DataMix) {
		t.Error("FromData(datamix) is false")
	}
}

// uniformRows returns rows×cols values uniform in [0, 1) from the seed.
func uniformRows(rows, cols int, seed uint64) blas32.General {
	r := rand.New(rand.NewPCG(seed, seed+1))
	x := linalg.NewGeneral32(rows, cols)
	for i := range x.Data {
		x.Data[i] = float32(r.Float64())
	}
	return x
}
