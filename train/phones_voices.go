package train

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/augment"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/progress"
)

// PhoneVoices widen a phone model's training beyond the espeak-ng corpus:
// other synthesisers' voices with their own phone labels, FSDD's digit
// words and augmented copies.
type PhoneVoices struct {
	// Engines are the synthesisers whose voices train (datasets.Engines'
	// names). Empty, with Score empty too: the espeak-ng corpus alone,
	// read as LoadEspeakPhones reads it.
	Engines []string
	// Score are the engines whose test speakers are scored (empty: those
	// of Engines). An engine scored and not trained is held out.
	Score []string
	// Dir caches the flite and festival phone corpora.
	Dir    string
	Corpus datasets.EnginePhoneOptions
	// EspeakPerVoice caps the espeak-ng sentences each training voice
	// gives (0: all of PhoneOptions.Espeak.TrainPerVoice).
	EspeakPerVoice int
	// FSDD is the FSDD recordings folder; FSDDPerDigit recordings of each
	// digit from each speaker's training takes (5–49, the first ones) are
	// added, labelled with the digit word's pronunciation (0: none).
	FSDD         string
	FSDDPerDigit int
	// Augment is the fraction of training utterances given one copy
	// changed by a seeded augment.Plan within AugmentRanges.
	Augment       float64
	AugmentRanges augment.Ranges
	// FirstLabels says where the first labels of the flite, festival and
	// FSDD utterances come from (FirstLabelsEngine, FirstLabelsFlat,
	// FirstLabelsAligned; empty: the engine's). AlignModel is the phone
	// model that aligns them (empty: the espeak-ng-only model, trained
	// first).
	FirstLabels, AlignModel string
	// Real is the voices folder (datasets.RealPhoneRecordings) whose
	// RealSpeakers.Train speakers' recordings train, labelled with the
	// pronunciations of Lexicon (a file; empty: datasets.DefaultLexiconPath).
	// Empty: no real speech.
	Real, Lexicon string
	RealSpeakers  datasets.RealPhoneSplit
	// RealCopies gives every real training recording (not the held-out
	// ones) this many more copies, each changed by its own plan within
	// AugmentRanges from a stream of its own, so the other utterances and
	// their copies stay as they were: more weight on the only real speech.
	RealCopies int
	// LexiconLabels labels every engine's sentences (training, development
	// and test) with Lexicon's phones of their words instead of the
	// engine's own phones, and FSDD's digits with their words' lexicon
	// phones, so every voice's labels mean the same; the engines' phone
	// times are then dropped (the first labels are flat, or aligned when
	// FirstLabels says so, for espeak-ng's sentences too).
	LexiconLabels bool
	// SkipMissing leaves out an engine that is not installed, or FSDD
	// when it is not found, with a line on the log, instead of failing.
	SkipMissing bool
}

// Used says whether the options differ from the espeak-ng corpus alone.
func (v PhoneVoices) Used() bool { return len(v.Engines) > 0 || len(v.Score) > 0 || v.Real != "" }

// Describe is the recipe in one line, for a model's meta and reports.
func (v PhoneVoices) Describe() string {
	c := v.Corpus
	s := fmt.Sprintf("engines %s (flite/festival: %d speakers × %d sentences, ±%g cents, tempo to %g×, seed %d; espeak-ng per voice %d); FSDD %d per digit and speaker; augmented copies %.2f",
		strings.Join(v.Engines, ","), c.Speakers, c.PerSpeaker, c.Cents, c.MaxTempo, c.Seed, v.EspeakPerVoice, v.FSDDPerDigit, v.Augment)
	if v.LexiconLabels {
		s += "; every label from the lexicon"
	}
	if v.FirstLabels != "" && v.FirstLabels != FirstLabelsEngine {
		s += "; first labels " + v.FirstLabels
	}
	if v.Real != "" {
		s += "; real speakers " + strings.Join(v.realSpeakers().Train, ",") + " with the lexicon's phones"
		if v.RealCopies > 0 {
			s += fmt.Sprintf(", %d augmented copies each", v.RealCopies)
		}
	}
	return s
}

// phoneRole is what an engine speaker's sentences are for.
type phoneRole int

const (
	roleTrain phoneRole = iota
	roleDev
	roleTest
)

// engineSpeakerRole splits an engine's speaker table: the last nVoices
// speakers (every voice once, since the table takes the voices in turn)
// are test speakers, the one before them a development speaker, the rest
// train.
func engineSpeakerRole(i, speakers, nVoices int) phoneRole {
	switch {
	case i >= speakers-nVoices:
		return roleTest
	case i == speakers-nVoices-1:
		return roleDev
	}
	return roleTrain
}

// LoadVoicePhones reads the phone corpora of o.Voices: the espeak-ng
// corpus (its training and development voices when espeak-ng trains, its
// test voices when it is scored), each other engine's corpus split by
// engineSpeakerRole, FSDD's digit words, and augmented copies.
func LoadVoicePhones(o PhoneOptions, log io.Writer) (*PhoneData, error) {
	v := o.Voices
	if err := checkFirstLabels(v.FirstLabels); err != nil {
		return nil, err
	}
	score := v.Score
	if len(score) == 0 {
		score = v.Engines
	}
	d := &PhoneData{Source: "voices: trained on " + strings.Join(v.Engines, ",") + "; scored on " + strings.Join(score, ","), Phones: datasets.Phones}
	var lex *lexiconLabeller
	if v.LexiconLabels {
		l, err := datasets.LoadLexicon(v.Lexicon)
		if err != nil {
			return nil, err
		}
		lex = &lexiconLabeller{lex: l, missing: datasets.MissingWords{}}
		d.Source += "; labels from the lexicon"
		d.Phones = datasets.LexiconPhones
	}
	// others are the training utterances not from espeak-ng (their first
	// labels follow v.FirstLabels).
	var others []int
	addedSince := func(n0 int) {
		for i := n0; i < len(d.Train); i++ {
			others = append(others, i)
		}
	}
	for _, name := range unionInOrder(v.Engines, score) {
		trains, scores := slices.Contains(v.Engines, name), slices.Contains(score, name)
		var err error
		n0 := len(d.Train)
		if name == "espeak-ng" {
			err = addEspeakPhones(o, d, trains, scores, lex, log)
			if lex != nil {
				addedSince(n0) // no engine times: its first labels are chosen as the others'
			}
		} else {
			err = addEnginePhones(v, name, d, trains, scores, lex, log)
			addedSince(n0)
		}
		if err != nil {
			return nil, err
		}
	}
	if lex != nil {
		fmt.Fprintf(log, "phones: the engines' sentences labelled by the lexicon; %d left out: %s\n", lex.skipped, lex.missing)
	}
	if v.FSDDPerDigit > 0 {
		n0 := len(d.Train)
		if err := addFSDDPhones(v, d, log); err != nil {
			return nil, err
		}
		addedSince(n0)
	}
	var real []int
	if v.Real != "" {
		n0 := len(d.Train)
		if err := addRealPhones(v, d, log); err != nil {
			return nil, err
		}
		addedSince(n0)
		for i := n0; i < len(d.Train); i++ {
			real = append(real, i)
		}
	}
	if v.Augment > 0 {
		n0 := len(d.Train)
		picked, err := augmentPhones(v, o.Map.Seed, d, log)
		if err != nil {
			return nil, err
		}
		isOther := map[int]bool{}
		for _, i := range others {
			isOther[i] = true
		}
		for k, i := range picked {
			if isOther[i] {
				others = append(others, n0+k)
			}
		}
	}
	if v.RealCopies > 0 {
		n0 := len(d.Train)
		if err := copyRealPhones(v, o.Map.Seed, d, real, log); err != nil {
			return nil, err
		}
		addedSince(n0)
	}
	if err := setFirstLabels(o, d, others, log); err != nil {
		return nil, err
	}
	if len(d.Dev) == 0 || len(d.Test) == 0 {
		return nil, fmt.Errorf("phones: engines %q train and %q score: %d development and %d test utterances", v.Engines, score, len(d.Dev), len(d.Test))
	}
	fmt.Fprintf(log, "phones: %d training utterances (%d held out for tuning), %d test utterances\n", len(d.Train), len(d.Dev), len(d.Test))
	return d, nil
}

func unionInOrder(a, b []string) []string {
	var out []string
	for _, e := range datasets.Engines() {
		if slices.Contains(a, e.Name()) || slices.Contains(b, e.Name()) {
			out = append(out, e.Name())
		}
	}
	for _, n := range append(slices.Clone(a), b...) {
		if !slices.Contains(out, n) {
			out = append(out, n) // unknown: EngineByName names it
		}
	}
	return out
}

// readPhoneAudio reads the utterances' audio at the model's rate on all
// cores.
func readPhoneAudio(paths []string) ([][]float32, error) {
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	out := make([][]float32, len(paths))
	errs := make([]error, len(paths))
	parallel.For(len(paths), func(i int) {
		a, err := frontend.ReadAudio(paths[i], rate)
		if err != nil {
			errs[i] = err
			return
		}
		out[i] = a.Samples
	})
	return out, errors.Join(errs...)
}

// addEspeakPhones adds the espeak-ng corpus: training voices (at most
// EspeakPerVoice sentences each) and development voices when it trains,
// test voices when it is scored.
func addEspeakPhones(o PhoneOptions, d *PhoneData, trains, scores bool, lex *lexiconLabeller, log io.Writer) error {
	fmt.Fprintf(log, "phones: espeak-ng corpus in %s\n", o.EspeakDir)
	c, err := datasets.BuildPhoneCorpus(o.EspeakDir, o.Espeak)
	if err != nil {
		return err
	}
	var texts map[string]string
	if lex != nil {
		texts = datasets.PhoneCorpusTexts(o.Espeak)
	}
	relabel := func(us []datasets.Utterance) []datasets.Utterance {
		if lex == nil {
			return us
		}
		us, _ = lex.relabel(us, nil, func(path string) string { return texts[datasets.CorpusTextKey(path)] })
		return us
	}
	if trains {
		us, err := datasets.ReadTranscripts(c.Train)
		if err != nil {
			return err
		}
		if n := o.Voices.EspeakPerVoice; n > 0 {
			per := map[string]int{}
			us = slices.DeleteFunc(us, func(u datasets.Utterance) bool {
				voice, _, _ := strings.Cut(u.Speaker, "/")
				per[voice]++
				return per[voice] > n
			})
		}
		dev, err := datasets.ReadTranscripts(c.Dev)
		if err != nil {
			return err
		}
		if err := addPhoneUtterances(d, relabel(us), nil, roleTrain, "espeak-ng"); err != nil {
			return err
		}
		if err := addPhoneUtterances(d, relabel(dev), nil, roleDev, "espeak-ng"); err != nil {
			return err
		}
		d.TrainVoices = append(d.TrainVoices, prefixed("espeak-ng:", o.Espeak.Voices.Train)...)
		d.DevVoices = append(d.DevVoices, prefixed("espeak-ng:", o.Espeak.Voices.Dev)...)
	}
	if scores {
		test, err := datasets.ReadTranscripts(c.Test)
		if err != nil {
			return err
		}
		if err := addPhoneUtterances(d, relabel(test), nil, roleTest, "espeak-ng"); err != nil {
			return err
		}
		d.TestVoices = append(d.TestVoices, prefixed("espeak-ng:", o.Espeak.Voices.Test)...)
	}
	return nil
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// addPhoneUtterances adds us in role: training and development utterances
// are read (with their phone times from spans, when given), test ones are
// listed for scoring.
func addPhoneUtterances(d *PhoneData, us []datasets.Utterance, spans [][]datasets.PhoneSpan, role phoneRole, engineName string) error {
	if role == roleTest {
		for _, u := range us {
			d.Test = append(d.Test, PhoneTest{Path: u.Path, Speaker: u.Speaker, Engine: engineName, Phones: u.Words})
		}
		return nil
	}
	paths := make([]string, len(us))
	for i, u := range us {
		paths[i] = u.Path
	}
	audio, err := readPhoneAudio(paths)
	if err != nil {
		return err
	}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	for i, u := range us {
		t := Utterance{Samples: audio[i], Words: u.Words, HeldOut: role == roleDev}
		if spans != nil && spans[i] != nil { // nil: relabelled, no times
			t.ExactSpans = true
			// The .PHN files count samples at the corpus's rate, which is
			// the model's (checked by the caller).
			for _, s := range spans[i] {
				t.Spans = append(t.Spans, [2]float64{float64(s.Start) / float64(rate), float64(s.End) / float64(rate)})
			}
		}
		d.Train = append(d.Train, t)
		if role == roleDev {
			d.Dev = append(d.Dev, DevUtterance{Audio: &frontend.Audio{Rate: rate, Samples: audio[i]}, Words: u.Words})
		}
	}
	return nil
}

// buildEnginePhones builds (or finds) one flite- or festival-style
// engine's phone corpus; ok is false when the engine is not installed and
// v.SkipMissing leaves it out.
func buildEnginePhones(v PhoneVoices, name string, log io.Writer) (c datasets.EnginePhoneCorpus, voices int, ok bool, err error) {
	e, err := datasets.EngineByName(name)
	if err != nil {
		return c, 0, false, err
	}
	pe, isPhone := e.(datasets.PhoneEngine)
	if !isPhone {
		return c, 0, false, fmt.Errorf("phones: %s prints no timed phones; its corpus is the espeak-ng one", name)
	}
	if err := e.Available(); err != nil {
		if v.SkipMissing {
			fmt.Fprintf(log, "phones: %s left out: %v\n", name, err)
			return c, 0, false, nil
		}
		return c, 0, false, fmt.Errorf("%s: %w", name, err)
	}
	if rate := engine.DefaultConnectedInput().Audio.SampleRate; v.Corpus.Rate != rate {
		return c, 0, false, fmt.Errorf("phones: %s corpus at %d Hz, the model's rate is %d Hz", name, v.Corpus.Rate, rate)
	}
	bar := progress.New(log, name+" phone corpus", int64(v.Corpus.Speakers*v.Corpus.PerSpeaker), "files")
	c, err = datasets.BuildEnginePhoneCorpus(v.Dir, pe, v.Corpus, func(n int) { bar.Add(int64(n)) })
	bar.Finish()
	return c, len(e.Voices()), err == nil, err
}

// BuildPhoneVoices builds (or finds) the phone corpora of the named
// engines (espeak-ng's as o.Espeak says), for `rfstream data phones`.
func BuildPhoneVoices(o PhoneOptions, engines []string, log io.Writer) error {
	for _, name := range engines {
		if name == "espeak-ng" {
			fmt.Fprintf(log, "phones: espeak-ng corpus in %s\n", o.EspeakDir)
			if _, err := datasets.BuildPhoneCorpus(o.EspeakDir, o.Espeak); err != nil {
				return err
			}
			continue
		}
		c, _, ok, err := buildEnginePhones(o.Voices, name, log)
		if err != nil {
			return err
		}
		if ok {
			fmt.Fprintf(log, "phones: %s corpus: %s\n", name, c.Manifest)
		}
	}
	return nil
}

// addEnginePhones builds (once) and adds one flite- or festival-style
// engine's phone corpus.
func addEnginePhones(v PhoneVoices, name string, d *PhoneData, trains, scores bool, lex *lexiconLabeller, log io.Writer) error {
	c, nVoices, ok, err := buildEnginePhones(v, name, log)
	if err != nil || !ok {
		return err
	}
	us, spans, err := datasets.ReadEnginePhoneCorpus(c)
	if err != nil {
		return err
	}
	if lex != nil {
		texts := datasets.EnginePhoneCorpusTexts(c, v.Corpus)
		us, spans = lex.relabel(us, spans, func(path string) string { return texts[filepath.Base(path)] })
	}
	index := map[string]int{}
	for i, s := range c.Speakers {
		index[s.Name()] = i
	}
	byRole := map[phoneRole][]int{}
	for i, u := range us {
		k, ok := index[u.Speaker]
		if !ok {
			return fmt.Errorf("%s: speaker %q is not in the speaker table", c.Manifest, u.Speaker)
		}
		r := engineSpeakerRole(k, len(c.Speakers), nVoices)
		byRole[r] = append(byRole[r], i)
	}
	voices := map[phoneRole]*[]string{roleTrain: &d.TrainVoices, roleDev: &d.DevVoices, roleTest: &d.TestVoices}
	for _, r := range []phoneRole{roleTrain, roleDev, roleTest} {
		if (r == roleTest && !scores) || (r != roleTest && !trains) {
			continue
		}
		var rus []datasets.Utterance
		var rsp [][]datasets.PhoneSpan
		for _, i := range byRole[r] {
			rus, rsp = append(rus, us[i]), append(rsp, spans[i])
			if voice, _, _ := strings.Cut(us[i].Speaker, "/"); !slices.Contains(*voices[r], voice) {
				*voices[r] = append(*voices[r], voice)
			}
		}
		if err := addPhoneUtterances(d, rus, rsp, r, name); err != nil {
			return err
		}
	}
	return nil
}

// addFSDDPhones adds FSDDPerDigit recordings of every digit from every
// FSDD speaker's training takes, each labelled with its digit word's
// pronunciation and bootstrapped like espeak-ng's sentences (the speech
// region split evenly over the phones' states, then re-aligned).
func addFSDDPhones(v PhoneVoices, d *PhoneData, log io.Writer) error {
	recs, err := datasets.FSDD(v.FSDD)
	if err != nil {
		if v.SkipMissing {
			fmt.Fprintf(log, "phones: FSDD's digit words left out: %v\n", err)
			return nil
		}
		return err
	}
	trainRecs, _ := datasets.OfficialSplit(recs)
	count := map[string]int{}
	var us []datasets.Utterance
	for _, r := range trainRecs {
		key := r.Speaker + "/" + r.Label
		if count[key] >= v.FSDDPerDigit {
			continue
		}
		count[key]++
		digit, err := strconv.Atoi(r.Label)
		if err != nil || digit < 0 || digit > 9 {
			return fmt.Errorf("%s: label %q is not a digit", r.Path, r.Label)
		}
		words := strings.Fields(datasets.DigitPhones[digit])
		if v.LexiconLabels {
			words = datasets.FoldToLexicon(words) // the digit models' pronunciations are the dictionary's first ones
		}
		us = append(us, datasets.Utterance{Path: r.Path, Words: words, Speaker: "fsdd:" + r.Speaker})
	}
	fmt.Fprintf(log, "phones: %d FSDD recordings (%d per digit and speaker) with their words' pronunciations\n", len(us), v.FSDDPerDigit)
	d.TrainVoices = append(d.TrainVoices, "fsdd")
	return addPhoneUtterances(d, us, nil, roleTrain, "fsdd")
}

// augmentPhones adds, for a seeded fraction v.Augment of the training
// (not held-out) utterances, one copy changed by a plan drawn within
// v.AugmentRanges; phone times move with the copy's length (tempo).
// picked are the copied utterances' indices, in the copies' order.
func augmentPhones(v PhoneVoices, seed uint64, d *PhoneData, log io.Writer) (picked []int, err error) {
	rng := rand.New(rand.NewPCG(seed, 0x61756770))
	for i, u := range d.Train {
		if !u.HeldOut && rng.Float64() < v.Augment {
			picked = append(picked, i)
		}
	}
	copies, err := augmentedCopies(v, d, picked, rng)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "phones: %d augmented copies (%.0f%% of the training utterances)\n", len(copies), 100*v.Augment)
	d.Train = append(d.Train, copies...)
	return picked, nil
}

// copyRealPhones adds v.RealCopies augmented copies of each real training
// utterance of real (indices into d.Train) that is not held out.
func copyRealPhones(v PhoneVoices, seed uint64, d *PhoneData, real []int, log io.Writer) error {
	rng := rand.New(rand.NewPCG(seed, 0x7265616c))
	var picked []int
	for _, i := range real {
		if !d.Train[i].HeldOut {
			for range v.RealCopies {
				picked = append(picked, i)
			}
		}
	}
	copies, err := augmentedCopies(v, d, picked, rng)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "phones: %d augmented copies of the real training recordings (%d each)\n", len(copies), v.RealCopies)
	d.Train = append(d.Train, copies...)
	return nil
}

// augmentedCopies changes each utterance picked (indices into d.Train) by
// a plan drawn from rng within v.AugmentRanges.
func augmentedCopies(v PhoneVoices, d *PhoneData, picked []int, rng *rand.Rand) ([]Utterance, error) {
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	copies := make([]Utterance, len(picked))
	errs := make([]error, len(picked))
	plans := make([]augment.Plan, len(picked))
	for k := range picked {
		plans[k] = augment.Draw(v.AugmentRanges, rng.Uint64())
	}
	parallel.For(len(picked), func(k int) {
		u := d.Train[picked[k]]
		a, err := plans[k].Apply(&frontend.Audio{Rate: rate, Samples: u.Samples})
		if err != nil {
			errs[k] = err
			return
		}
		c := Utterance{Samples: a.Samples, Words: u.Words, ExactSpans: u.ExactSpans}
		scale := float64(len(a.Samples)) / float64(len(u.Samples))
		for _, s := range u.Spans {
			c.Spans = append(c.Spans, [2]float64{s[0] * scale, s[1] * scale})
		}
		copies[k] = c
	})
	return copies, errors.Join(errs...)
}
