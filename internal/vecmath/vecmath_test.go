package vecmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// withGo runs f with the assembly kernels switched off.
func withGo(f func()) {
	saved := useAVX
	useAVX = false
	defer func() { useAVX = saved }()
	f()
}

// maxScaleRef is MaxScale written as plainly as possible, the definition
// both kernels must meet.
func maxScaleRef(out, p []float32, q int, scale float32) {
	n := len(out)
	for u := range out {
		best := p[u]
		for j := 1; j < q; j++ {
			if p[j*n+u] > best {
				best = p[j*n+u]
			}
		}
		out[u] = best * scale
	}
}

// specials are values whose order a max can get wrong: ties of signed
// zeros, NaNs, infinities, subnormals.
var specials = []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-45, 1}

func TestMaxScaleMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, q := range []int{1, 2, 3, 4, 8} {
		for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 40, 100, 512} {
			p := make([]float32, q*n+5) // longer than needed: only q·n are read
			for i := range p {
				p[i] = float32(r.NormFloat64())
				if r.IntN(8) == 0 {
					p[i] = specials[r.IntN(len(specials))]
				}
			}
			want := make([]float32, n)
			maxScaleRef(want, p, q, 0.125)
			got := make([]float32, n)
			MaxScale(got, p, q, 0.125)
			goGot := make([]float32, n)
			withGo(func() { MaxScale(goGot, p, q, 0.125) })
			for u := range want {
				wb := math.Float32bits(want[u])
				if math.Float32bits(got[u]) != wb || math.Float32bits(goGot[u]) != wb {
					t.Fatalf("q=%d n=%d unit %d: kernel %v, Go %v, want %v (accelerated: %v)", q, n, u, got[u], goGot[u], want[u], Accelerated())
				}
			}
		}
	}
}

func TestCosAffineMatchesCosReduced(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 4, 5, 8, 13, 1000} {
		v := make([]float32, n)
		b := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 20)
			b[i] = float32(r.Float64() * 2 * math.Pi)
			switch r.IntN(10) {
			case 0:
				v[i] = float32((r.Float64() - 0.5) * 2e5) // far from zero
			case 1:
				// x·(1/2π) within an ulp of a half: rounding half away
				// from zero against to even shows here.
				k := float64(r.IntN(200) - 100)
				v[i], b[i] = float32((k+0.5)*2*math.Pi), 0
			case 2:
				v[i], b[i] = float32(math.Copysign(0, -1)), 0
			}
		}
		const scale = 0.0223606797749979
		got := append([]float32(nil), v...)
		CosAffine(got, b, scale)
		goGot := append([]float32(nil), v...)
		withGo(func() { CosAffine(goGot, b, scale) })
		for k := range v {
			want := float32(scale * CosReduced(float64(v[k])+float64(b[k])))
			wb := math.Float32bits(want)
			if math.Float32bits(got[k]) != wb || math.Float32bits(goGot[k]) != wb {
				t.Fatalf("n=%d value %d (x=%v): kernel %v, Go %v, want %v (accelerated: %v)", n, k, float64(v[k])+float64(b[k]), got[k], goGot[k], want, Accelerated())
			}
			if d := math.Abs(float64(want) - scale*math.Cos(float64(v[k])+float64(b[k]))); d > 1e-8 {
				t.Fatalf("value %d: %v is %.3g from scale·math.Cos", k, want, d)
			}
		}
	}
}

func TestCosAffineRoundsHalfAwayFromZero(t *testing.T) {
	// x = 2π·2.5 exactly in float64 terms: x·(1/2π) is 2.5 or next to it;
	// whatever it is, the kernel must pick the integer math.Round picks.
	for _, k := range []float64{0.5, 1.5, 2.5, -0.5, -2.5, 1e5 + 0.5} {
		x := k * 2 * math.Pi
		v := []float32{float32(x), float32(x), float32(x), float32(x)}
		b := make([]float32, 4)
		got := append([]float32(nil), v...)
		CosAffine(got, b, 1)
		want := float32(CosReduced(float64(v[0])))
		if math.Float32bits(got[0]) != math.Float32bits(want) {
			t.Fatalf("k=%v: kernel %v, Go %v", k, got[0], want)
		}
	}
}

func TestShortInputsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"max":   func() { MaxScale(make([]float32, 4), make([]float32, 7), 2, 1) },
		"q=0":   func() { MaxScale(make([]float32, 4), make([]float32, 8), 0, 1) },
		"phase": func() { CosAffine(make([]float32, 4), make([]float32, 3), 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkMaxScale times the maxout reduction over one block of 512 units
// with q = 4 (what maxout.Map runs after each GEMM), kernel and Go loop.
func BenchmarkMaxScale(b *testing.B) {
	const n, q = 512, 4
	p := make([]float32, q*n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range p {
		p[i] = float32(r.NormFloat64())
	}
	out := make([]float32, n)
	for _, goOnly := range []bool{false, true} {
		name := "kernel"
		if goOnly {
			name = "go"
		}
		b.Run(fmt.Sprintf("%s/n=%d/q=%d", name, n, q), func(b *testing.B) {
			saved := useAVX
			useAVX = useAVX && !goOnly
			defer func() { useAVX = saved }()
			b.SetBytes(int64(4 * (q + 1) * n))
			for i := 0; i < b.N; i++ {
				MaxScale(out, p, q, 0.03)
			}
		})
	}
}

// BenchmarkCosAffine times the Fourier map's cosine step over one row of
// 4000 features, kernel and Go loop.
func BenchmarkCosAffine(b *testing.B) {
	const n = 4000
	v := make([]float32, n)
	ph := make([]float32, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range v {
		v[i] = float32(r.NormFloat64() * 3)
		ph[i] = float32(r.Float64() * 2 * math.Pi)
	}
	for _, goOnly := range []bool{false, true} {
		name := "kernel"
		if goOnly {
			name = "go"
		}
		b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
			saved := useAVX
			useAVX = useAVX && !goOnly
			defer func() { useAVX = saved }()
			b.SetBytes(int64(8 * n))
			// The step overwrites v with its result and runs on that: it
			// has no branches, so its time does not depend on the values.
			for i := 0; i < b.N; i++ {
				CosAffine(v, ph, 0.02)
			}
		})
	}
}
