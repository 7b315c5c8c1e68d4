package invariant

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

func TestHaarKernelInvariantAndPSD(t *testing.T) {
	g := permGroup(t, 4, 3) // 24 elements acting on d = 12
	all, _ := g.Elements()
	r := rand.New(rand.NewPCG(10, 11))
	const npts = 25
	x := linalg.NewGeneral32(npts, 12)
	for i := 0; i < npts; i++ {
		row := linalg.Row32(x, i)
		for c := range row {
			row[c] = float32(r.NormFloat64())
		}
		normalize(row) // CDFBase is PSD on unit vectors when s ≥ 2/√(2πd)
	}
	bases := map[string]Base{
		"linear":   LinearBase(),
		"gaussian": GaussianBase(0.7),
		"cdf":      CDFBase(1.5, 12),
	}
	gx := make([]float32, 12)
	gz := make([]float32, 12)
	for name, k0 := range bases {
		k, err := HaarGram(g, k0, x, x)
		if err != nil {
			t.Fatal(err)
		}
		var baseMoved float64
		// The GEMM form agrees with the double integral, and both are
		// invariant in each argument separately.
		for trial := 0; trial < 10; trial++ {
			i, j := r.IntN(npts), r.IntN(npts)
			xi, xj := linalg.Row32(x, i), linalg.Row32(x, j)
			direct, err := HaarPair(g, k0, xi, xj)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(direct-k.Data[i*npts+j]) > 1e-5 {
				t.Errorf("%s: HaarGram %v, HaarPair %v", name, k.Data[i*npts+j], direct)
			}
			g.Apply(gx, xi, all[r.IntN(len(all))])
			g.Apply(gz, xj, all[r.IntN(len(all))])
			moved, _ := HaarPair(g, k0, gx, gz)
			if math.Abs(moved-direct) > 1e-9*math.Max(1, math.Abs(direct)) {
				t.Errorf("%s: K(g·x, g′·z) = %v, K(x, z) = %v", name, moved, direct)
			}
			plain := k0(dot64(gx, gz), dot64(gx, gx), dot64(gz, gz))
			baseMoved = math.Max(baseMoved, math.Abs(plain-k0(dot64(xi, xj), dot64(xi, xi), dot64(xj, xj))))
		}
		// The base kernel itself is not invariant, or the check is void.
		if baseMoved < 1e-2 {
			t.Errorf("%s: base kernel moved by at most %v under the draws", name, baseMoved)
		}
		sym := mat.NewSymDense(npts, nil)
		for i := 0; i < npts; i++ {
			for j := i; j < npts; j++ {
				if d := math.Abs(k.Data[i*npts+j] - k.Data[j*npts+i]); d > 1e-5 {
					t.Fatalf("%s: Gram not symmetric at (%d,%d) by %v", name, i, j, d)
				}
				sym.SetSym(i, j, k.Data[i*npts+j])
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(sym, false) {
			t.Fatalf("%s: eigen-decomposition failed", name)
		}
		vals := eig.Values(nil)
		if vals[0] < -1e-6*vals[len(vals)-1] {
			t.Errorf("%s: Haar Gram has eigenvalue %v (largest %v): not PSD", name, vals[0], vals[len(vals)-1])
		}
	}
	if _, err := HaarPair(mustRotation(t), LinearBase(), make([]float32, 16), make([]float32, 16)); err == nil {
		t.Error("Haar kernel of a continuous group accepted")
	}
}

func mustRotation(t *testing.T) transforms.Group {
	g, err := transforms.NewRotationGroup(transforms.RotationParams{ImageSize: transforms.ImageSize{Width: 4, Height: 4}, MaxDegrees: 20})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
