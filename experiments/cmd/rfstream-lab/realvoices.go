package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

// eval real-voices is issue 51's evaluation: leave one real voice out of
// the connected recipe (FSDD's six men and the five real voices of the
// voices folder), train on the rest, and hear the held-out voice with no
// adaptation: its digits one recording at a time, strings joined from its
// own digits with its own pauses, the same digits run together fluently
// (cut to their speech, overlapping), and for warzone its countdown.

func init() {
	cli.RegisterTask(&cli.Task{Name: "real-voices", Summary: "leave one real voice out (FSDD's six men, the five real voices): isolated digits, paused and fluent strings, per voice and sex",
		Eval: evalRealVoices})
}

// realVoiceScore is one held-out voice's numbers.
type realVoiceScore struct {
	Sex       string    `json:"sex"`
	Digits    int       `json:"digits"`
	Accuracy  float64   `json:"accuracy"`
	Paused    connScore `json:"paused"`
	Fluent    connScore `json:"fluent"`
	Countdown connScore `json:"countdown,omitzero"`
	// DigitsRejected is the share of the voice's digits heard as no digit
	// at all; WordsRejected the share of the held-out real non-digit words
	// (heldOutRealWords) this fold's model heard as no digit.
	DigitsRejected float64 `json:"digits_rejected"`
	WordsRejected  float64 `json:"words_rejected"`
	// PhrasesRejected is the share of the held-out hedgewars voice packs'
	// phrases (datasets.HeldOutHedgewarsVoice: real non-digit speech of
	// four voices no filler trains on) heard as no digit (--reject-phrases).
	PhrasesRejected float64 `json:"phrases_rejected,omitempty"`
	TrainSeconds    float64 `json:"train_seconds"`
	TrainedWithout  string  `json:"trained_without"`
}

// realVoicesResult is the JSON of eval real-voices; its fields up to
// PerVoice are the last line.
type realVoicesResult struct {
	IsolatedAccuracy float64                   `json:"isolated_accuracy"`
	MinVoiceAccuracy float64                   `json:"min_voice_accuracy"`
	FemaleAccuracy   float64                   `json:"female_accuracy"`
	MaleAccuracy     float64                   `json:"male_accuracy"`
	ConnectedWER     float64                   `json:"connected_wer"`
	FluentWER        float64                   `json:"fluent_wer"`
	PerVoice         map[string]realVoiceScore `json:"per_voice"`
	// Warps are the test-time warps the decoder searched (--warps; none:
	// today's decoder).
	Warps []float64 `json:"warps,omitempty"`
	// FillerBias is the filler bias the decoder used in place of the
	// fold model's own (--filler-biases; nil: the model's).
	FillerBias *float64 `json:"filler_bias,omitempty"`
	// Recipe fingerprints the fold recipe and the test sets
	// (realVoicesFingerprint), Live says how recordings were heard:
	// experiments/results.py prints a saved line as the README's row only
	// when both match the current default's.
	Recipe  string   `json:"recipe"`
	Live    bool     `json:"live"`
	Args    []string `json:"-"`
	Seconds float64  `json:"-"`
}

// countdownWords are the digits of warzone's countdown "ten nine … one":
// "ten" is not a digit and is not in the reference, so a digit heard for
// it counts as an insertion.
var countdownWords = []string{"9", "8", "7", "6", "5", "4", "3", "2", "1"}

func evalRealVoices(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval real-voices", "[flags]", stderr)
	// The default recipe is the shipped connected model's (internal/recipes:
	// FSDD, the filler, the real voices and overlapped fluent strings); a
	// held-out real voice is left out of its fold's training.
	recipe := recipes.ConnectedOptions()
	cli.DigitStringFlags(fs, &recipe)
	dir := fs.String("voices", defaults.RealVoicesDir(), "the real voices folder ($RFSTREAM_VOICES)")
	only := fs.String("hold-out", "all", "voices to hold out one at a time, comma-separated (all: FSDD's six and the five real voices)")
	nStrings := fs.Int("strings", 40, "paused and fluent test strings (2-7 digits) per held-out voice, each")
	overlap := fs.Float64("test-overlap", 0.05, "fluent test strings: words cut to their speech overlap by up to this many s")
	seed := fs.Uint64("string-seed", 51, "seed of the test strings")
	rejectWords := fs.Bool("reject-words", true, "also hear the held-out quarter of the real non-digit words (gcompris-en/words; train.RealFillerWords, never trained on) through every fold's model: the share rejected")
	rejectPhrases := fs.Bool("reject-phrases", false, "also hear the phrases of the four hedgewars voice packs no filler trains on (datasets.HeldOutHedgewarsVoice; Debian hedgewars-data, fetched into the data cache) through every fold's model: the share rejected")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	warpList := fs.String("warps", "", "also hear every fold with test-time vocal-tract warp search over these comma-separated warps (engine ConnectedDecoder.Warps, e.g. 0.9,1,1.1): on the same fold models, a second table and JSON line after today's decoder's")
	biasList := fs.String("filler-biases", "", "also hear every fold with each of these comma-separated filler biases (engine ConnectedDecoder.FillerBias, larger rejects more) in place of the model's: on the same fold models, a table and JSON line each after today's decoder's")
	live := fs.Bool("live", false, "hear every recording and string through the live stream recogniser `rfstream recognize` uses (engine.NewRecognizer: segmenter and endpointer) instead of decoding it whole (engine.Connected.Recognize, as eval connected does)")
	fingerprint := fs.Bool("fingerprint", false, "print the fingerprint of the recipe and test sets these flags give (the JSON's \"recipe\") and stop: how make results tells a saved run of the current default from a stale one")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (mostly the folds' trainings) to this file")
	merge := fs.String("merge", "", "train nothing: pool the held-out voices of these comma-separated logs of runs with the same flags (their JSON lines, or the per-voice progress lines a stopped run left on stderr) into one table and JSON line, as one run over all of them would print; folds split over processes")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var warps []float64
	if *warpList != "" {
		for _, f := range splitList(*warpList) {
			w, err := strconv.ParseFloat(f, 64)
			if err != nil || !(w >= frontend.MinWarp && w <= frontend.MaxWarp) {
				return fmt.Errorf("--warps: %q is not a warp from %g to %g", f, frontend.MinWarp, frontend.MaxWarp)
			}
			warps = append(warps, w)
		}
	}
	var biases []float64
	for _, f := range splitList(*biasList) {
		b, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(b) || math.IsInf(b, 0) {
			return fmt.Errorf("--filler-biases: %q is not a number", f)
		}
		biases = append(biases, b)
	}
	print, err := realVoicesFingerprint(recipe, realVoicesTests{Strings: *nStrings, Overlap: *overlap, Seed: *seed, RejectWords: *rejectWords, RejectPhrases: *rejectPhrases, Warps: warps, FillerBiases: biases})
	if err != nil {
		return err
	}
	if *fingerprint {
		fmt.Fprintln(stdout, print)
		return nil
	}
	if *merge != "" {
		if warps != nil || biases != nil {
			return errors.New("--merge pools today's decoder's runs only (no --warps, no --filler-biases)")
		}
		res := realVoicesResult{PerVoice: map[string]realVoiceScore{}, Args: args, Recipe: print, Live: *live}
		held, err := mergeRealVoiceLogs(splitList(*merge), res.PerVoice, print, *live)
		if err != nil {
			return err
		}
		return reportRealVoices(stdout, res, held, nil, *asJSON)
	}
	recipe.Log = stderr
	start := time.Now()
	fsdd, err := datasets.FSDD(recipe.FSDD)
	if err != nil {
		return err
	}
	real, err := datasets.RealVoiceDigits(*dir)
	if err != nil {
		return err
	}
	real = slices.DeleteFunc(real, func(r datasets.Recording) bool { return r.Label == "oh" })
	voices := append(datasets.Speakers(fsdd), datasets.Speakers(real)...)
	held := voices
	if *only != "all" {
		held = splitList(*only)
		for _, v := range held {
			if !slices.Contains(voices, v) {
				return fmt.Errorf("--hold-out: %q is not a voice (%s)", v, strings.Join(voices, ", "))
			}
		}
	}
	var words []datasets.Recording
	if *rejectWords {
		if words, err = heldOutRealWords(*dir); err != nil {
			return err
		}
	}
	var phrases []datasets.Recording
	if *rejectPhrases {
		if _, phrases, err = datasets.SplitHedgewarsPhrases(defaults.HedgewarsVoicesDir()); err != nil {
			return err
		}
	}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	// Each variant hears every fold with the same model: today's decoder,
	// with --warps the warp search, with --filler-biases each bias.
	variants := []hearing{{}}
	if warps != nil {
		variants = append(variants, hearing{warps: warps})
	}
	for _, b := range biases {
		variants = append(variants, hearing{fillerBias: &b})
	}
	results := make([]realVoicesResult, len(variants))
	for i, h := range variants {
		results[i] = realVoicesResult{PerVoice: map[string]realVoiceScore{}, Args: args, Warps: h.warps, FillerBias: h.fillerBias, Recipe: print, Live: *live}
	}
	type trained struct {
		hear    []func(*frontend.Audio) ([]string, error) // one per variant
		seconds float64
	}
	models := map[string]trained{}
	for _, v := range held {
		fold := recipe
		trainRecs, _ := datasets.SpeakerSplit(fsdd, v)
		without := "nothing"
		if len(trainRecs) < len(fsdd) {
			without = "FSDD " + v
		}
		if fold.Voices.Real.Dir != "" && slices.Contains(datasets.Speakers(real), v) {
			fold.Voices.Real.Exclude = []string{v}
			without = "real voice " + v
		}
		key := without
		if fold.Voices.Real.Dir == "" && len(trainRecs) == len(fsdd) {
			key = "all FSDD" // no real voice in the recipe: the real folds share one model
		}
		t, ok := models[key]
		if !ok {
			fmt.Fprintf(stderr, "real-voices: training without %s (%d FSDD recordings%s)\n", without, len(trainRecs), realNote(fold.Voices.Real))
			t0 := time.Now()
			m, rep, err := train.DigitStringsOn(fold, trainRecs, train.HeldOutTake)
			if err == nil && fold.Tune {
				rep.Tuning, err = train.TuneDigitStrings(fold, m, trainRecs)
			}
			if err != nil {
				return fmt.Errorf("without %s: %w", v, err)
			}
			for _, h := range variants {
				hear, err := digitHearer(m, *live, h)
				if err != nil {
					return err
				}
				t.hear = append(t.hear, hear)
			}
			t.seconds = time.Since(t0).Seconds()
			models[key] = t
		}
		own := ownDigits(fsdd, real, v)
		for i, hear := range t.hear {
			sc, err := scoreRealVoice(hear, own, *dir, v, *nStrings, *overlap, *seed, rate)
			if err != nil {
				return fmt.Errorf("held-out %s: %w", v, err)
			}
			if sc.WordsRejected, err = rejectedShare(hear, words, rate); err != nil {
				return err
			}
			if sc.PhrasesRejected, err = rejectedShare(hear, phrases, rate); err != nil {
				return err
			}
			sc.TrainSeconds, sc.TrainedWithout = t.seconds, without
			if slices.Contains(datasets.Speakers(fsdd), v) {
				sc.Sex = datasets.FSDDSex // FSDD's speakers are men, whatever a toy folder names them
			}
			results[i].PerVoice[v] = sc
			b, _ := json.Marshal(sc)
			fmt.Fprintf(stderr, "real-voices: %s%s %s\n", v, variants[i], b)
		}
	}
	for i := range results {
		results[i].Seconds = time.Since(start).Seconds()
		var heading *hearing
		if len(variants) > 1 {
			heading = &variants[i]
		}
		if err := reportRealVoices(stdout, results[i], held, heading, *asJSON); err != nil {
			return err
		}
	}
	return nil
}

// reportRealVoices pools the held-out voices' scores (strings over all
// voices, isolated accuracy as a mean over voices), prints the table and,
// with asJSON, the JSON line. A non-nil heading names the variant
// above its table.
func reportRealVoices(stdout io.Writer, res realVoicesResult, held []string, heading *hearing, asJSON bool) error {
	var paused, fluent decode.ErrorCounts
	for _, v := range held {
		sc := res.PerVoice[v]
		addScore(&paused, sc.Paused)
		addScore(&fluent, sc.Fluent)
		addScore(&fluent, sc.Countdown)
	}
	all := paused
	addCounts(&all, fluent)
	res.ConnectedWER, res.FluentWER = all.ErrorRate(), fluent.ErrorRate()
	res.IsolatedAccuracy, res.MinVoiceAccuracy, res.FemaleAccuracy, res.MaleAccuracy = voiceMeans(res.PerVoice)
	if heading != nil {
		fmt.Fprintf(stdout, "decoder%s:\n", heading)
	}
	writeRealVoicesTable(stdout, res)
	if !asJSON {
		return nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, string(b))
	return nil
}

// realVoiceProgress is the per-voice line a run writes on stderr as each
// fold ends: "real-voices: VOICE {score}" (a warp variant's voice has a
// suffix after a space and is not today's decoder).
const realVoiceProgress = "real-voices: "

// mergeRealVoiceLogs reads the held-out voices' scores from the logs of
// runs split over processes: a JSON line of a run (its recipe fingerprint
// and live flag must be these: recipe, live) or the per-voice lines of a
// run's stderr, which carry no fingerprint, so the caller vouches that
// they came from runs with these flags (the journal says which). A voice
// scored twice is refused. It returns the voices in the order found.
func mergeRealVoiceLogs(paths []string, per map[string]realVoiceScore, recipe string, live bool) ([]string, error) {
	var held []string
	add := func(path, voice string, sc realVoiceScore) error {
		if _, dup := per[voice]; dup {
			return fmt.Errorf("--merge: %s scores %s again", path, voice)
		}
		per[voice] = sc
		held = append(held, voice)
		return nil
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "{"):
				var run realVoicesResult
				if err := json.Unmarshal([]byte(line), &run); err != nil {
					return nil, fmt.Errorf("--merge: %s: %w", path, err)
				}
				if run.Recipe != recipe || run.Live != live || run.Warps != nil {
					return nil, fmt.Errorf("--merge: %s is a run of recipe %s (live %v, warps %v), not of these flags' %s (live %v)", path, run.Recipe, run.Live, run.Warps, recipe, live)
				}
				for _, v := range slices.Sorted(maps.Keys(run.PerVoice)) {
					if err := add(path, v, run.PerVoice[v]); err != nil {
						return nil, err
					}
				}
			case strings.HasPrefix(line, realVoiceProgress):
				voice, score, ok := strings.Cut(strings.TrimPrefix(line, realVoiceProgress), " ")
				if !ok || !strings.HasPrefix(score, "{") {
					continue // a fold's "training without" line, or a warp variant's
				}
				var sc realVoiceScore
				if err := json.Unmarshal([]byte(score), &sc); err != nil {
					return nil, fmt.Errorf("--merge: %s: %s: %w", path, voice, err)
				}
				if err := add(path, voice, sc); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("--merge: no held-out voice in %s", strings.Join(paths, ", "))
	}
	return held, nil
}

// hearing is how a variant's decoder differs from the fold model's: it
// searches warps, or uses another filler bias (nil: the model's).
type hearing struct {
	warps      []float64
	fillerBias *float64
}

// String says how the variant hears, after "decoder": "" for the model's
// own decoder.
func (h hearing) String() string {
	switch {
	case h.warps != nil:
		return fmt.Sprintf(" with warp search %v", h.warps)
	case h.fillerBias != nil:
		return fmt.Sprintf(" with filler bias %g", *h.fillerBias)
	}
	return ""
}

// realVoicesTests are the eval's settings that decide what is measured,
// beside the recipe: part of the fingerprint.
type realVoicesTests struct {
	Strings       int       `json:"strings"`
	Overlap       float64   `json:"overlap"`
	Seed          uint64    `json:"seed"`
	RejectWords   bool      `json:"reject_words"`
	RejectPhrases bool      `json:"reject_phrases,omitempty"`
	Warps         []float64 `json:"warps,omitempty"`
	FillerBiases  []float64 `json:"filler_biases,omitempty"`
}

// realVoicesFingerprint is a short hash of the fold recipe's options (its
// data folder and log left out: where the data lives is not the recipe)
// and of the test settings, so a saved result can be matched with the
// recipe of today's defaults. With the plain decoder's and the warp
// search's results in one run, the fingerprint names the run (both
// variants). It covers options, not code: a change to the code under an
// unchanged recipe keeps it.
func realVoicesFingerprint(recipe train.DigitStringOptions, tests realVoicesTests) (string, error) {
	recipe.FSDD, recipe.Log, recipe.Filler.SynthDir, recipe.Voices.Engines.Dir = "", nil, "", ""
	// A folder of data the recipe trains on counts as used, wherever it is.
	for _, dir := range []*string{&recipe.Voices.Real.Dir, &recipe.Filler.RealWords} {
		if *dir != "" {
			*dir = "used"
		}
	}
	b, err := json.Marshal(struct {
		Recipe train.DigitStringOptions `json:"recipe"`
		Tests  realVoicesTests          `json:"tests"`
	}{recipe, tests})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// realNote says which real voices a fold's recipe trains on.
func realNote(r train.RealVoiceTraining) string {
	if r.Dir == "" {
		return "; no real voice"
	}
	return fmt.Sprintf("; the real voices but %v, ×%d", r.Exclude, max(r.Copies, 1))
}

// ownDigits are a voice's digit recordings: an FSDD speaker's 500, a real
// voice's ten.
func ownDigits(fsdd, real []datasets.Recording, voice string) []datasets.Recording {
	if _, own := datasets.SpeakerSplit(fsdd, voice); len(own) > 0 {
		return own
	}
	_, own := datasets.SpeakerSplit(real, voice)
	return own
}

// scoreRealVoice hears one held-out voice: each digit alone, strings with
// its pauses, the same kind of strings said fluently, and (warzone) the
// countdown.
func scoreRealVoice(hear func(*frontend.Audio) ([]string, error), own []datasets.Recording, dir, voice string, n int, overlap float64, seed uint64, rate int) (realVoiceScore, error) {
	sc := realVoiceScore{Sex: datasets.SexOf(voice), Digits: len(own)}
	right := make([]bool, len(own))
	none := make([]bool, len(own))
	errs := make([]error, len(own))
	parallel.For(len(own), func(i int) {
		a, err := frontend.ReadAudio(own[i].Path, rate)
		if err != nil {
			errs[i] = err
			return
		}
		words, err := hear(a)
		right[i], none[i], errs[i] = slices.Equal(words, []string{own[i].Label}), len(words) == 0, err
	})
	for i, ok := range right {
		if errs[i] != nil {
			return sc, errs[i]
		}
		if ok {
			sc.Accuracy++
		}
		if none[i] {
			sc.DigitsRejected++
		}
	}
	sc.DigitsRejected /= float64(len(own))
	sc.Accuracy /= float64(len(own))
	plans, err := datasets.PlanStrings(own, datasets.StringOptions{Count: n, Seed: seed})
	if err != nil {
		return sc, err
	}
	if sc.Paused, err = scorePlans(hear, plans, rate, func(p datasets.StringPlan, i int) (*frontend.Audio, error) {
		a, _, err := datasets.RenderString(p, rate, datasets.Noise{}, seed<<32|uint64(i))
		return a, err
	}); err != nil {
		return sc, err
	}
	if plans, err = datasets.PlanStrings(own, datasets.StringOptions{Count: n, Seed: seed + 1}); err != nil {
		return sc, err
	}
	if sc.Fluent, err = scorePlans(hear, plans, rate, func(p datasets.StringPlan, i int) (*frontend.Audio, error) {
		a, _, err := datasets.RenderFluentString(p, rate, overlap, (seed+1)<<32|uint64(i))
		return a, err
	}); err != nil {
		return sc, err
	}
	if voice == "warzone" {
		a, err := frontend.ReadAudio(filepath.Join(dir, "warzone2100", "countdown", "10to1.wav"), rate)
		if err != nil {
			return sc, err
		}
		words, err := hear(a)
		if err != nil {
			return sc, err
		}
		var c decode.ErrorCounts
		c.Add(countdownWords, words)
		sc.Countdown = scoreOfCounts(c)
	}
	return sc, nil
}

// heldOutRealWords are the real non-digit words no filler trains on
// (train.RealFillerWords' held-out quarter).
func heldOutRealWords(dir string) ([]datasets.Recording, error) {
	_, held, err := train.RealFillerWords(dir)
	return held, err
}

// rejectedShare is the share of recs heard as no digit (0 when there are
// none).
func rejectedShare(hear func(*frontend.Audio) ([]string, error), recs []datasets.Recording, rate int) (float64, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	none := make([]bool, len(recs))
	errs := make([]error, len(recs))
	parallel.For(len(recs), func(i int) {
		a, err := frontend.ReadAudio(recs[i].Path, rate)
		if err != nil {
			errs[i] = err
			return
		}
		words, err := hear(a)
		none[i], errs[i] = len(words) == 0, err
	})
	n := 0
	for i := range recs {
		if errs[i] != nil {
			return 0, errs[i]
		}
		if none[i] {
			n++
		}
	}
	return float64(n) / float64(len(recs)), nil
}

// scorePlans renders each plan and scores what the recogniser hears.
func scorePlans(hear func(*frontend.Audio) ([]string, error), plans []datasets.StringPlan, rate int, render func(datasets.StringPlan, int) (*frontend.Audio, error)) (connScore, error) {
	hyps := make([][]string, len(plans))
	errs := make([]error, len(plans))
	parallel.For(len(plans), func(i int) {
		a, err := render(plans[i], i)
		if err != nil {
			errs[i] = err
			return
		}
		hyps[i], errs[i] = hear(a)
	})
	var c decode.ErrorCounts
	for i, p := range plans {
		if errs[i] != nil {
			return connScore{}, errs[i]
		}
		c.Add(p.Words(), hyps[i])
	}
	return scoreOfCounts(c), nil
}

// digitHearer is a trained connected model as a digit-string recogniser:
// decoding each recording whole, or (live) through the stream recogniser
// `rfstream recognize` uses; its decoder changed as h says.
func digitHearer(m *engine.Model, live bool, h hearing) (func(*frontend.Audio) ([]string, error), error) {
	var err error
	switch {
	case h.warps != nil:
		m, err = withDecoderField(m, "warps", h.warps)
	case h.fillerBias != nil:
		m, err = withDecoderField(m, "filler_bias", *h.fillerBias)
	}
	if err != nil {
		return nil, err
	}
	if !live {
		rec, err := engine.NewConnected(m)
		if err != nil {
			return nil, err
		}
		return recognizeDigits(rec.Recognize), nil
	}
	r, err := engine.NewLiveRecognizer(m)
	if err != nil {
		return nil, err
	}
	return recognizeDigits(func(a *frontend.Audio) (engine.Result, error) { return r.Recognize(a.Samples, a.Rate) }), nil
}

// recognizeDigits is a connected model as a digit-string recogniser:
// the words it heard, rejected stretches (not digits) left out.
func recognizeDigits(recognize func(*frontend.Audio) (engine.Result, error)) func(*frontend.Audio) ([]string, error) {
	return func(a *frontend.Audio) ([]string, error) {
		r, err := recognize(a)
		if err != nil {
			return nil, err
		}
		words := []string{}
		for _, w := range r.Words {
			if !w.Rejected {
				words = append(words, w.Word)
			}
		}
		return words, nil
	}
}

// addScore adds a score's counts back into a tally.
func addScore(dst *decode.ErrorCounts, s connScore) {
	addCounts(dst, decode.ErrorCounts{Sub: s.Sub, Ins: s.Ins, Del: s.Del, Ref: s.Words, Strings: s.Strings})
}

// voiceMeans are the mean isolated accuracy over voices, the lowest, and
// the means over the female and the male voices (each voice weighs the
// same, however many recordings it has).
func voiceMeans(per map[string]realVoiceScore) (mean, least, female, male float64) {
	least = 1
	var nf, nm int
	for _, s := range per {
		mean += s.Accuracy
		least = min(least, s.Accuracy)
		switch s.Sex {
		case datasets.Female:
			female += s.Accuracy
			nf++
		case datasets.Male:
			male += s.Accuracy
			nm++
		}
	}
	if len(per) > 0 {
		mean /= float64(len(per))
	}
	if nf > 0 {
		female /= float64(nf)
	}
	if nm > 0 {
		male /= float64(nm)
	}
	return mean, least, female, male
}

// writeRealVoicesTable prints a row per held-out voice and the pools.
func writeRealVoicesTable(w io.Writer, res realVoicesResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "held out\tsex\tdigits\tisolated %\tdigits rejected %\treal words rejected %\tpaused WER %\tfluent WER %\tcountdown WER %\ttrained without (s)")
	names := make([]string, 0, len(res.PerVoice))
	for v := range res.PerVoice {
		names = append(names, v)
	}
	slices.Sort(names)
	for _, v := range names {
		s := res.PerVoice[v]
		cd := "-"
		if s.Countdown.Words > 0 {
			cd = fmt.Sprintf("%.1f", 100*s.Countdown.WER)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%s\t%s (%.0f)\n", v, s.Sex, s.Digits, 100*s.Accuracy, 100*s.DigitsRejected, 100*s.WordsRejected, 100*s.Paused.WER, 100*s.Fluent.WER, cd, s.TrainedWithout, s.TrainSeconds)
	}
	fmt.Fprintf(tw, "mean over voices\t\t\t%.1f (min %.1f; female %.1f, male %.1f)\t\t\tall strings %.2f\tfluent %.2f\t\t%.0f s in all\n",
		100*res.IsolatedAccuracy, 100*res.MinVoiceAccuracy, 100*res.FemaleAccuracy, 100*res.MaleAccuracy, 100*res.ConnectedWER, 100*res.FluentWER, res.Seconds)
	tw.Flush()
}

// withDecoderField is a shallow copy of a connected model whose decoder
// (engine.ConnectedDecoder) has the JSON field key set to v: "warps" to
// search warps, "filler_bias" for another filler bias.
func withDecoderField(m *engine.Model, key string, v any) (*engine.Model, error) {
	var dc map[string]json.RawMessage
	if err := json.Unmarshal(m.Decoder, &dc); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dc[key] = b
	cp := *m
	if cp.Decoder, err = json.Marshal(dc); err != nil {
		return nil, err
	}
	return &cp, nil
}
