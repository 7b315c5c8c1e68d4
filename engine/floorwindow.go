package engine

import (
	"cmp"
	"slices"
)

// sortedWindow keeps the energies of a window of consecutive frames in
// ascending order as the window slides forward, so the segmenter's
// percentiles cost a binary search and a short copy per frame instead of
// a sort of the whole window. It holds the same multiset as sorting the
// window afresh, so every percentile is the same value.
type sortedWindow struct {
	lo, hi int64     // the window holds frames [lo, hi)
	vals   []float64 // their energies, ascending (NaN first, as sort.Float64s)
}

// slide moves the window to frames [lo, hi) of energy, whose first
// element is frame base, and returns the window's energies in ascending
// order. The slice is the window's own: valid until the next call.
func (w *sortedWindow) slide(energy []float64, base, lo, hi int64) []float64 {
	// Forward moves that overlap the current window are incremental;
	// anything else (the first call, a jump, frames already dropped from
	// energy) rebuilds it.
	if len(w.vals) == 0 || lo < w.lo || hi < w.hi || lo >= w.hi || w.lo < base {
		return w.rebuild(energy, base, lo, hi)
	}
	for ; w.lo < lo; w.lo++ {
		i, found := slices.BinarySearchFunc(w.vals, energy[w.lo-base], cmp.Compare[float64])
		if !found {
			return w.rebuild(energy, base, lo, hi)
		}
		w.vals = slices.Delete(w.vals, i, i+1)
	}
	for ; w.hi < hi; w.hi++ {
		v := energy[w.hi-base]
		i, _ := slices.BinarySearchFunc(w.vals, v, cmp.Compare[float64])
		w.vals = slices.Insert(w.vals, i, v)
	}
	return w.vals
}

func (w *sortedWindow) rebuild(energy []float64, base, lo, hi int64) []float64 {
	w.vals = append(w.vals[:0], energy[lo-base:hi-base]...)
	slices.SortFunc(w.vals, cmp.Compare[float64])
	w.lo, w.hi = lo, hi
	return w.vals
}
