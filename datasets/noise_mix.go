package datasets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// MixNoise adds noise n (at least len(x) samples; a silent n adds nothing)
// to x, scaled so that signalPower over the noise's mean power is snr dB.
func MixNoise(x []float32, signalPower float64, n []float64, snr float64) {
	var p float64
	for _, v := range n[:len(x)] {
		p += v * v
	}
	if len(x) == 0 || p == 0 {
		return
	}
	p /= float64(len(x))
	g := math.Sqrt(signalPower / math.Pow(10, snr/10) / p)
	for i := range x {
		x[i] += float32(g * n[i])
	}
}

// brownLeak is the pole of brownNoise's integrator: close enough to 1 that
// the spectrum falls 6 dB an octave from a few hertz up (about 6 Hz at
// 8 kHz), far enough that the noise does not wander off as a random walk.
const brownLeak = 0.995

// brownNoise is white noise through a leaky integrator (1/f² power, "red"
// noise), started from its stationary distribution.
func brownNoise(n int, rng *rand.Rand) []float64 {
	out := make([]float64, n)
	b := rng.NormFloat64() / math.Sqrt(1-brownLeak*brownLeak)
	for i := range out {
		b = brownLeak*b + rng.NormFloat64()
		out[i] = b
	}
	return out
}

// ActivePower is the mean power of the speech in x: over the 10 ms frames
// no more than 30 dB below the loudest one, so the pauses around and
// between words do not dilute it (the level an SNR is stated against,
// measured the same way on joined recordings and on whole synthesised
// strings). 0 for silence.
func ActivePower(x []float32, rate int) float64 {
	hop := max(rate/100, 1)
	var frames []float64
	var loudest float64
	for i := 0; i+hop <= len(x); i += hop {
		var s float64
		for _, v := range x[i : i+hop] {
			s += float64(v) * float64(v)
		}
		frames = append(frames, s/float64(hop))
		loudest = max(loudest, s/float64(hop))
	}
	var sum float64
	var n int
	for _, p := range frames {
		if p > 0 && p >= loudest*1e-3 {
			sum += p
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Babble is n samples of talkers voices speaking at once: each talker says
// clips drawn from pool back to back, from a random point of its first
// clip, every clip scaled to unit active power so no voice dominates.
func Babble(n, talkers, rate int, pool [][]float32, rng *rand.Rand) ([]float64, error) {
	if talkers < 1 || talkers > 100 {
		return nil, fmt.Errorf("datasets: babble of %d talkers (1 to 100)", talkers)
	}
	var usable [][]float32
	var gains []float64
	for _, c := range pool {
		if p := ActivePower(c, rate); p > 0 {
			usable = append(usable, c)
			gains = append(gains, 1/math.Sqrt(p))
		}
	}
	if len(usable) == 0 {
		return nil, errors.New("datasets: babble needs at least one clip that is not silent")
	}
	out := make([]float64, n)
	for range talkers {
		k := rng.IntN(len(usable))
		at := -rng.IntN(len(usable[k])) // start inside the first clip
		for at < n {
			c, g := usable[k], gains[k]
			for j, v := range c {
				if i := at + j; i >= 0 && i < n {
					out[i] += g * float64(v)
				}
			}
			at += len(c)
			k = rng.IntN(len(usable))
		}
	}
	return out, nil
}
