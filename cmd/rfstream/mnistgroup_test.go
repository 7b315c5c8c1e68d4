package main

import (
	"testing"

	"github.com/rfstream/rfstream/transforms"
)

// The image group flags: by default rotations and shifts are continuous
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
		f := imageFlags{degrees: 20, shift: 3, rotationSteps: c.steps, integerShifts: c.integer}
		spec, err := f.group(28, 28)
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
	if _, err := (&imageFlags{degrees: 20, shift: 2.5, integerShifts: true}).group(28, 28); err == nil {
		t.Error("a fractional --shift with --integer-shifts was accepted")
	}
}
