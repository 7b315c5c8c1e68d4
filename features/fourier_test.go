package features

import (
	"math"
	"testing"

	"github.com/rfstream/rfstream/internal/linalg"
)

// TestFourierKernelErrorShrinksAsRootM checks that the random Fourier
// kernel estimate converges to exp(-‖x-z‖²/2σ²) at the Monte-Carlo rate:
// the RMS error over many pairs falls by about √(m₂/m₁) from m₁ to m₂.
func TestFourierKernelErrorShrinksAsRootM(t *testing.T) {
	const d, pairs, sigma = 5, 200, 1.0
	x := linalg.NewGeneral32(2*pairs, d)
	FillNormal32(NewRand(3, 7), x.Data)
	for i := range x.Data {
		x.Data[i] *= 0.5
	}
	rms := func(m int) float64 {
		var se float64
		// Average over a few seeds to steady the estimate of the RMS error.
		for seed := uint64(1); seed <= 4; seed++ {
			f, err := NewFourier(d, FourierParams{M: m, Sigma: sigma}, seed)
			if err != nil {
				t.Fatal(err)
			}
			z := linalg.NewGeneral32(2*pairs, m)
			f.Apply(z, x)
			for p := 0; p < pairs; p++ {
				a, b := linalg.Row32(z, 2*p), linalg.Row32(z, 2*p+1)
				var k, dist float64
				for i := range a {
					k += float64(a[i]) * float64(b[i])
				}
				xa, xb := linalg.Row32(x, 2*p), linalg.Row32(x, 2*p+1)
				for i := range xa {
					dd := float64(xa[i] - xb[i])
					dist += dd * dd
				}
				e := k - math.Exp(-dist/(2*sigma*sigma))
				se += e * e
			}
		}
		return math.Sqrt(se / (4 * pairs))
	}
	e1, e2 := rms(100), rms(1600)
	ratio := e1 / e2 // √16 = 4 expected
	if ratio < 3 || ratio > 5.3 {
		t.Fatalf("RMS kernel error %.4f at m=100, %.4f at m=1600: ratio %.2f, want about 4", e1, e2, ratio)
	}
	if e2 > 0.05 {
		t.Fatalf("RMS kernel error %.4f at m=1600 is too large", e2)
	}
}

func TestFourierRecipeRebuildsSameBits(t *testing.T) {
	f, _ := NewFourier(3, FourierParams{M: 17, Sigma: 0.7}, 11)
	g, err := Build(f.Recipe())
	if err != nil {
		t.Fatal(err)
	}
	x := linalg.NewGeneral32(2, 3)
	x.Data = []float32{1, 2, 3, -1, 0, 0.5}
	a, b := linalg.NewGeneral32(2, 17), linalg.NewGeneral32(2, 17)
	f.Apply(a, x)
	g.Apply(b, x)
	for i := range a.Data {
		if math.Float32bits(a.Data[i]) != math.Float32bits(b.Data[i]) {
			t.Fatal("rebuilt Fourier map differs")
		}
	}
	if _, err := NewFourier(3, FourierParams{M: 4, Sigma: 0}, 1); err == nil {
		t.Fatal("σ = 0 accepted")
	}
}
