package datasets

import (
	"fmt"
	"math/rand/v2"

	"github.com/rfstream/rfstream/frontend"
)

// fluentFloor is how far below a recording's loudest 10 ms a frame may be
// and still count as the word's speech (30 dB): the silence a recording
// carries around its word is cut before words are run together.
const fluentFloor = 1e-3

// SpeechSpan is the stretch of x (samples) from the first to the last
// 10 ms frame whose power is within 30 dB of the loudest frame's, widened
// by one frame on each side; all of x when it has no such frame.
func SpeechSpan(x []float32, rate int) (int, int) {
	hop := max(rate/100, 1)
	var powers []float64
	var loudest float64
	for i := 0; i+hop <= len(x); i += hop {
		var s float64
		for _, v := range x[i : i+hop] {
			s += float64(v) * float64(v)
		}
		powers = append(powers, s/float64(hop))
		loudest = max(loudest, s/float64(hop))
	}
	first, last := -1, -1
	for k, p := range powers {
		if loudest > 0 && p >= loudest*fluentFloor {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		return 0, len(x)
	}
	return max(0, (first-1)*hop), min(len(x), (last+2)*hop)
}

// RenderFluentString builds the audio of a planned string said fluently:
// each part cut to its speech (SpeechSpan), the parts run together with no
// pause, each pair overlapping by a seeded 0 to maxOverlap seconds
// (cross-faded, as coarticulated words blur into each other; never more
// than a third of the shorter word), and the plan's leading and trailing
// gaps of the string's background around them. Its inner gaps are not used.
// It returns the audio and each word's span (an overlap's middle divides
// two words).
func RenderFluentString(p StringPlan, rate int, maxOverlap float64, seed uint64) (*frontend.Audio, []Span, error) {
	if len(p.Parts) == 0 {
		return nil, nil, fmt.Errorf("datasets: string of no parts")
	}
	if len(p.Gaps) != len(p.Parts)+1 {
		return nil, nil, fmt.Errorf("datasets: string of %d parts with %d gaps", len(p.Parts), len(p.Gaps))
	}
	if maxOverlap < 0 || maxOverlap > 0.5 {
		return nil, nil, fmt.Errorf("datasets: fluent overlap up to %g s (0 to 0.5)", maxOverlap)
	}
	rng := rand.New(rand.NewPCG(seed, 0x666c756e))
	var out []float32
	var spans []Span
	var quietest *frontend.Background
	for i, r := range p.Parts {
		a, err := frontend.ReadAudio(r.Path, rate)
		if err != nil {
			return nil, nil, err
		}
		if bg := frontend.EstimateBackground(a.Samples, rate); quietest == nil || bg.Level < quietest.Level {
			quietest = &bg
		}
		s, e := SpeechSpan(a.Samples, rate)
		word := a.Samples[s:e]
		ov := 0
		if i > 0 {
			ov = int(maxOverlap * rng.Float64() * float64(rate))
			ov = min(ov, len(word)/3, (len(out)-int(spans[i-1].Start*float64(rate)))/3)
		}
		start := len(out) - ov
		for k := 0; k < ov; k++ {
			// Linear cross-fade: the last word fades out as this one fades in.
			w := float32(k+1) / float32(ov+1)
			out[start+k] = out[start+k]*(1-w) + word[k]*w
		}
		out = append(out, word[ov:]...)
		if i > 0 {
			spans[i-1].End = float64(start+ov/2) / float64(rate)
		}
		spans = append(spans, Span{Word: r.Label, Start: float64(start+ov/2) / float64(rate), End: float64(len(out)) / float64(rate)})
	}
	lead := quietest.Noise(int(p.Gaps[0]*float64(rate)), rng)
	shift := float64(len(lead)) / float64(rate)
	for i := range spans {
		spans[i].Start += shift
		spans[i].End += shift
	}
	out = append(lead, out...)
	out = append(out, quietest.Noise(int(p.Gaps[len(p.Parts)]*float64(rate)), rng)...)
	normalisePeak(out)
	return &frontend.Audio{Rate: rate, Samples: out}, spans, nil
}
