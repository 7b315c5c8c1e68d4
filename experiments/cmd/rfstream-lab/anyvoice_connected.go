package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

// eval any-voice connected is issue 37's evaluation (d): connected digit
// strings of voices the connected recipe never trained on, clean and at a
// low SNR in noise of a kind no training recipe adds. Real voices are
// FSDD's speakers, one held out at a time (the recipe trained on the other
// five, tested on strings joined from the held-out voice's recordings);
// synthetic voices are a synthesiser's speakers, one engine held out at a
// time (tested on whole strings it spoke, rfstream data voices).

// anyVoiceConnectedOptions are the mode's settings besides the recipe.
type anyVoiceConnectedOptions struct {
	recipe train.DigitStringOptions
	// speakers and engines are held out one at a time.
	speakers, engines []string
	// trainEngines adds every installed engine's digits except the held-out
	// one's to the training set (the product recipe has none).
	trainEngines bool
	voices       datasets.VoiceSetOptions
	strings      int // test strings per held-out FSDD speaker
	seed         uint64
	noise        testNoise
}

// testNoise is how a test string is made noisy: each kind in turn at snr
// dB below the string's active speech power (datasets.ActivePower).
// "babble" is talkers voices at once, said from pool; any other kind is
// datasets.AddNoise's.
type testNoise struct {
	kinds   []string
	snr     float64
	talkers int
	seed    uint64
}

// testNoiseKinds are the kinds testNoise mixes.
var testNoiseKinds = []string{"babble", "brown", "white", "pink"}

// noisy returns string i of a test set with noise of kind mixed in,
// seeded by the string and the kind; babble draws from pool.
func (n testNoise) noisy(i int, kind string, a *frontend.Audio, pool [][]float32) (*frontend.Audio, error) {
	h := fnv.New64a()
	h.Write([]byte(kind))
	rng := rand.New(rand.NewPCG(n.seed^h.Sum64(), uint64(i)))
	out := &frontend.Audio{Rate: a.Rate, Samples: slices.Clone(a.Samples)}
	p := datasets.ActivePower(a.Samples, a.Rate)
	if kind != "babble" {
		return out, datasets.AddNoise(out.Samples, p, datasets.Noise{Kind: kind, SNR: n.snr}, rng)
	}
	b, err := datasets.Babble(len(out.Samples), n.talkers, a.Rate, pool, rng)
	if err != nil {
		return nil, err
	}
	datasets.MixNoise(out.Samples, p, b, n.snr)
	return out, nil
}

// heldString is one test string: who said it, its words, its clean audio.
type heldString struct {
	voice string
	words []string
	audio *frontend.Audio
}

// connFold is one held-out voice group and what its model trains on.
type connFold struct {
	heldOut, kind string // kind: "real" (an FSDD speaker) or "synthetic" (an engine)
	trainRecs     []datasets.Recording
	filler        bool
	// engines are the recipe's synthesisers (train.ConnectedVoices) this
	// fold trains on: every one but a held-out engine.
	engines  []string
	describe string
	// babble is what babble is made from: FSDD recordings of speakers other
	// than the held-out one.
	babble []datasets.Recording
	test   func(rate int) ([]heldString, error)
}

// modelKey tells apart folds whose models differ: two held-out engines
// that the recipe trains on neither of share one model.
func (f connFold) modelKey() string {
	var b strings.Builder
	for _, r := range f.trainRecs {
		b.WriteString(r.Path)
		b.WriteByte(0)
	}
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return fmt.Sprintf("%x filler=%v engines=%v", h.Sum64(), f.filler, f.engines)
}

func evalAnyVoiceConnected(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval any-voice connected", "[flags]", stderr)
	o := anyVoiceConnectedOptions{recipe: train.DefaultDigitStringOptions(), voices: datasets.DefaultVoiceSetOptions()}
	cli.DigitStringFlags(fs, &o.recipe)
	speakers := fs.String("speakers", "all", "FSDD speakers to hold out one at a time, comma-separated (all: every one; empty: none)")
	engines := fs.String("engines", train.EngineNames(), "synthesisers to hold out one at a time (empty: none)")
	fs.BoolVar(&o.trainEngines, "train-engines", false, "also train on the digits of every engine but the held-out one (the default recipe trains on none)")
	fs.IntVar(&o.voices.Speakers, "voice-speakers", o.voices.Speakers, "speakers per synthesiser (rfstream data voices --speakers)")
	fs.IntVar(&o.voices.Takes, "voice-takes", o.voices.Takes, "takes of each digit per synthetic speaker")
	fs.IntVar(&o.voices.Strings, "voice-strings", o.voices.Strings, "strings per synthetic speaker (a held-out engine's test set)")
	fs.IntVar(&o.strings, "strings", 100, "test strings per held-out FSDD speaker (2-7 digits, joined from its recordings)")
	fs.Uint64Var(&o.seed, "string-seed", 1, "seed of the test strings and their noise")
	kinds := fs.String("noise", "babble,brown", "noise kinds mixed into every test string, each on its own (babble, brown, white, pink)")
	fs.Float64Var(&o.noise.snr, "snr", 10, "SNR of the noisy copies, dB below the string's active speech power")
	fs.IntVar(&o.noise.talkers, "babble-talkers", 6, "voices at once in babble")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	o.recipe.Log = stderr
	o.noise.seed = o.seed
	o.noise.kinds = splitList(*kinds)
	o.engines = splitList(*engines)
	for _, k := range o.noise.kinds {
		if !slices.Contains(testNoiseKinds, k) {
			return fmt.Errorf("--noise: unknown kind %q (%s)", k, strings.Join(testNoiseKinds, ", "))
		}
	}
	all, err := datasets.FSDD(o.recipe.FSDD)
	if err != nil {
		return err
	}
	if o.speakers = splitList(*speakers); *speakers == "all" {
		o.speakers = datasets.Speakers(all)
	}
	folds, err := planConnectedFolds(o, all, stderr)
	if err != nil {
		return err
	}
	res, err := runConnectedFolds(o, folds, stderr)
	if err != nil {
		return err
	}
	res.Args = args
	writeConnectedTable(stdout, res)
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// planConnectedFolds lists a fold per held-out FSDD speaker and per
// held-out engine, building the engines' voices (rfstream data voices)
// that a fold tests or trains on.
func planConnectedFolds(o anyVoiceConnectedOptions, all []datasets.Recording, log io.Writer) ([]connFold, error) {
	known := datasets.Speakers(all)
	for _, s := range o.speakers {
		if !slices.Contains(known, s) {
			return nil, fmt.Errorf("--speakers: %q is not an FSDD speaker (%s)", s, strings.Join(known, ", "))
		}
	}
	need := slices.Clone(o.engines)
	if o.trainEngines {
		need = strings.Split(train.EngineNames(), ",")
	}
	var sets []datasets.VoiceSet
	if len(need) > 0 {
		var err error
		if sets, err = train.BuildEngineVoices(train.EngineVoices{Engines: need, Set: o.voices, Dir: defaults.VoicesDir()}, o.trainEngines, log); err != nil {
			return nil, err
		}
	}
	engineDigits := func(except string) []datasets.Recording {
		var recs []datasets.Recording
		for _, s := range sets {
			if o.trainEngines && s.Engine != except {
				recs = append(recs, s.Digits...)
			}
		}
		return recs
	}
	engineNote := ""
	if o.trainEngines {
		engineNote = " + the other engines' digits"
	}
	var folds []connFold
	for _, spk := range o.speakers {
		others, own := datasets.SpeakerSplit(all, spk)
		f := connFold{heldOut: spk, kind: "real", trainRecs: append(slices.Clone(others), engineDigits("")...), filler: o.recipe.Filler.Voices > 0,
			engines: o.recipe.Voices.Engines.Engines, describe: "the other FSDD speakers" + engineNote + recipeVoicesNote(o.recipe.Voices, ""), babble: others}
		f.test = func(rate int) ([]heldString, error) { return joinedTestStrings(own, o.strings, o.seed, rate) }
		folds = append(folds, f)
	}
	for _, name := range o.engines {
		i := slices.IndexFunc(sets, func(s datasets.VoiceSet) bool { return s.Engine == name })
		if i < 0 {
			return nil, fmt.Errorf("--engines: %s is not installed", name)
		}
		set := sets[i]
		// The filler's voices are espeak-ng's: holding espeak-ng out trains
		// no filler.
		f := connFold{heldOut: name, kind: "synthetic", trainRecs: append(slices.Clone(all), engineDigits(name)...),
			filler: o.recipe.Filler.Voices > 0 && name != (datasets.EspeakEngine{}).Name(), describe: "all FSDD speakers" + engineNote + recipeVoicesNote(o.recipe.Voices, name), babble: all}
		f.engines = slices.DeleteFunc(slices.Clone(o.recipe.Voices.Engines.Engines), func(e string) bool { return e == name })
		if !f.filler && o.recipe.Filler.Voices > 0 {
			f.describe += " (no filler: its voices are espeak-ng's)"
		}
		tuned := o.recipe
		tuned.Voices.Engines.Engines = f.engines
		f.describe += tuningNote(tuned)
		f.test = func(rate int) ([]heldString, error) { return spokenTestStrings(set.Strings, rate) }
		folds = append(folds, f)
	}
	if len(folds) == 0 {
		return nil, fmt.Errorf("eval any-voice connected: no speaker and no engine to hold out")
	}
	return folds, nil
}

// recipeVoicesNote says what a fold's recipe adds besides FSDD
// (train.ConnectedVoices) when the held-out engine is left out.
func recipeVoicesNote(v train.ConnectedVoices, heldOut string) string {
	var note []string
	for _, e := range v.Engines.Engines {
		if e != heldOut {
			note = append(note, e)
		}
	}
	s := ""
	if len(note) > 0 {
		s = " + " + strings.Join(note, ",") + "'s digits"
		if v.EngineStrings {
			s += " and strings"
		}
	}
	if v.FluentStrings > 0 {
		s += fmt.Sprintf(" + %d fluent strings", v.FluentStrings)
	}
	return s
}

// tuningNote says what a recipe tunes its decoder on besides FSDD's dev
// strings, and how wide its grid is.
func tuningNote(o train.DigitStringOptions) string {
	var note []string
	if o.RecordingCopies > 1 {
		note = append(note, fmt.Sprintf("FSDD ×%d", o.RecordingCopies))
	}
	if o.NoisyCopies > 0 {
		note = append(note, fmt.Sprintf("FSDD +%d noisy cop%s", o.NoisyCopies, map[bool]string{true: "y", false: "ies"}[o.NoisyCopies == 1]))
	}
	if o.DevVoiceSpeakers > 0 && len(o.Voices.Engines.Engines) > 0 {
		note = append(note, fmt.Sprintf("tuned also on %d unheard speakers of each training engine", o.DevVoiceSpeakers))
	}
	if o.WideTune {
		note = append(note, "wide tuning grid")
	}
	if len(note) == 0 {
		return ""
	}
	return " (" + strings.Join(note, "; ") + ")"
}

// joinedTestStrings are count strings joined from one voice's recordings
// with pauses of their own background (as eval connected builds its test
// sets), seeded.
func joinedTestStrings(recs []datasets.Recording, count int, seed uint64, rate int) ([]heldString, error) {
	plans, err := datasets.PlanStrings(recs, datasets.StringOptions{Count: count, Seed: seed})
	if err != nil {
		return nil, err
	}
	out := make([]heldString, len(plans))
	for i, p := range plans {
		a, _, err := datasets.RenderString(p, rate, datasets.Noise{}, seed<<32|uint64(i))
		if err != nil {
			return nil, err
		}
		out[i] = heldString{voice: p.Speaker, words: p.Words(), audio: a}
	}
	return out, nil
}

// spokenTestStrings reads a synthesiser's whole spoken strings.
func spokenTestStrings(us []datasets.Utterance, rate int) ([]heldString, error) {
	out := make([]heldString, len(us))
	for i, u := range us {
		a, err := frontend.ReadAudio(u.Path, rate)
		if err != nil {
			return nil, err
		}
		out[i] = heldString{voice: u.Speaker, words: u.Words, audio: a}
	}
	return out, nil
}

// babbleClips reads up to 300 seeded recordings of the babble pool.
func babbleClips(recs []datasets.Recording, seed uint64, rate int) ([][]float32, error) {
	order := rand.New(rand.NewPCG(seed, 0x62616262)).Perm(len(recs))
	var out [][]float32
	for _, k := range order[:min(300, len(order))] {
		a, err := frontend.ReadAudio(recs[k].Path, rate)
		if err != nil {
			return nil, err
		}
		out = append(out, a.Samples)
	}
	return out, nil
}

// trainConnectedFold trains (and tunes, as the recipe says) one fold's
// model: the recipe on the fold's recordings, FSDD's takes 5-9 held out.
func trainConnectedFold(o train.DigitStringOptions, f connFold) (*engine.Model, train.ConnectedReport, error) {
	if !f.filler {
		o.Filler.Voices = 0
	}
	o.Voices.Engines.Engines = f.engines
	m, rep, err := train.DigitStringsOn(o, f.trainRecs, train.HeldOutTake)
	if err != nil || !o.Tune {
		return m, rep, err
	}
	rep.Tuning, err = train.TuneDigitStrings(o, m, f.trainRecs)
	return m, rep, err
}

// runConnectedFolds trains each distinct model once and scores every fold.
func runConnectedFolds(o anyVoiceConnectedOptions, folds []connFold, log io.Writer) (anyVoiceConnectedResult, error) {
	res := anyVoiceConnectedResult{Task: "any-voice-connected", Noise: o.noise.kinds, SNR: o.noise.snr, BabbleTalkers: o.noise.talkers,
		StringsPerSpeaker: o.strings, Seed: o.seed, TrainEngines: o.trainEngines}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	type trained struct {
		rec     *engine.Connected
		seconds float64
		tuned   *train.TuneTrial
	}
	models := map[string]trained{}
	pooled := map[string]*connTally{"real": newConnTally(), "synthetic": newConnTally(), "all": newConnTally()}
	for _, f := range folds {
		key := f.modelKey()
		t, ok := models[key]
		if !ok {
			fmt.Fprintf(log, "any-voice connected: without %s: training on %d recordings (%s)\n", f.heldOut, len(f.trainRecs), f.describe)
			start := time.Now()
			m, rep, err := trainConnectedFold(o.recipe, f)
			if err != nil {
				return res, fmt.Errorf("without %s: %w", f.heldOut, err)
			}
			if t.rec, err = engine.NewConnected(m); err != nil {
				return res, err
			}
			t.seconds = time.Since(start).Seconds()
			if len(rep.Tuning) > 0 {
				best := train.BestTrial(rep.Tuning)
				t.tuned = &best
			}
			models[key] = t
		}
		test, err := f.test(rate)
		if err != nil {
			return res, err
		}
		var pool [][]float32
		if slices.Contains(o.noise.kinds, "babble") {
			if pool, err = babbleClips(f.babble, o.seed, rate); err != nil {
				return res, err
			}
		}
		fmt.Fprintf(log, "any-voice connected: without %s: %d test strings, clean and %s at %g dB\n", f.heldOut, len(test), strings.Join(o.noise.kinds, ", "), o.noise.snr)
		perVoice, err := tallyStrings(recognizeWords(t.rec), test, o.noise, pool)
		if err != nil {
			return res, fmt.Errorf("without %s: %w", f.heldOut, err)
		}
		fr := connFoldResult{HeldOut: f.heldOut, Kind: f.kind, Train: f.describe, TrainRecordings: len(f.trainRecs), TrainSeconds: t.seconds,
			Tuned: t.tuned, PerVoice: map[string]connConditions{}}
		fold := newConnTally()
		for v, tv := range perVoice {
			fr.PerVoice[v] = tv.result()
			fold.add(tv)
		}
		fr.All = fold.result()
		pooled[f.kind].add(fold)
		pooled["all"].add(fold)
		res.Folds = append(res.Folds, fr)
		// Each fold's scores as soon as they exist: a long run stopped
		// early keeps what it measured.
		b, err := json.Marshal(fr)
		if err != nil {
			return res, err
		}
		fmt.Fprintf(log, "any-voice connected: fold %s\n", b)
	}
	res.Real, res.Synthetic, res.Overall = pooled["real"].result(), pooled["synthetic"].result(), pooled["all"].result()
	return res, nil
}

// recognizeWords is a connected model as a string recogniser.
func recognizeWords(rec *engine.Connected) func(*frontend.Audio) ([]string, error) {
	return func(a *frontend.Audio) ([]string, error) {
		r, err := rec.Recognize(a)
		if err != nil {
			return nil, err
		}
		words := []string{}
		for _, w := range r.Words {
			words = append(words, w.Word)
		}
		return words, nil
	}
}
