package engine

import (
	"slices"
	"testing"
)

// A session self-trains at 10, 20, 40, … 1280 recordings and never after.
func TestSessionCheckpoints(t *testing.T) {
	var got []int
	for n := 0; n <= 100*LastSessionCheckpoint; n++ {
		if isSessionCheckpoint(n) {
			got = append(got, n)
		}
	}
	if want := []int{10, 20, 40, 80, 160, 320, 640, 1280}; !slices.Equal(got, want) {
		t.Fatalf("checkpoints %v, want %v", got, want)
	}
}
