package frontend

import (
	"strings"
	"testing"
	"time"
)

// A rate whose ratio to the model's has few common factors is refused at
// once, naming it, instead of building a table of millions of taps; every
// common rate is still taken, each within the bound.
func TestResamplerFilterIsBoundedForAnyRate(t *testing.T) {
	start := time.Now()
	_, err := NewResampler(767998, 8000)
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "767998") || !strings.Contains(err.Error(), "taps") || took > 50*time.Millisecond {
		t.Fatalf("767998 → 8000 Hz: %v after %v, want refused at once naming the rate", err, took)
	}
	for _, to := range []int{8000, 16000} {
		for _, from := range []int{4000, 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44056, 44100, 48000, 88200, 96000, 176400, 192000, 352800, 384000, 705600, 768000} {
			start := time.Now()
			r, err := NewResampler(from, to)
			if err != nil {
				t.Fatalf("%d → %d Hz: %v", from, to, err)
			}
			taps := len(r.taps) * len(r.taps[0])
			if taps > MaxFilterTaps || time.Since(start) > time.Second {
				t.Fatalf("%d → %d Hz: %d taps in %v", from, to, taps, time.Since(start))
			}
		}
	}
}
