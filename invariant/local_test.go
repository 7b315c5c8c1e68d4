package invariant

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// strokes draws anti-aliased line segments (x0, y0, x1, y1 in pixels) with
// a Gaussian pen on a 28×28 canvas and scales the image to unit length.
func strokes(segs ...[4]float64) []float32 {
	img := make([]float32, 28*28)
	for y := 0; y < 28; y++ {
		for x := 0; x < 28; x++ {
			var v float64
			for _, s := range segs {
				// Distance from (x, y) to the segment.
				dx, dy := s[2]-s[0], s[3]-s[1]
				u := ((float64(x)-s[0])*dx + (float64(y)-s[1])*dy) / (dx*dx + dy*dy)
				u = math.Max(0, math.Min(1, u))
				px, py := s[0]+u*dx-float64(x), s[1]+u*dy-float64(y)
				v = math.Max(v, math.Exp(-(px*px+py*py)/2))
			}
			img[y*28+x] = float32(v)
		}
	}
	normalize(img)
	return img
}

// ring draws an ellipse of radii (rx, ry) about the centre.
func ring(rx, ry float64) []float32 {
	var segs [][4]float64
	for k := 0; k < 12; k++ {
		a0, a1 := float64(k)*math.Pi/6, float64(k+1)*math.Pi/6
		segs = append(segs, [4]float64{13.5 + rx*math.Cos(a0), 13.5 + ry*math.Sin(a0), 13.5 + rx*math.Cos(a1), 13.5 + ry*math.Sin(a1)})
	}
	return strokes(segs...)
}

// TestLocalInvariance: templates transformed by 400 rotations within ±20°
// and shifts within ±3 px. Local invariance is approximate: Φ(g·x) pools x
// against g⁻¹ applied to the sampled window, which overlaps the window less
// the larger g is. So for g well inside the window (±5°, ±0.75 px),
// ‖Φ(g·x) − Φ(x)‖ must be small next to ‖Φ(x′) − Φ(x)‖ (a bar against a
// ring) and at most half what the same templates give without the group;
// for g anywhere in the window it must still beat the plain map.
func TestLocalInvariance(t *testing.T) {
	sz := transforms.ImageSize{Width: 28, Height: 28}
	window := func(deg, px float64) *transforms.ProductGroup {
		rot, _ := transforms.NewRotationGroup(transforms.RotationParams{ImageSize: sz, MaxDegrees: deg})
		tr, _ := transforms.NewTranslationGroup(transforms.TranslationParams{ImageSize: sz, MaxShift: px, SubPixel: true})
		prod, err := transforms.NewProductGroup(rot, tr)
		if err != nil {
			t.Fatal(err)
		}
		return prod
	}
	prod := window(20, 3)
	none, _ := transforms.NewTranslationGroup(transforms.TranslationParams{ImageSize: sz, MaxShift: 0})

	// Unlabelled "training data": random pairs of strokes.
	r := rand.New(rand.NewPCG(12, 13))
	data := linalg.NewGeneral32(60, 28*28)
	for i := 0; i < data.Rows; i++ {
		c := func() float64 { return 6 + 16*r.Float64() }
		copy(linalg.Row32(data, i), strokes([4]float64{c(), c(), c(), c()}, [4]float64{c(), c(), c(), c()}))
	}
	p := Params{M: 60, N: 20, Group: prod.Spec(), G: 400}
	inv, err := NewFromData(data, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Group, p.G = none.Spec(), 0
	plain, err := NewFromData(data, p, 1)
	if err != nil {
		t.Fatal(err)
	}

	bar := strokes([4]float64{14, 6, 14, 22})
	other := ring(6, 8)
	// meanRatio averages ‖Φ(g·x) − Φ(x)‖/‖Φ(x′) − Φ(x)‖ over elements.
	meanRatio := func(m *Map, els []transforms.Element) float64 {
		var sum float64
		moved := make([]float32, len(bar))
		for _, e := range els {
			prod.Apply(moved, bar, e)
			z := apply(m, rows(bar, moved, other))
			sum += dist(linalg.Row32(z, 1), linalg.Row32(z, 0)) / dist(linalg.Row32(z, 2), linalg.Row32(z, 0))
		}
		return sum / float64(len(els))
	}
	near := window(5, 0.75).Sample(rand.New(rand.NewPCG(1, 1)), 10)
	ri, rp := meanRatio(inv, near), meanRatio(plain, near)
	t.Logf("g within ±5°, ±0.75 px: invariant %.3f, without group %.3f", ri, rp)
	if ri > 0.25 || ri > rp/2 {
		t.Errorf("g within ±5°, ±0.75 px: ‖Φ(gx)−Φ(x)‖/‖Φ(x′)−Φ(x)‖ = %.3f invariant, %.3f without the group", ri, rp)
	}
	anywhere := prod.Sample(rand.New(rand.NewPCG(2, 2)), 10)
	ri, rp = meanRatio(inv, anywhere), meanRatio(plain, anywhere)
	t.Logf("g within ±20°, ±3 px: invariant %.3f, without group %.3f", ri, rp)
	if ri > 0.85*rp {
		t.Errorf("g within ±20°, ±3 px: ratio %.3f invariant, %.3f without the group", ri, rp)
	}
}

// TestCenterCopies: shifting a centred unit image moves part of it out of
// the frame, so its copies lose the centring and the unit length; with
// CenterCopies every stored copy has mean 0 and norm 1 again, and the map
// still rebuilds from its recipe.
func TestCenterCopies(t *testing.T) {
	sz := transforms.ImageSize{Width: 28, Height: 28}
	tr, err := transforms.NewTranslationGroup(transforms.TranslationParams{ImageSize: sz, MaxShift: 3})
	if err != nil {
		t.Fatal(err)
	}
	data := rows(strokes([4]float64{6, 6, 20, 12}), strokes([4]float64{8, 20, 22, 6}), ring(7, 5))
	stats := func(m *Map) (worstMean, worstNorm float64) {
		tt := m.Transformed()
		for r := 0; r < tt.Rows; r++ {
			var sum, n2 float64
			for _, v := range linalg.Row32(tt, r) {
				sum += float64(v)
				n2 += float64(v) * float64(v)
			}
			worstMean = max(worstMean, math.Abs(sum/float64(tt.Cols)))
			worstNorm = max(worstNorm, math.Abs(math.Sqrt(n2)-1))
		}
		return
	}
	for _, copies := range []bool{false, true} {
		m, err := NewFromData(data, Params{M: 3, N: 4, G: 0, Group: tr.Spec(), Center: true, CenterCopies: copies}, 2)
		if err != nil {
			t.Fatal(err)
		}
		mean, norm := stats(m)
		if copies && (mean > 1e-6 || norm > 1e-5) {
			t.Errorf("CenterCopies: a copy has mean %.2g, |norm−1| = %.2g", mean, norm)
		}
		if !copies && norm < 1e-3 {
			t.Errorf("without CenterCopies every shifted copy kept unit length (|norm−1| ≤ %.2g): the test shows nothing", norm)
		}
		rec, err := features.Build(m.Recipe())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(apply(rec, data).Data, apply(m, data).Data) {
			t.Errorf("CenterCopies=%v: rebuilt map computes different features", copies)
		}
	}
}
