package train

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rfstream/rfstream/augment"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// RealVoiceTraining adds the real recorded voices of the shared voices
// folder (datasets.RealVoiceDigits: three women and two men, one take of
// each digit) to a connected recipe. Each voice has one recording a digit
// where each FSDD speaker has forty, so its recordings are trained on
// Copies times: the first as recorded, the others each changed by its own
// seeded augment.Plan within SpeakerAugmentRanges (pitch, tempo, vocal
// tract, noise, room, telephone), so the few takes stand for a voice's
// range rather than being repeated verbatim.
type RealVoiceTraining struct {
	Dir string // the voices folder ("": no real voice)
	// Copies of each recording (0 or 1: once, as recorded).
	Copies int
	// Exclude names voices left out (a held-out voice of an evaluation).
	Exclude []string
}

// DefaultRealVoiceCopies is the real voices' weight in the shipped
// connected recipe (WithRealVoices): 10 copies give each real voice a
// quarter of one FSDD speaker's 40 training takes of a digit. Round N of
// experiments/journal/anyvoice.md chose it (N2) over FSDD alone on the dev
// folds; 40 copies (round M's M1) cost the held-out FSDD man too much.
const DefaultRealVoiceCopies = 10

// WithRealVoices is o plus what round N chose for the default connected
// model: the real voices in dir, each recording DefaultRealVoiceCopies
// times, and 400 fluent strings cut to their speech, overlapping by up to
// 60 ms, each played at a tempo within 1/1.25 to 1.25.
func WithRealVoices(o DigitStringOptions, dir string) DigitStringOptions {
	o.Voices.Real = RealVoiceTraining{Dir: dir, Copies: DefaultRealVoiceCopies}
	o.Voices.FluentStrings, o.Voices.FluentMaxOverlap, o.Voices.FluentMaxTempo = 400, 0.06, 1.25
	return o
}

// recordings are the voices' digits 0-9 (never "oh": the connected
// vocabulary has no "oh" unit unless the recipe trains one), excluded
// voices left out.
func (v RealVoiceTraining) recordings() ([]datasets.Recording, error) {
	if v.Dir == "" {
		return nil, nil
	}
	if v.Copies < 0 || v.Copies > 100 {
		return nil, fmt.Errorf("train: %d copies of the real voices (0 to 100)", v.Copies)
	}
	all, err := datasets.RealVoiceDigits(v.Dir)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(r datasets.Recording) bool {
		return r.Label == "oh" || slices.Contains(v.Exclude, r.Speaker)
	}), nil
}

// describe summarises the training for a model's metadata.
func (v RealVoiceTraining) describe(recs []datasets.Recording) string {
	if len(recs) == 0 {
		return ""
	}
	return fmt.Sprintf("%d voices × %d copies", len(datasets.Speakers(recs)), max(v.Copies, 1))
}

// augmentedCopies are copies 1 … Copies-1 of the real voices' recordings,
// each changed by its own plan and padded with seeded silence.
func (o DigitStringOptions) augmentedCopies(recs []datasets.Recording, rate int) ([]Utterance, error) {
	n := max(o.Voices.Real.Copies, 1) - 1
	out := make([]Utterance, len(recs)*n)
	errs := make([]error, len(out))
	ranges := SpeakerAugmentRanges()
	parallel.For(len(out), func(i int) {
		r, c := recs[i/n], i%n+1
		a, err := frontend.ReadAudio(r.Path, rate)
		if err != nil {
			errs[i] = err
			return
		}
		seed := o.Map.Seed ^ 0x7265616c<<20 + uint64(i)
		if a, err = augment.Draw(ranges, seed).Apply(a); err != nil {
			errs[i] = fmt.Errorf("%s copy %d: %w", r.Path, c, err)
			return
		}
		rng := rand.New(rand.NewPCG(seed, 0x706164))
		lead := o.PadMin + (o.PadMax-o.PadMin)*rng.Float64()
		trail := o.PadMin + (o.PadMax-o.PadMin)*rng.Float64()
		out[i] = Utterance{Samples: datasets.PadSilence(a.Samples, a.Rate, lead, trail, rng), Words: []string{r.Label}}
	})
	return out, errors.Join(errs...)
}

// DefaultFluentMaxOverlap and DefaultFluentMaxTempo shape the fluent
// strings of the default recipe: words cut to their speech, overlapping by
// up to 60 ms, the whole string played 1/1.25 to 1.25 times as fast.
const (
	DefaultFluentMaxOverlap = 0.06
	DefaultFluentMaxTempo   = 1.25
)

// overlappedStrings renders FluentStrings plans with the words cut to
// their speech and run together (datasets.RenderFluentString), each string
// then played at a seeded tempo within 1/FluentMaxTempo to FluentMaxTempo
// (1: as rendered); the words' spans scale with it.
func (o DigitStringOptions) overlappedStrings(plans []datasets.StringPlan, rate int) ([]Utterance, error) {
	v := o.Voices
	maxTempo := cmp.Or(v.FluentMaxTempo, 1)
	if maxTempo < 1 || maxTempo > 2 {
		return nil, fmt.Errorf("train: fluent strings' tempo up to %g× (1 to 2)", maxTempo)
	}
	out := make([]Utterance, len(plans))
	errs := make([]error, len(plans))
	parallel.For(len(plans), func(i int) {
		seed := o.Map.Seed ^ 0x6f7665726c6170 + uint64(i)<<20
		a, spans, err := datasets.RenderFluentString(plans[i], rate, v.FluentMaxOverlap, seed)
		if err != nil {
			errs[i] = err
			return
		}
		factor := 1.0
		if maxTempo > 1 {
			rng := rand.New(rand.NewPCG(seed, 0x74656d70))
			factor = math.Exp((2*rng.Float64() - 1) * math.Log(maxTempo))
			if a, err = augment.Tempo(a, factor); err != nil {
				errs[i] = err
				return
			}
		}
		u := Utterance{Samples: a.Samples, Words: plans[i].Words()}
		for _, sp := range spans {
			u.Spans = append(u.Spans, [2]float64{sp.Start / factor, sp.End / factor})
		}
		out[i] = u
	})
	return out, errors.Join(errs...)
}
