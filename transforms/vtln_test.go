package transforms

import (
	"math"
	"math/rand/v2"
	"testing"
)

func vtlnGroup(t *testing.T) *SpectroVTLNGroup {
	t.Helper()
	g, err := NewSpectroVTLNGroup(SpectroVTLNParams{Frames: 4, Mels: 40, LowHz: 20, HighHz: 4000, Alpha: 1.2, Lifter: 10})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// vtlnPatch is a smooth formant bump at band peak plus a fine ripple of
// alternating sign (harmonics), in every frame.
func vtlnPatch(g *SpectroVTLNGroup, peak float64) []float32 {
	m := g.p.Mels
	x := make([]float32, g.Dim())
	for t := 0; t < g.p.Frames; t++ {
		for k := 0; k < m; k++ {
			d := float64(k) - peak
			ripple := 0.3 * float64(1-2*(k%2))
			x[t*m+k] = float32(math.Exp(-d*d/18) + ripple)
		}
	}
	return x
}

// TestSpectroVTLNMovesEnvelopeKeepsRipple: the identity changes nothing; a
// factor above 1 moves the formant bump to higher bands while the
// alternating fine structure keeps its place and sign; a factor and its
// inverse undo each other away from the edges.
func TestSpectroVTLNMovesEnvelopeKeepsRipple(t *testing.T) {
	g := vtlnGroup(t)
	m := g.p.Mels
	x := vtlnPatch(g, 18)
	y := make([]float32, len(x))
	g.Apply(y, x, g.Identity())
	for i := range x {
		if math.Abs(float64(x[i]-y[i])) > 1e-5 {
			t.Fatalf("identity moved value %d: %v → %v", i, x[i], y[i])
		}
	}
	g.Apply(y, x, VTLNFactor(1.2))
	// Smooth part: average neighbours to cancel the ripple.
	smoothPeak := func(v []float32) int {
		best, at := math.Inf(-1), 0
		for k := 1; k < m-1; k++ {
			s := float64(v[k-1])/4 + float64(v[k])/2 + float64(v[k+1])/4
			if s > best {
				best, at = s, k
			}
		}
		return at
	}
	if p0, p1 := smoothPeak(x[:m]), smoothPeak(y[:m]); p1 <= p0+1 {
		t.Errorf("factor 1.2 left the formant at band %d (was %d)", p1, p0)
	}
	var agree int
	for k := 5; k < m-5; k++ {
		// The ripple is the difference from the neighbours' mean.
		r := y[k] - (y[k-1]+y[k+1])/2
		if (r > 0) == (k%2 == 0) {
			agree++
		}
	}
	if agree < m-12 {
		t.Errorf("the fine structure kept its sign at %d of %d inner bands", agree, m-10)
	}
	back := make([]float32, len(x))
	g.Apply(back, y, g.Inverse(VTLNFactor(1.2)))
	var worst float64
	for k := 8; k < m-8; k++ {
		worst = math.Max(worst, math.Abs(float64(back[k]-x[k])))
	}
	if worst > 0.1 {
		t.Errorf("warp then inverse differs from the input by %.3f inside the patch", worst)
	}
}

// TestSpectroVTLNSampleAndSpec: samples stay within [1/α, α], the spec
// rebuilds the group, and bad parameters are refused.
func TestSpectroVTLNSampleAndSpec(t *testing.T) {
	g := vtlnGroup(t)
	r := rand.New(rand.NewPCG(1, 2))
	var below, above int
	for _, e := range g.Sample(r, 200) {
		a := float64(e.(VTLNFactor))
		if a < 1/1.2-1e-12 || a > 1.2+1e-12 {
			t.Fatalf("sampled factor %v outside [1/1.2, 1.2]", a)
		}
		if a < 1 {
			below++
		} else {
			above++
		}
	}
	if below < 70 || above < 70 {
		t.Errorf("log-uniform sampling gave %d below 1 and %d above", below, above)
	}
	h, err := Build(g.Spec())
	if err != nil || h.Dim() != g.Dim() {
		t.Fatalf("rebuilding from the spec: %v", err)
	}
	for _, p := range []SpectroVTLNParams{
		{Frames: 4, Mels: 40, LowHz: 20, HighHz: 4000, Alpha: 0.9, Lifter: 10},
		{Frames: 4, Mels: 40, LowHz: 20, HighHz: 4000, Alpha: 1.2, Lifter: 0},
		{Frames: 4, Mels: 40, LowHz: 20, HighHz: 4000, Alpha: 1.2, Lifter: 41},
	} {
		if _, err := NewSpectroVTLNGroup(p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
