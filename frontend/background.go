package frontend

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// backgroundOrder is the all-pole model's order: at 8 kHz ten poles give
// five resonances, enough for a room's hum and a microphone's roll-off and
// too few to copy a voice's formants out of a few quiet stretches.
const backgroundOrder = 10

// Background is a model of a recording's background: noise with the
// spectral envelope of its quietest stretches, at a given RMS level.
// White noise of the same RMS sounds far louder to a frontend with
// pre-emphasis than a microphone's mostly low-frequency background, so
// pauses rendered white stand out from the words they separate.
type Background struct {
	// Level is the RMS of the noise Background renders.
	Level float64
	// poles are the predictor coefficients a₁…a_p of 1/A(z),
	// A(z) = 1 + Σ a_k z⁻ᵏ; none means white.
	poles []float64
	// drive scales unit white noise so that the filtered output has RMS Level.
	drive float64
}

// EstimateBackground fits a Background to the quietest tenth (at least
// three) of samples' 10 ms stretches. Each stretch's own mean is removed
// first: an offset or a rumble slower than the stretch is no noise a
// pause continues (pre-emphasis takes it out before any detector hears
// it), and modelling it would put a pole at z = 1. The level is
// NoiseFloor's rule applied to what remains: the 10th percentile of the
// stretches' RMS about their means, never below 1e-5. A recording too
// short or too silent to fit falls back to white noise at that level.
func EstimateBackground(samples []float32, rate int) Background {
	hop := max(rate/100, 1)
	type stretch struct {
		at  int
		rms float64
	}
	var st []stretch
	for i := 0; i+hop <= len(samples); i += hop {
		var sum, sq float64
		for _, v := range samples[i : i+hop] {
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
		mean := sum / float64(hop)
		st = append(st, stretch{i, math.Sqrt(max(sq/float64(hop)-mean*mean, 0))})
	}
	b := Background{Level: 1e-5, drive: 1e-5}
	if len(st) == 0 {
		return b
	}
	slices.SortStableFunc(st, func(x, y stretch) int { return cmp.Compare(x.rms, y.rms) })
	b.Level = max(st[len(st)/10].rms, 1e-5)
	b.drive = b.Level
	if hop <= backgroundOrder {
		return b
	}
	use := min(max(len(st)/10, 3), len(st))
	r := make([]float64, backgroundOrder+1)
	x := make([]float64, hop)
	for _, s := range st[:use] {
		var mean float64
		for i, v := range samples[s.at : s.at+hop] {
			x[i] = float64(v)
			mean += x[i]
		}
		mean /= float64(hop)
		// A Hann window keeps the stretch's edges from leaking power into
		// the spectrum's valleys.
		for i := range x {
			x[i] = (x[i] - mean) * (0.5 - 0.5*math.Cos(2*math.Pi*(float64(i)+0.5)/float64(hop)))
		}
		for k := range r {
			for i := k; i < hop; i++ {
				r[k] += x[i] * x[i-k]
			}
		}
	}
	if !(r[0] > 0) {
		return b
	}
	// A floor 40 dB under the total power keeps the model well
	// conditioned when the quiet stretches are nearly tonal.
	r[0] *= 1 + 1e-4
	a, ok := levinson(r)
	if !ok {
		return b
	}
	b.poles = a
	b.drive = b.Level / math.Sqrt(impulseEnergy(a))
	return b
}

// levinson solves the normal equations of linear prediction for the
// autocorrelation r (Levinson–Durbin). It returns a₁…a_p with
// A(z) = 1 + Σ a_k z⁻ᵏ, and false when r is not positive definite.
func levinson(r []float64) ([]float64, bool) {
	p := len(r) - 1
	a := make([]float64, p+1)
	prev := make([]float64, p+1)
	a[0] = 1
	e := r[0]
	for i := 1; i <= p; i++ {
		acc := r[i]
		for k := 1; k < i; k++ {
			acc += a[k] * r[i-k]
		}
		refl := -acc / e
		if math.Abs(refl) >= 1 || math.IsNaN(refl) {
			return nil, false
		}
		copy(prev, a)
		for k := 1; k < i; k++ {
			a[k] = prev[k] + refl*prev[i-k]
		}
		a[i] = refl
		e *= 1 - refl*refl
	}
	return a[1:], true
}

// impulseEnergy is Σ h[n]² for the impulse response h of 1/A(z): the
// output power of unit white noise through the filter. The filter is
// stable (every reflection coefficient under one), so the sum converges;
// it stops when the response has decayed far below its peak.
func impulseEnergy(a []float64) float64 {
	y := make([]float64, len(a))
	var sum, peak float64
	for n := 0; n < 1<<16; n++ {
		v := 0.0
		if n == 0 {
			v = 1
		}
		for k, ak := range a {
			v -= ak * y[k]
		}
		copy(y[1:], y[:len(y)-1])
		y[0] = v
		sum += v * v
		peak = max(peak, math.Abs(v))
		if n > len(a) && n%64 == 0 {
			var tail float64
			for _, w := range y {
				tail = max(tail, math.Abs(w))
			}
			if tail < 1e-9*peak {
				break
			}
		}
	}
	return sum
}

// Noise returns n samples of the background. The filter runs through a
// warm-up first, so the noise starts in its steady state.
func (b Background) Noise(n int, rng *rand.Rand) []float32 {
	out := make([]float32, n)
	if len(b.poles) == 0 {
		for i := range out {
			out[i] = float32(b.drive * rng.NormFloat64())
		}
		return out
	}
	y := make([]float64, len(b.poles))
	const warmUp = 512
	for i := -warmUp; i < n; i++ {
		v := b.drive * rng.NormFloat64()
		for k, ak := range b.poles {
			v -= ak * y[k]
		}
		copy(y[1:], y[:len(y)-1])
		y[0] = v
		if i >= 0 {
			out[i] = float32(v)
		}
	}
	return out
}

// NoiseFloor estimates a recording's background level: the RMS of its
// quietest 10 ms stretches (the 10th percentile), never below 1e-5 so that
// digitally silent files still get an audible-to-the-frontend floor.
func NoiseFloor(samples []float32, rate int) float64 {
	hop := max(rate/100, 1)
	var rms []float64
	for i := 0; i+hop <= len(samples); i += hop {
		var s float64
		for _, v := range samples[i : i+hop] {
			s += float64(v) * float64(v)
		}
		rms = append(rms, math.Sqrt(s/float64(hop)))
	}
	if len(rms) == 0 {
		return 1e-5
	}
	slices.Sort(rms)
	return max(rms[len(rms)/10], 1e-5)
}
