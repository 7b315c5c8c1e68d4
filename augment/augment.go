// Package augment makes new training audio from old by the changes a new
// voice or a new channel brings: pitch (cents), tempo, vocal-tract length
// (a warp of the spectral envelope), additive noise at a chosen SNR,
// reverberation, telephone band and codecs, and level. Every random draw
// comes from a seed, so a plan applied twice gives the same samples.
package augment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/sox"
)

// Pitch moves every frequency by cents, keeping the duration (sox pitch:
// resampling plus WSOLA, so the formants move with the harmonics, as the
// invariance paper's pitch group does).
func Pitch(a *frontend.Audio, cents float64) (*frontend.Audio, error) {
	if cents == 0 {
		return clone(a), nil
	}
	if math.IsNaN(cents) || math.Abs(cents) > 2400 {
		return nil, fmt.Errorf("augment: pitch shift %g cents (within ±2400)", cents)
	}
	return sox.Effects(a, "pitch", strconv.FormatFloat(cents, 'f', 1, 64))
}

// Tempo plays a factor times faster without moving its pitch (sox tempo,
// tuned for speech).
func Tempo(a *frontend.Audio, factor float64) (*frontend.Audio, error) {
	if factor == 1 {
		return clone(a), nil
	}
	if !(factor >= 0.25 && factor <= 4) {
		return nil, fmt.Errorf("augment: tempo factor %g (0.25 to 4)", factor)
	}
	return sox.Effects(a, "tempo", "-s", strconv.FormatFloat(factor, 'f', 4, 64))
}

// PitchTempo is Pitch and then Tempo in one pass of sox.
func PitchTempo(a *frontend.Audio, cents, factor float64) (*frontend.Audio, error) {
	if cents == 0 {
		return Tempo(a, factor)
	}
	if factor == 1 {
		return Pitch(a, cents)
	}
	if math.IsNaN(cents) || math.Abs(cents) > 2400 || !(factor >= 0.25 && factor <= 4) {
		return nil, fmt.Errorf("augment: pitch shift %g cents (within ±2400), tempo factor %g (0.25 to 4)", cents, factor)
	}
	return sox.Effects(a, "pitch", strconv.FormatFloat(cents, 'f', 1, 64), "tempo", "-s", strconv.FormatFloat(factor, 'f', 4, 64))
}

// Level scales a by db decibels.
func Level(a *frontend.Audio, db float64) *frontend.Audio {
	out := clone(a)
	g := float32(math.Pow(10, db/20))
	for i := range out.Samples {
		out.Samples[i] *= g
	}
	return out
}

// Noise adds noise of kind ("white", "pink", or "background": the
// recording's own background, its quietest stretches' spectrum and level
// continued, frontend.EstimateBackground) so that the recording's power
// over the noise's is snr dB.
func Noise(a *frontend.Audio, kind string, snr float64, rng *rand.Rand) (*frontend.Audio, error) {
	if math.IsNaN(snr) || math.IsInf(snr, 0) {
		return nil, fmt.Errorf("augment: SNR %g dB", snr)
	}
	out := clone(a)
	p := power(a.Samples)
	if p == 0 {
		return out, nil
	}
	if kind != "background" {
		return out, datasets.AddNoise(out.Samples, p, datasets.Noise{Kind: kind, SNR: snr}, rng)
	}
	n := frontend.EstimateBackground(a.Samples, a.Rate).Noise(len(a.Samples), rng)
	pn := power(n)
	if pn == 0 {
		return nil, fmt.Errorf("augment: the recording's background is silent")
	}
	g := float32(math.Sqrt(p / math.Pow(10, snr/10) / pn))
	for i, v := range n {
		out.Samples[i] += g * v
	}
	return out, nil
}

func power(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s / float64(len(x))
}

func clone(a *frontend.Audio) *frontend.Audio {
	return &frontend.Audio{Rate: a.Rate, Samples: append([]float32(nil), a.Samples...)}
}
