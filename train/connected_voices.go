package train

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// ConnectedVoices widen a connected digit model's training beyond FSDD's
// few men and its pauses: synthesisers' speakers (rfstream data voices)
// saying the digits alone and whole digit strings fluently, and strings
// joined from the training recordings with little or no pause between
// words (the fluent strings' words run together, and a model that only
// heard pauses merges them: experiments/journal/anyvoice.md).
type ConnectedVoices struct {
	// Engines are the synthesisers whose voice sets are trained on (none:
	// FSDD alone). Their digits join the training recordings: each is
	// padded and may be joined into strings as FSDD's takes are. A zero
	// Engines.Set means datasets.DefaultVoiceSetOptions.
	Engines EngineVoices
	// EngineStrings trains on each set's whole spoken strings too. They
	// have no word times: each string's speech region is split uniformly
	// over its words' states and the alignment passes place the words.
	EngineStrings bool
	// FluentStrings more strings are joined from the training recordings
	// with 0 to FluentMaxGap seconds between words (0: none).
	FluentStrings int
	FluentMaxGap  float64 // 0: DefaultFluentMaxGap
	// FluentMaxOverlap, when positive, renders the fluent strings with each
	// word cut to its speech and the words overlapping by up to this many
	// seconds (datasets.RenderFluentString) instead of with short gaps;
	// FluentMaxTempo (> 1) then plays each at a seeded tempo within
	// 1/FluentMaxTempo to FluentMaxTempo.
	FluentMaxOverlap float64
	FluentMaxTempo   float64
	// Real adds the real recorded voices (three women, two men).
	Real RealVoiceTraining
}

// DefaultFluentMaxGap is the longest pause between a fluent string's
// words: shorter than the 0.1 s the ordinary joined strings start at.
const DefaultFluentMaxGap = 0.05

// EngineVoicesMeta is the model metadata key naming the synthesised
// voices a connected model trained on besides FSDD ("none" or a summary).
const EngineVoicesMeta = "engine_voices"

// describe summarises the voices for the model's metadata.
func (v ConnectedVoices) describe(sets []datasets.VoiceSet) string {
	var parts []string
	for _, s := range sets {
		what := fmt.Sprintf("%s: %d speakers' digits", s.Engine, len(s.Speakers))
		if v.EngineStrings {
			what += " and strings"
		}
		parts = append(parts, what)
	}
	if v.FluentStrings > 0 && v.fluentOverlapped() {
		parts = append(parts, fmt.Sprintf("%d fluent strings (overlap 0–%g s, tempo to %g×)", v.FluentStrings, v.FluentMaxOverlap, cmp.Or(v.FluentMaxTempo, 1)))
	} else if v.FluentStrings > 0 {
		parts = append(parts, fmt.Sprintf("%d fluent strings (gaps 0–%g s)", v.FluentStrings, cmp.Or(v.FluentMaxGap, DefaultFluentMaxGap)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// sets builds (or finds) the engines' voice sets, with progress on log
// unless the engines name their own; none when no engine is named.
func (v ConnectedVoices) sets(log io.Writer) ([]datasets.VoiceSet, error) {
	ev := v.Engines
	if ev.Log == nil {
		ev.Log = log
	}
	if len(ev.Engines) == 0 {
		return nil, nil
	}
	if ev.Dir == "" {
		return nil, errors.New("train: connected training on engine voices needs their folder (ConnectedVoices.Engines.Dir)")
	}
	if ev.Set == (datasets.VoiceSetOptions{}) {
		ev.Set = datasets.DefaultVoiceSetOptions()
	}
	return BuildEngineVoices(ev, ev.SkipMissing, ev.Log)
}

// engineDigits are the sets' digits said alone, to be trained on as FSDD's
// recordings are.
func engineDigits(sets []datasets.VoiceSet) []datasets.Recording {
	var recs []datasets.Recording
	for _, s := range sets {
		recs = append(recs, s.Digits...)
	}
	return recs
}

// engineStrings reads the sets' whole spoken strings at rate, each padded
// with seeded background-level silence between padMin and padMax seconds
// (as the recordings are), with no word times.
func engineStrings(sets []datasets.VoiceSet, rate int, padMin, padMax float64, seed uint64) ([]Utterance, error) {
	var us []datasets.Utterance
	for _, s := range sets {
		us = append(us, s.Strings...)
	}
	out := make([]Utterance, len(us))
	errs := make([]error, len(us))
	parallel.For(len(us), func(i int) {
		a, err := frontend.ReadAudio(us[i].Path, rate)
		if err != nil {
			errs[i] = err
			return
		}
		rng := rand.New(rand.NewPCG(seed, 0x656e6773+uint64(i)))
		lead := padMin + (padMax-padMin)*rng.Float64()
		trail := padMin + (padMax-padMin)*rng.Float64()
		out[i] = Utterance{Samples: datasets.PadSilence(a.Samples, a.Rate, lead, trail, rng), Words: slices.Clone(us[i].Words)}
	})
	return out, errors.Join(errs...)
}

// fluentStrings renders FluentStrings strings joined from the recordings
// not held out with 0 to FluentMaxGap seconds between words, the words'
// times known from their construction.
func (o DigitStringOptions) fluentStrings(trainRecs []datasets.Recording, held func(datasets.Recording) bool, rate int) ([]Utterance, error) {
	v := o.Voices
	if v.FluentMaxGap == 0 {
		v.FluentMaxGap = DefaultFluentMaxGap
	}
	if v.FluentMaxGap < 0 {
		return nil, fmt.Errorf("train: fluent strings with gaps up to %g s", v.FluentMaxGap)
	}
	pool := notHeld(trainRecs, held)
	plans, err := datasets.PlanStrings(pool, datasets.StringOptions{Count: v.FluentStrings, MinGap: 0, MaxGap: v.FluentMaxGap, Seed: o.Map.Seed + 3000})
	if err != nil {
		return nil, err
	}
	if v.fluentOverlapped() {
		return o.overlappedStrings(plans, rate)
	}
	return renderPlans(plans, rate, func(i int) uint64 { return o.Map.Seed ^ 0x666c75656e74 + uint64(i)<<20 })
}

// withVoices adds o.Voices to a connected recipe's training: the engines'
// digits to the recordings (returned), their strings and the fluent
// strings as utterances, and a summary for the model's metadata.
func (o DigitStringOptions) withVoices(trainRecs []datasets.Recording, held func(datasets.Recording) bool, rate int) ([]datasets.Recording, []Utterance, string, error) {
	sets, err := o.Voices.sets(o.Log)
	if err != nil {
		return nil, nil, "", err
	}
	real, err := o.Voices.Real.recordings()
	if err != nil {
		return nil, nil, "", err
	}
	recs := append(slices.Clone(trainRecs), engineDigits(sets)...)
	recs = append(recs, real...)
	utts, err := o.augmentedCopies(real, rate)
	if err != nil {
		return nil, nil, "", err
	}
	if o.Voices.EngineStrings {
		es, err := engineStrings(sets, rate, o.PadMin, o.PadMax, o.Map.Seed)
		if err != nil {
			return nil, nil, "", err
		}
		utts = append(utts, es...)
	}
	if o.Voices.FluentStrings > 0 {
		fl, err := o.fluentStrings(recs, held, rate)
		if err != nil {
			return nil, nil, "", err
		}
		utts = append(utts, fl...)
	}
	desc := o.Voices.describe(sets)
	if r := o.Voices.Real.describe(real); r != "" {
		desc = strings.TrimPrefix(desc+"; real voices: "+r, "none; ")
	}
	return recs, utts, desc, nil
}

// fluentOverlapped says whether the fluent strings run cut words together
// (overlap or tempo set) rather than joining them with short gaps.
func (v ConnectedVoices) fluentOverlapped() bool {
	return v.FluentMaxOverlap > 0 || v.FluentMaxTempo > 1
}
