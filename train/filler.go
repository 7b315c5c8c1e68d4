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

// FillerOptions add a filler unit (engine.FillerLabel) to a connected
// digit model: its states are trained on synthetic voices saying English
// words that are not digits (datasets.FillerTrainWords), so the decoder can
// reject such speech instead of naming a digit. The same voices also say
// the digits, or the classifier could learn "a synthetic voice" in place
// of "not a digit" and reject synthetic digits too.
type FillerOptions struct {
	// Voices are synthetic speakers (datasets.SynthSpeakers(Voices, Seed));
	// 0 trains no filler.
	Voices int
	Seed   uint64
	// PerWord voices say each filler word; DigitTakes takes of each digit
	// per voice are trained on as digits (the data cache's synthetic digits,
	// built in SynthDir when missing).
	PerWord    int
	DigitTakes int
	SynthDir   string
	// RealWords, when set (the real voices folder), adds the real
	// recorded non-digit words RealFillerWords may train on.
	RealWords string
	// Phrases, when set (a folder datasets.FetchHedgewarsVoices filled),
	// adds the spoken phrases of the hedgewars voice packs that
	// datasets.HeldOutHedgewarsVoice does not hold out: real non-digit
	// speech of many voices. The folder is fetched when empty.
	Phrases string `json:",omitempty"`
}

// RealFillerWords splits the real non-digit words of the voices folder
// (datasets.RealWords, sorted by word): every fourth word from the first is
// held out of any filler's training, to measure rejection on; the filler
// may train on the rest.
func RealFillerWords(dir string) (trainable, heldOut []datasets.Recording, err error) {
	all, err := datasets.RealWords(dir)
	for i, r := range all {
		if i%4 == 0 {
			heldOut = append(heldOut, r)
		} else {
			trainable = append(trainable, r)
		}
	}
	return trainable, heldOut, err
}

// DefaultFillerOptions are the default speech model's: the 50 voices of
// seed 1 (the data cache's synthetic digits, 2 takes each) saying each of
// the 209 filler words 3 times over.
func DefaultFillerOptions() FillerOptions {
	return FillerOptions{Voices: 50, Seed: 1, PerWord: 3, DigitTakes: 2}
}

// FillerVoiceNames are the espeak-ng voices (name with variant) the filler
// options train on: a measurement of rejection must use other voices.
func (o FillerOptions) FillerVoiceNames() (map[string]bool, error) {
	names := map[string]bool{}
	if o.Voices == 0 {
		return names, nil
	}
	sp, err := datasets.SynthSpeakers(o.Voices, o.Seed)
	for _, s := range sp {
		names[s.Voice.Name] = true
	}
	return names, err
}

// utterances renders the filler's training utterances at rate: synthetic
// digits and filler words, each padded with background-level silence (as
// FSDD's recordings are by paddedRecordings, with pads drawn between
// padMin and padMax seconds). Every tenth voice is held out.
func (o FillerOptions) utterances(rate int, padMin, padMax float64) ([]Utterance, error) {
	if o.Voices == 0 {
		return nil, nil
	}
	if o.SynthDir == "" {
		return nil, errors.New("train: a filler model needs a folder for its synthetic digits (SynthDir)")
	}
	if o.PerWord < 1 || o.PerWord > o.Voices {
		return nil, fmt.Errorf("train: each filler word said by %d of %d voices", o.PerWord, o.Voices)
	}
	speakers, err := datasets.SynthSpeakers(o.Voices, o.Seed)
	if err != nil {
		return nil, err
	}
	voiceIndex := map[string]int{}
	for i, s := range speakers {
		voiceIndex[s.Name()] = i
	}
	digits, err := datasets.BuildSynthDigits(o.SynthDir, datasets.SynthDigitOptions{Voices: o.Voices, Takes: o.DigitTakes, Seed: o.Seed, Rate: rate})
	if err != nil {
		return nil, err
	}
	words := datasets.FillerTrainWords()
	var real []datasets.Recording
	if o.RealWords != "" {
		if real, _, err = RealFillerWords(o.RealWords); err != nil {
			return nil, err
		}
	}
	if o.Phrases != "" {
		phrases, _, err := datasets.SplitHedgewarsPhrases(o.Phrases)
		if err != nil {
			return nil, err
		}
		real = append(real, phrases...)
	}
	synthetic := len(digits) + len(words)*o.PerWord
	utts := make([]Utterance, synthetic+len(real))
	errs := make([]error, len(utts))
	parallel.For(len(utts), func(i int) {
		rng := rand.New(rand.NewPCG(o.Seed, 0x66696c6c+uint64(i)))
		var a *frontend.Audio
		var label string
		var voice int
		switch {
		case i >= synthetic:
			a, errs[i] = frontend.ReadAudio(real[i-synthetic].Path, rate)
			label, voice = engine.FillerLabel, 1 // trained on; what is held out RealFillerWords and SplitHedgewarsPhrases left out
		case i < len(digits):
			a, errs[i] = frontend.ReadAudio(digits[i].Path, rate)
			label, voice = digits[i].Label, voiceIndex[digits[i].Speaker]
		default:
			k := i - len(digits)
			voice = (k/o.PerWord + (k%o.PerWord)*o.Voices/o.PerWord) % o.Voices
			a, errs[i] = datasets.SynthWord(words[k/o.PerWord], speakers[voice].Voice, rate, rng.Uint64())
			label = engine.FillerLabel
		}
		if errs[i] != nil {
			return
		}
		lead := padMin + (padMax-padMin)*rng.Float64()
		trail := padMin + (padMax-padMin)*rng.Float64()
		utts[i] = Utterance{Samples: datasets.PadSilence(a.Samples, a.Rate, lead, trail, rng), Words: []string{label},
			HeldOut: voice%10 == 0}
	})
	return utts, errors.Join(errs...)
}
