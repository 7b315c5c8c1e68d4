package train

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// OhOptions teach a connected digit model "oh", the digit 0 as English
// speakers read it out in numbers, as a unit of its own
// (engine.OhLabel: an HMM chain apart from "zero"'s, printed as 0).
// FSDD has no "oh", so it comes from the synthetic voices of the filler
// (FillerOptions: the espeak-ng speakers that also say the synthetic
// digits): each says "oh" alone Takes times, and Strings strings are
// joined from their digits and their "oh"s (each draw as likely to be an
// "oh" as any one digit, so some strings say "oh" where others would say
// "zero"). The filler's held-out voices (every tenth) are held out here too.
type OhOptions struct {
	Takes   int // "oh" takes per voice; 0: no "oh" unit
	Strings int
}

// OhMeta is the model metadata key saying how a model learnt "oh" ("none"
// or its data); a model without it predates "oh".
const OhMeta = "oh"

// DefaultOhOptions are round 1's (experiments/journal/oh.md): 4 takes of
// "oh" by each of the filler's 50 voices and 300 strings joined from their
// digits and "oh"s. `train connected --oh-takes 4` uses them; the default
// recipe does not yet.
func DefaultOhOptions() OhOptions { return OhOptions{Takes: 4, Strings: 300} }

// describe is the model's OhMeta value.
func (o OhOptions) describe(f FillerOptions) string {
	if o.Takes == 0 || f.Voices == 0 {
		return "none"
	}
	return fmt.Sprintf("%d takes by %d espeak-ng voices of seed %d, %d strings joined from their digits and oh", o.Takes, f.Voices, f.Seed, o.Strings)
}

// utterances renders "oh" alone (padded as the filler's words are, pads
// drawn between padMin and padMax seconds) and the joined strings, at rate.
func (o OhOptions) utterances(f FillerOptions, rate int, padMin, padMax float64) ([]Utterance, error) {
	if o.Takes == 0 {
		return nil, nil
	}
	if f.Voices == 0 || f.SynthDir == "" {
		return nil, errors.New("train: \"oh\" is learnt from the filler's synthetic voices: it needs a filler (Voices, SynthDir)")
	}
	if o.Takes < 0 || o.Strings < 0 {
		return nil, fmt.Errorf("train: %d takes of \"oh\" and %d strings", o.Takes, o.Strings)
	}
	speakers, err := datasets.SynthSpeakers(f.Voices, f.Seed)
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for i, s := range speakers {
		held[s.Name()] = i%10 == 0 // as the filler holds its voices out
	}
	ohs, err := datasets.BuildSynthWord(f.SynthDir, "oh", engine.OhLabel, datasets.SynthDigitOptions{Voices: f.Voices, Takes: o.Takes, Seed: f.Seed, Rate: rate})
	if err != nil {
		return nil, err
	}
	utts := make([]Utterance, len(ohs))
	errs := make([]error, len(ohs))
	parallel.For(len(ohs), func(i int) {
		a, err := frontend.ReadAudio(ohs[i].Path, rate)
		if err != nil {
			errs[i] = err
			return
		}
		rng := rand.New(rand.NewPCG(f.Seed, 0x6f68+uint64(i)))
		lead := padMin + (padMax-padMin)*rng.Float64()
		trail := padMin + (padMax-padMin)*rng.Float64()
		utts[i] = Utterance{Samples: datasets.PadSilence(a.Samples, a.Rate, lead, trail, rng), Words: []string{engine.OhLabel},
			HeldOut: held[ohs[i].Speaker]}
	})
	if err := errors.Join(errs...); err != nil || o.Strings == 0 {
		return utts, err
	}
	strs, err := o.strings(f, ohs, held, rate)
	return append(utts, strs...), err
}

// strings joins Strings strings from the training voices' synthetic digits
// and "oh"s, one voice a string, the words' times known.
func (o OhOptions) strings(f FillerOptions, ohs []datasets.Recording, held map[string]bool, rate int) ([]Utterance, error) {
	digits, err := datasets.BuildSynthDigits(f.SynthDir, datasets.SynthDigitOptions{Voices: f.Voices, Takes: f.DigitTakes, Seed: f.Seed, Rate: rate})
	if err != nil {
		return nil, err
	}
	var pool []datasets.Recording
	for _, r := range append(digits, ohs...) {
		if !held[r.Speaker] {
			pool = append(pool, r)
		}
	}
	plans, err := datasets.PlanStrings(pool, datasets.StringOptions{Count: o.Strings, Seed: f.Seed + 3000})
	if err != nil {
		return nil, err
	}
	return renderPlans(plans, rate, func(i int) uint64 { return f.Seed + 0x6f68<<20 + uint64(i) })
}
