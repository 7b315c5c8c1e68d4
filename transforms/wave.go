package transforms

import (
	"fmt"
	"math"
)

// TempoWarp plays samples factor times as fast without changing their
// pitch (factor 2 halves the duration), by waveform-similarity
// overlap-add (WSOLA): 20 ms Hann windows are laid down every 10 ms of
// output, each taken from near its nominal input position where it best
// continues the previous window, so periods line up and no pitch moves.
func TempoWarp(samples []float32, rate int, factor float64) ([]float32, error) {
	if !(factor >= 0.25 && factor <= 4) || rate < 1000 {
		return nil, fmt.Errorf("transforms: tempo factor %v (0.25..4) at %d Hz", factor, rate)
	}
	n := 2 * (rate / 100) // 20 ms
	hop := n / 2
	tol := rate / 200 // search ±5 ms
	if len(samples) < n {
		return append([]float32(nil), samples...), nil
	}
	win := make([]float64, n)
	for i := range win {
		win[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
	}
	outLen := int(math.Round(float64(len(samples)) / factor))
	out := make([]float64, outLen+n)
	norm := make([]float64, outLen+n)
	at := func(i int) float64 {
		if i < 0 || i >= len(samples) {
			return 0
		}
		return float64(samples[i])
	}
	prev := 0 // input position of the previous window
	for k := 0; k*hop < outLen; k++ {
		pos := int(math.Round(float64(k*hop) * factor))
		if k > 0 {
			// The natural continuation of the previous window starts at
			// prev+hop; pick the offset whose first half matches it best.
			best, bestScore := 0, math.Inf(-1)
			for d := -tol; d <= tol; d++ {
				var s float64
				for i := 0; i < hop; i++ {
					s += at(prev+hop+i) * at(pos+d+i)
				}
				if s > bestScore {
					best, bestScore = d, s
				}
			}
			pos += best
		}
		for i := 0; i < n; i++ {
			out[k*hop+i] += win[i] * at(pos+i)
			norm[k*hop+i] += win[i]
		}
		prev = pos
	}
	res := make([]float32, outLen)
	for i := range res {
		if norm[i] > 1e-6 {
			res[i] = float32(out[i] / norm[i])
		}
	}
	return res, nil
}

// PitchShift raises (or, for negative cents, lowers) the pitch of samples
// by cents without changing their duration: a tempo warp by 1/r followed
// by resampling by r, with r = 2^(cents/1200).
func PitchShift(samples []float32, rate int, cents float64) ([]float32, error) {
	if math.Abs(cents) > 2400 {
		return nil, fmt.Errorf("transforms: pitch shift of %v cents (at most ±2400)", cents)
	}
	r := math.Pow(2, cents/1200)
	slow, err := TempoWarp(samples, rate, 1/r)
	if err != nil {
		return nil, err
	}
	return resampleBy(slow, r, len(samples)), nil
}

// resampleBy reads x at positions i·step for i < n with a Blackman-windowed
// sinc, low-passed below the new Nyquist frequency when step > 1.
func resampleBy(x []float32, step float64, n int) []float32 {
	const zc = 12
	fc := 0.5 / math.Max(1, step) // cut-off in cycles per input sample
	width := zc / (2 * fc)
	out := make([]float32, n)
	for i := range out {
		t := float64(i) * step
		lo, hi := int(math.Ceil(t-width)), int(math.Floor(t+width))
		var s, wsum float64
		for j := max(lo, 0); j <= hi && j < len(x); j++ {
			d := t - float64(j)
			k := 2 * fc
			if d != 0 {
				k = math.Sin(2*math.Pi*fc*d) / (math.Pi * d)
			}
			u := d / width
			w := k * (0.42 + 0.5*math.Cos(math.Pi*u) + 0.08*math.Cos(2*math.Pi*u))
			s += w * float64(x[j])
			wsum += w
		}
		// Normalising by the taps' sum keeps unit gain; near the ends,
		// where few taps remain, the plain sum is the better estimate.
		if wsum > 0.5 {
			s /= wsum
		}
		out[i] = float32(s)
	}
	return out
}
