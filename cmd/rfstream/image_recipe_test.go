package main

import (
	"encoding/json"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A cached default image model is trained again when it records no
// polarity or no out-of-domain rule (written before image recipes), and
// kept when it records both.
func TestDefaultImageModelWithoutRecipeIsStale(t *testing.T) {
	toy, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	m := *toy.Model
	if defaults.HasImageRecipe(&m) {
		t.Fatal("a model without polarity or rule counted as current")
	}
	in := toy.Input
	in.Polarity = "auto"
	m.Input, _ = json.Marshal(in)
	if defaults.HasImageRecipe(&m) {
		t.Fatal("a model without an out-of-domain rule counted as current")
	}
	in.OutOfDomain = &engine.OutOfDomain{Components: 1, MinFamiliarity: 0.5}
	m.Input, _ = json.Marshal(in)
	if !defaults.HasImageRecipe(&m) {
		t.Fatal("a model with polarity and rule counted as stale")
	}
	m.Input = nil
	if defaults.HasImageRecipe(&m) {
		t.Fatal("a model without input recipe counted as current")
	}
}
