package augment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rfstream/rfstream/frontend"
)

// RoomResponse is a room's impulse response at rate: the direct sound,
// then a tail of seeded Gaussian reflections whose energy falls 60 dB in
// rt60 seconds (a diffuse field's exponential decay) and whose total
// energy is wet times the direct sound's.
func RoomResponse(rate int, rt60, wet float64, rng *rand.Rand) ([]float32, error) {
	if !(rt60 >= 0.05 && rt60 <= 3) || !(wet >= 0 && wet <= 10) {
		return nil, fmt.Errorf("augment: reverberation time %g s (0.05–3), wet/dry energy %g (0–10)", rt60, wet)
	}
	n := int(rt60 * float64(rate))
	h := make([]float64, n)
	h[0] = 1
	// Energy ∝ exp(−13.8 t/rt60) is −60 dB at rt60: amplitude exp(−6.9 t/rt60).
	var tail float64
	for i := 1; i < n; i++ {
		h[i] = rng.NormFloat64() * math.Exp(-6.9078*float64(i)/float64(n))
		tail += h[i] * h[i]
	}
	g := 0.0
	if tail > 0 {
		g = math.Sqrt(wet / tail)
	}
	out := make([]float32, n)
	out[0] = 1
	for i := 1; i < n; i++ {
		out[i] = float32(g * h[i])
	}
	return out, nil
}

// Reverb plays a in a room of reverberation time rt60 and wet/dry energy
// ratio wet (RoomResponse), keeping its length and its power.
func Reverb(a *frontend.Audio, rt60, wet float64, rng *rand.Rand) (*frontend.Audio, error) {
	h, err := RoomResponse(a.Rate, rt60, wet, rng)
	if err != nil {
		return nil, err
	}
	y := convolve(a.Samples, h)
	if p := power(y); p > 0 {
		g := float32(math.Sqrt(power(a.Samples) / p))
		for i := range y {
			y[i] *= g
		}
	}
	return &frontend.Audio{Rate: a.Rate, Samples: y}, nil
}

// convolve is x*h cut to x's length (direct form: responses are short and
// words are a second long).
func convolve(x, h []float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		if v == 0 {
			continue
		}
		for k := 0; k < len(h) && i+k < len(y); k++ {
			y[i+k] += v * h[k]
		}
	}
	return y
}
