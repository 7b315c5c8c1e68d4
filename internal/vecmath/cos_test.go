package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCosReducedMatchesMathCos(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var worst float64
	for i := 0; i < 200000; i++ {
		// Phases as the Fourier map produces them (a Gaussian projection
		// plus a uniform offset), and far larger ones.
		x := r.NormFloat64()*10 + r.Float64()*2*math.Pi
		if i%10 == 0 {
			x = (r.Float64() - 0.5) * 2e5
		}
		worst = math.Max(worst, math.Abs(CosReduced(x)-math.Cos(x)))
	}
	for _, x := range []float64{0, math.Pi, -math.Pi, math.Pi / 2, 3 * math.Pi, 1e5 + 0.3} {
		worst = math.Max(worst, math.Abs(CosReduced(x)-math.Cos(x)))
	}
	if worst > 1e-8 {
		t.Fatalf("largest |CosReduced − math.Cos| = %.3g, want ≤ 1e-8", worst)
	}
	t.Logf("largest difference %.3g", worst)
}

func BenchmarkCos(b *testing.B) {
	xs := make([]float64, 4096)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range xs {
		xs[i] = r.NormFloat64() * 3
	}
	var s float64
	b.Run("math.Cos", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, x := range xs {
				s += math.Cos(x)
			}
		}
	})
	b.Run("CosReduced", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, x := range xs {
				s += CosReduced(x)
			}
		}
	})
	_ = s
}
