package engine_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// Polarity auto: a light figure on a black ground is left bit for bit as
// it was; the same figure as dark ink on white paper, and as dark ink on
// grey paper (ground 0.8, ink 0.8·(1−v)), comes back as the first.
func TestPolarityAutoTurnsInkOnPaperLightOnDark(t *testing.T) {
	const h, w = 6, 7
	figure := make([]float32, h*w)
	for y := 1; y < 5; y++ {
		figure[y*w+3] = 1
		figure[y*w+2] = 0.5
	}
	x := linalg.NewGeneral32(3, h*w)
	for i, v := range figure {
		x.Data[i] = v
		x.Data[h*w+i] = 1 - v
		x.Data[2*h*w+i] = 0.8 * (1 - v)
	}
	in := engine.ImageInput{Height: h, Width: w, Polarity: "auto"}
	if err := in.Prepare(x); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3; r++ {
		for i, v := range linalg.Row32(x, r) {
			if math.Abs(float64(v-figure[i])) > 1e-6 || (r == 0 && v != figure[i]) {
				t.Fatalf("row %d pixel %d: %v, want %v", r, i, v, figure[i])
			}
		}
	}
	if err := (engine.ImageInput{Polarity: "sideways"}).Validate(); err == nil {
		t.Fatal("unknown polarity accepted")
	}
}

// Familiarity is 1 for a feature row inside the basis's span, 0 for one
// orthogonal to it (and for zeros), and cos² of the angle in between.
func TestFamiliarityIsShareOfEnergyInSpan(t *testing.T) {
	basis := linalg.NewGeneral32(2, 4)
	basis.Data[0], basis.Data[5] = 1, 1 // e0, e1
	z := linalg.NewGeneral32(4, 4)
	copy(linalg.Row32(z, 0), []float32{3, -4, 0, 0})
	copy(linalg.Row32(z, 1), []float32{0, 0, 2, 1})
	copy(linalg.Row32(z, 2), []float32{1, 0, 1, 0})
	got := engine.Familiarity(z, basis)
	want := []float64{1, 0, 0.5, 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Fatalf("familiarity %v, want %v", got, want)
		}
	}
}

// A model whose header has no input recipe is read as MNIST's 28×28; one
// whose out-of-domain rule has no basis blob is refused, naming the blob.
func TestImageModelRecipeDefaultsAndChecks(t *testing.T) {
	toy, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	m := *toy.Model
	m.Input = nil
	if _, err := engine.NewImageTagger(&m); err == nil || !strings.Contains(err.Error(), "28x28") {
		t.Fatalf("a model without input recipe on an 8×8 map: %v, want it read as 28x28 and refused", err)
	}
	in := engine.ImageInput{Height: 8, Width: 8, Normalize: "unit", OutOfDomain: &engine.OutOfDomain{Components: 3, MinFamiliarity: 0.5}}
	m.Input, _ = json.Marshal(in)
	if _, err := engine.NewImageTagger(&m); err == nil || !strings.Contains(err.Error(), engine.OODBasisBlob) {
		t.Fatalf("out-of-domain rule without its basis: %v", err)
	}
}
