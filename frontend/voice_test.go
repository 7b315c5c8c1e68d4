package frontend

import (
	"slices"
	"testing"
)

// Mean removal alone: a nil Inv gives exactly what unit scales give, and
// the voice's own mean leaves every band of its one vector at zero mean
// before the vector is made unit length again.
func TestVoiceStatsNilInvIsMeanRemoval(t *testing.T) {
	v := []float32{1, 4, 2, 8, 3, 0, 5, -2} // 4 frames of 2 bands
	st := EstimateVoice([][]float32{v}, 2, false)
	if !slices.Equal(st.Mean, []float32{2.75, 2.5}) || !slices.Equal(st.Inv, []float32{1, 1}) {
		t.Fatalf("stats %+v", st)
	}
	a, b := slices.Clone(v), slices.Clone(v)
	st.Normalise(a)
	VoiceStats{Mean: st.Mean}.Normalise(b)
	if !slices.Equal(a, b) {
		t.Fatalf("nil Inv %v, unit Inv %v", b, a)
	}
	for k := 0; k < 2; k++ {
		var sum float32
		for t0 := k; t0 < len(b); t0 += 2 {
			sum += b[t0]
		}
		if sum > 1e-6 || sum < -1e-6 {
			t.Errorf("band %d sums to %v after its mean was removed", k, sum)
		}
	}
}
