package frontend

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// quantised8 is what the decoders make of 8-bit samples x: the samples
// with the 8-bit noise filter applied.
func quantised8(x []float32, rate int) []float32 {
	y := slices.Clone(x)
	suppressQuantisationNoise(y, rate, 8)
	return y
}

// ditheredTo8Bits rounds x to 8-bit steps after adding TPDF dither, as sox
// and ffmpeg do by default when they write 8 bits.
func ditheredTo8Bits(x []float64, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, len(x))
	for i, v := range x {
		d := r.Float64() - r.Float64() // triangular, ±1 step
		q := math.Round(v*128 + d)
		out[i] = float32(max(-128, min(q, 127)) / 128)
	}
	return out
}

// snrAgainst is the power of clean over that of (got − clean), in dB.
func snrAgainst(clean []float64, got []float32) float64 {
	var s, e float64
	for i, v := range clean {
		s += v * v
		d := float64(got[i]) - v
		e += d * d
	}
	return 10 * math.Log10(s/e)
}

// A voice a few 8-bit steps loud comes out of the filter closer to what
// was recorded; a loud one is not harmed; silence loses its noise.
func TestQuantisationNoiseFilterCleansQuietSound(t *testing.T) {
	const rate = 8000
	tone := func(amp float64) []float64 {
		x := make([]float64, rate) // one second: a vowel-like tone and two harmonics
		for i := range x {
			ph := 2 * math.Pi * 220 * float64(i) / rate
			x[i] = amp * (math.Sin(ph) + 0.5*math.Sin(2*ph) + 0.25*math.Sin(3*ph)) / 1.75
		}
		return x
	}
	for _, c := range []struct {
		amp, minGain float64 // least SNR gained, dB
	}{{0.02, 6}, {0.5, 0}} {
		clean := tone(c.amp)
		noisy := ditheredTo8Bits(clean, 1)
		before := snrAgainst(clean, noisy)
		after := snrAgainst(clean, quantised8(noisy, rate))
		t.Logf("amplitude %g: %.1f dB → %.1f dB", c.amp, before, after)
		if after < before+c.minGain {
			t.Errorf("amplitude %g: SNR %.1f dB before the filter, %.1f after; want at least %+.0f dB", c.amp, before, after, c.minGain)
		}
	}
	silence := ditheredTo8Bits(make([]float64, rate), 2)
	power := func(x []float32) float64 {
		var s float64
		for _, v := range x {
			s += float64(v) * float64(v)
		}
		return s / float64(len(x))
	}
	if in, out := power(silence), power(quantised8(silence, rate)); out > in/100 {
		t.Errorf("dithered silence: power %.3g in, %.3g out; want 20 dB less", in, out)
	}
}

// Only 8-bit (and shallower) samples are filtered, in place and at their
// length, whatever the length or rate.
func TestQuantisationNoiseFilterKeepsDeepSamplesAndLengths(t *testing.T) {
	x := ditheredTo8Bits(make([]float64, 1000), 3)
	for _, bits := range []int{16, 24, 32} {
		y := slices.Clone(x)
		suppressQuantisationNoise(y, 8000, bits)
		if !slices.Equal(x, y) {
			t.Errorf("%d-bit samples changed", bits)
		}
	}
	for _, n := range []int{0, 1, 2, 63, 64, 65, 4097} {
		for _, rate := range []int{1000, 8000, 44100, 768000} {
			y := make([]float32, n)
			for i := range y {
				y[i] = 0.5
			}
			suppressQuantisationNoise(y, rate, 8)
			for i, v := range y {
				if math.IsNaN(float64(v)) || v < -1 || v > 1 {
					t.Fatalf("%d samples at %d Hz: sample %d is %v", n, rate, i, v)
				}
			}
		}
	}
}
