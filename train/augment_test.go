package train

import (
	"math"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/internal/sox"
)

func TestAugmentConditionIsSeededByTheRecordingAndCopy(t *testing.T) {
	if err := sox.Available(); err != nil {
		t.Skip(err)
	}
	x := make([]float32, 8000)
	for i := range x {
		x[i] = float32(0.3 * math.Sin(2*math.Pi*300*float64(i)/8000))
	}
	r := SpeakerAugmentRanges()
	a, err := AugmentCondition(r, 1).Warp(x, 8000)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AugmentCondition(r, 1).Warp(slices.Clone(x), 8000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Error("copy 1 of one recording differs between two runs")
	}
	c, err := AugmentCondition(r, 2).Warp(x, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a, c) {
		t.Error("copies 1 and 2 of a recording are the same")
	}
	if AugmentCondition(r, 1).Name == AugmentCondition(r, 2).Name {
		t.Error("two copies share a vector-cache name")
	}
}
