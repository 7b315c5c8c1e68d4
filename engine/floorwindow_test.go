package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// The sliding window holds, after every move, what sorting the window's
// frames afresh gives: with repeated values (digital silence clamps to one
// level), NaNs, frames dropped from the front of the buffer, and jumps.
func TestSortedWindowEqualsASortOfTheWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	energy := make([]float64, 5000)
	for i := range energy {
		switch r := rng.IntN(20); {
		case r < 4:
			energy[i] = minFrameDB // many equal values
		case r == 4:
			energy[i] = math.NaN()
		default:
			energy[i] = math.Round(rng.NormFloat64()*200) / 10 // ties
		}
	}
	var w sortedWindow
	base := int64(0)
	lo, hi := int64(0), int64(181)
	rebuilds := 0
	for hi < int64(len(energy)) {
		got := w.slide(energy[base:], base, lo, hi)
		want := append([]float64(nil), energy[lo:hi]...)
		sort.Float64s(want)
		if !slices.EqualFunc(got, want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Fatalf("window [%d, %d): got %v, want %v", lo, hi, got, want)
		}
		if w.lo != lo || w.hi != hi {
			t.Fatalf("window says [%d, %d), moved to [%d, %d)", w.lo, w.hi, lo, hi)
		}
		switch r := rng.IntN(100); {
		case r == 0: // a jump past the window
			lo += 300
			hi += 300
			rebuilds++
		case r < 5: // the window grows at its end only
			hi++
		default:
			step := int64(1 + rng.IntN(3))
			lo, hi = lo+step, hi+step
		}
		// The segmenter drops frames it no longer needs.
		if rng.IntN(50) == 0 {
			base = min(lo-1, int64(len(energy)-1))
		}
	}
	if rebuilds == 0 {
		t.Fatal("no jump was tried")
	}
}
