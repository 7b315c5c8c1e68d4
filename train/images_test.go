package train

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

// The image group (--degrees, --shift, --rotation-steps, --integer-shifts): by default rotations and shifts are continuous
// (sampled); --rotation-steps with --integer-shifts makes the group finite,
// every angle of the grid times every whole-pixel shift.
func TestImageGroupFlags(t *testing.T) {
	for _, c := range []struct {
		steps   int
		integer bool
		want    int // elements; 0: not finite
	}{
		{0, false, 0},
		{2, false, 0},
		{0, true, 0},
		{2, true, 5 * 7 * 7},
		{1, true, 3 * 7 * 7},
	} {
		f := ImageOptions{Degrees: 20, Shift: 3, RotationSteps: c.steps, IntegerShifts: c.integer}
		spec, err := f.Group(28, 28)
		if err != nil {
			t.Fatal(err)
		}
		g, err := transforms.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		all, ok := g.Elements()
		if ok != (c.want > 0) || len(all) != c.want {
			t.Errorf("steps %d, integer shifts %v: finite=%v with %d elements, want %d", c.steps, c.integer, ok, len(all), c.want)
		}
	}
	if _, err := (ImageOptions{Degrees: 20, Shift: 2.5, IntegerShifts: true}).Group(28, 28); err == nil {
		t.Error("a fractional --shift with --integer-shifts was accepted")
	}
}

// A fit of maxout features on images mostly of zeros runs the BLAS on one
// thread unless --blas-threads says otherwise or m is large enough for the
// Gram to dominate; pooled maxout, other maps and dense rows leave the
// BLAS as it is.
func TestFitThreads(t *testing.T) {
	sparse := linalg.NewGeneral32(10, 20)
	dense := linalg.NewGeneral32(10, 20)
	for i := range dense.Data {
		dense.Data[i] = 1
	}
	for i := 0; i < 10; i++ {
		sparse.Data[i*20] = 1
	}
	recipe := func(kind string, p any) features.Recipe {
		return features.Recipe{Kind: kind, In: 20, Params: features.MarshalParams(p)}
	}
	small := recipe(maxout.Kind, maxout.Params{M: 160, Q: 4}) // m ≤ 2·q·d = 160: the map's work is the larger
	large := recipe(maxout.Kind, maxout.Params{M: 161, Q: 4})
	pooled := recipe(maxout.Kind, maxout.Params{M: 100, Q: 4, Pool: 50})
	fourier := recipe("fourier", features.FourierParams{M: 100, Sigma: 1})
	for _, c := range []struct {
		flag   int
		recipe features.Recipe
		x      blas32.General
		want   int
	}{{0, small, sparse, 1}, {0, large, sparse, 0}, {0, pooled, sparse, 0}, {0, small, dense, 0}, {0, fourier, sparse, 0},
		{3, small, sparse, 3}, {2, fourier, dense, 2}} {
		if got := FitThreads(c.flag, c.recipe, c.x); got != c.want {
			t.Errorf("--blas-threads %d, %s map: %d threads, want %d", c.flag, c.recipe.Kind, got, c.want)
		}
	}
}
