package engine

import (
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/backends.golden.json from this build")

// backendGolden is what testdata/backends.golden.json holds: the maxout and
// Fourier features of a fixed batch and the RLS read-out trained on them.
type backendGolden struct {
	Backend string    `json:"backend"` // the build that wrote the file
	Maxout  []float32 `json:"maxout"`
	Fourier []float32 `json:"fourier"`
	Weights []float32 `json:"weights"`
}

// computeBackendGolden runs every BLAS-backed step once on fixed data: the
// maps' GEMMs, the Gram's SYRK and the Cholesky solve.
func computeBackendGolden(t *testing.T) backendGolden {
	const n, d, classes = 300, 24, 3
	r := rand.New(rand.NewPCG(7, 7))
	x := linalg.NewGeneral32(n, d)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = i % classes
		for j := 0; j < d; j++ {
			x.Data[i*d+j] = float32(r.NormFloat64()*0.3 + float64(labels[i]*(j%2)))
		}
	}
	mo, err := maxout.New(d, maxout.Params{M: 64, Q: 4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	fo, err := features.NewFourier(d, features.FourierParams{M: 64, Sigma: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	g := backendGolden{Backend: linalg.Backend}
	head := linalg.Rows32(x, 0, 32) // enough rows to cover every unit; keeps the file small
	g.Maxout = flat(features.Apply(mo, head, 128))
	g.Fourier = flat(features.Apply(fo, head, 128))
	rls, _, err := classifier.FitRLS(mo, x, labels, classes, classifier.FitOptions{Lambda: 1e-2, Block: 128})
	if err != nil {
		t.Fatal(err)
	}
	g.Weights = flat(rls.W)
	return g
}

func flat(a blas32.General) []float32 {
	out := make([]float32, 0, a.Rows*a.Cols)
	for i := 0; i < a.Rows; i++ {
		out = append(out, linalg.Row32(a, i)...)
	}
	return out
}

// TestBackendsAgree compares this build's numbers with those another build
// wrote: the file is written by the pure-Go build and make test runs this
// test under both, so OpenBLAS and pure Go must agree to float32 rounding
// (reordered sums), not merely each pass on its own.
func TestBackendsAgree(t *testing.T) {
	const path = "../testdata/backends.golden.json"
	got := computeBackendGolden(t)
	if *updateGolden {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want backendGolden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	t.Logf("this build: %s; golden written by: %s", got.Backend, want.Backend)
	for _, c := range []struct {
		name      string
		got, want []float32
		tol       float64 // relative to the largest magnitude
	}{
		{"maxout features", got.Maxout, want.Maxout, 1e-5},
		{"fourier features", got.Fourier, want.Fourier, 1e-5},
		{"RLS weights", got.Weights, want.Weights, 1e-3},
	} {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s: %d values, golden has %d", c.name, len(c.got), len(c.want))
		}
		var scale, worst float64
		for i := range c.want {
			scale = math.Max(scale, math.Abs(float64(c.want[i])))
			worst = math.Max(worst, math.Abs(float64(c.got[i]-c.want[i])))
		}
		t.Logf("%s: largest difference %.3g (scale %.3g)", c.name, worst, scale)
		if worst > c.tol*scale || math.IsNaN(worst) {
			t.Errorf("%s: largest difference %.3g exceeds %.0e × %.3g", c.name, worst, c.tol, scale)
		}
	}
}
