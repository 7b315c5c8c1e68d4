package frontend

import (
	"math"
	"testing"
)

func TestWarpHzIsLinearBelowItsCutMonotoneAndKeepsTheTopEdge(t *testing.T) {
	const hi = 4000.0
	for _, alpha := range []float64{0.8, 0.9, 1.1, 1.2, 1.4} {
		if got := WarpHz(hi, alpha, hi); math.Abs(got-hi) > 1e-9 {
			t.Errorf("warp %g moves the top edge to %g Hz", alpha, got)
		}
		if got := WarpHz(1000, alpha, hi); math.Abs(got-alpha*1000) > 1e-9 {
			t.Errorf("warp %g reads 1000 Hz at %g Hz, want %g", alpha, got, alpha*1000)
		}
		prev := -1.0
		for f := 0.0; f <= hi; f += 10 {
			w := WarpHz(f, alpha, hi)
			if w <= prev || w > hi+1e-9 {
				t.Fatalf("warp %g: %g Hz → %g Hz after %g: not increasing within the range", alpha, f, w, prev)
			}
			prev = w
		}
	}
	for _, none := range []float64{0, 1} {
		if WarpHz(1234, none, hi) != 1234 {
			t.Errorf("warp %g is not the identity", none)
		}
	}
}

// A tone at alpha·f heard through a bank warped by alpha peaks in the band
// where f peaks unwarped: the warp undoes a tract shorter by alpha.
func TestWarpedBankHearsAScaledToneInTheUnscaledBand(t *testing.T) {
	peak := func(cfg AudioConfig, f float64) int {
		x := make([]float32, 8000)
		for i := range x {
			x[i] = float32(0.5 * math.Sin(2*math.Pi*f*float64(i)/8000))
		}
		frames, _ := LogMel(cfg, x)
		row := frames.Data[10*frames.Stride : 10*frames.Stride+cfg.Mels]
		best := 0
		for b, v := range row {
			if v > row[best] {
				best = b
			}
		}
		return best
	}
	plain := DefaultAudioConfig()
	for _, alpha := range []float64{0.85, 1.15, 1.3} {
		warped := plain
		warped.Warp = alpha
		for _, f := range []float64{400, 900, 2000} {
			want, got := peak(plain, f), peak(warped, alpha*f)
			if got != want {
				t.Errorf("warp %g: %g Hz peaks in band %d, %g Hz unwarped in band %d", alpha, alpha*f, got, f, want)
			}
			if alpha > 1 && peak(plain, alpha*f) <= want {
				t.Errorf("warp %g: the unwarped bank already hears %g Hz in band %d: the test shows nothing", alpha, alpha*f, want)
			}
		}
	}
	bad := plain
	bad.Warp = 1.6
	if bad.Validate() == nil {
		t.Error("a warp of 1.6 passes validation")
	}
}
