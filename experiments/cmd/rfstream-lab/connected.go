package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
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
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "connected", Summary: "connected digit strings: frame classifier over HMM states + Viterbi (WER/SER)",
		Eval: evalConnected})
}

// connectedSetResult is one test set's scores.
type connectedSetResult struct {
	Set     string  `json:"set"`
	Strings int     `json:"strings"`
	Words   int     `json:"words"`
	WER     float64 `json:"wer"`
	SER     float64 `json:"ser"`
	Sub     int     `json:"sub"`
	Ins     int     `json:"ins"`
	Del     int     `json:"del"`
	// RTF is decoding time (frontend + map + classifier + Viterbi) over
	// audio duration, with all cores busy.
	RTF float64 `json:"rtf"`
}

type connectedEval struct {
	Task       string                   `json:"task"`
	Model      string                   `json:"model"`
	Classifier string                   `json:"classifier"`
	Map        string                   `json:"map"`
	M          int                      `json:"m"`
	Passes     []train.PassReport       `json:"passes,omitempty"`
	TrainSec   float64                  `json:"train_seconds,omitempty"`
	Sets       []connectedSetResult     `json:"sets"`
	PeakRSSMB  float64                  `json:"peak_rss_mb"`
	Examples   map[string][]exampleLine `json:"-"`
}

type exampleLine struct{ ref, hyp string }

func evalConnected(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval connected", "[flags]", stderr)
	o := train.DefaultDigitStringOptions()
	cli.DigitStringFlags(fs, &o)
	modelPath := fs.String("model", "", "evaluate this model instead of training one")
	retune := fs.Bool("retune", false, "with --model: choose its decoder settings again on held-out training strings")
	retrain := fs.Bool("retrain", true, "train a model (with the flags above) rather than reuse "+defaults.ConnectedModel())
	setsFlag := fs.String("sets", "clean,snr20,snr10,espeak", "generated test sets to score (clean, snr20, snr10, espeak)")
	nStrings := fs.Int("strings", 200, "strings per generated FSDD test set")
	nEspeak := fs.Int("espeak-strings", 120, "strings in the espeak-ng test set")
	setSeed := fs.Uint64("set-seed", 1, "seed of the generated test sets")
	manifests := fs.String("manifest", "", "also score these comma-separated transcript manifests (TSV: path, digits separated by spaces)")
	engineSets := fs.String("engine-strings-sets", "", "also score the whole spoken strings (said without pauses) of these comma-separated synthesisers' voice sets (rfstream data voices, seed 1: 12 speakers × 10 strings each; built on first use)")
	examples := fs.Int("examples", 3, "print this many misrecognised strings per set")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	o.Log = stderr
	res := connectedEval{Task: "connected"}
	var m *engine.Model
	var err error
	switch {
	case *modelPath != "":
		if m, err = engine.LoadModel(*modelPath); err != nil {
			return err
		}
		res.Model = *modelPath
		if *retune {
			recs, err := datasets.FSDD(o.FSDD)
			if err != nil {
				return err
			}
			trainRecs, _ := datasets.OfficialSplit(recs)
			if _, err := train.TuneDigitStrings(o, m, trainRecs); err != nil {
				return err
			}
		}
	case *retrain:
		var rep train.ConnectedReport
		if m, rep, err = train.DigitStrings(o); err != nil {
			return err
		}
		res.Passes, res.TrainSec = rep.Passes, rep.Seconds
		if err := engine.SaveModel(defaults.ConnectedModel(), m); err != nil {
			return err
		}
		res.Model = defaults.ConnectedModel()
	default:
		if m, err = recipes.LoadOrTrain(defaults.ConnectedModel(), stderr, func() (*engine.Model, error) {
			m, _, err := train.DigitStrings(o)
			return m, err
		}); err != nil {
			return err
		}
		res.Model = defaults.ConnectedModel()
	}
	rec, err := engine.NewConnected(m)
	if err != nil {
		return err
	}
	res.Classifier, res.Map, res.M = rec.Input.Classifier, m.Map.Kind, rec.Map.OutDim()

	type namedSet struct {
		name     string
		manifest string
		// utterances, when manifest is empty.
		utterances []datasets.Utterance
	}
	var sets []namedSet
	if *setsFlag != "" {
		recs, err := datasets.FSDD(o.FSDD)
		if err != nil {
			return err
		}
		_, test := datasets.OfficialSplit(recs)
		known := map[string]datasets.ConnectedSet{}
		for _, s := range datasets.DefaultConnectedSets {
			known[s.Name] = s
		}
		dir := filepath.Join(defaults.DataDir(), "connected")
		for _, name := range strings.Split(*setsFlag, ",") {
			s, ok := known[name]
			if !ok {
				return fmt.Errorf("unknown test set %q (clean, snr20, snr10, espeak)", name)
			}
			n := *nStrings
			if s.Synthetic {
				n = *nEspeak
			}
			fmt.Fprintf(stderr, "connected: test set %s (%d strings) in %s\n", name, n, dir)
			mp, err := datasets.BuildConnectedSet(dir, s, test, datasets.BuildOptions{Strings: datasets.StringOptions{Count: n, Seed: *setSeed}})
			if err != nil {
				return err
			}
			sets = append(sets, namedSet{name: name, manifest: mp})
		}
	}
	if *manifests != "" {
		for _, p := range strings.Split(*manifests, ",") {
			sets = append(sets, namedSet{name: strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), manifest: p})
		}
	}
	if *engineSets != "" {
		for _, name := range strings.Split(*engineSets, ",") {
			e, err := datasets.EngineByName(strings.TrimSpace(name))
			if err != nil {
				return err
			}
			vs, err := datasets.BuildVoiceSet(defaults.VoicesDir(), e, datasets.DefaultVoiceSetOptions(), nil)
			if err != nil {
				return err
			}
			sets = append(sets, namedSet{name: e.Name() + "-fluent", utterances: vs.Strings})
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tstrings\twords\tWER %\tSER %\tsub\tins\tdel\tRTF")
	var exampleText strings.Builder
	for _, s := range sets {
		us := s.utterances
		if s.manifest != "" {
			if us, err = datasets.ReadTranscripts(s.manifest); err != nil {
				return err
			}
		}
		r, bad, err := scoreConnected(rec, s.name, us)
		if err != nil {
			return err
		}
		res.Sets = append(res.Sets, r)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%d\t%d\t%d\t%.4f\n", r.Set, r.Strings, r.Words, 100*r.WER, 100*r.SER, r.Sub, r.Ins, r.Del, r.RTF)
		for i, e := range bad {
			if i >= *examples {
				break
			}
			fmt.Fprintf(&exampleText, "  %s: ref %q → hyp %q\n", s.name, e.ref, e.hyp)
		}
	}
	tw.Flush()
	if exampleText.Len() > 0 {
		fmt.Fprintf(stdout, "misrecognised examples:\n%s", exampleText.String())
	}
	res.PeakRSSMB = progress.PeakRSSMB()
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// scoreConnected recognises every utterance of a set on all cores and
// scores the word strings.
func scoreConnected(rec *engine.Connected, name string, us []datasets.Utterance) (connectedSetResult, []exampleLine, error) {
	paths := make([]string, len(us))
	for i, u := range us {
		paths[i] = u.Path
	}
	hyps, audio, elapsed, err := recognizeFiles(rec, paths)
	if err != nil {
		return connectedSetResult{}, nil, err
	}
	// These transcripts name 0 one way: a 0 said "oh" is the 0 printed.
	for i := range hyps {
		hyps[i] = ohAsZero(hyps[i])
	}
	var counts decode.ErrorCounts
	var bad []exampleLine
	for i, u := range us {
		e := counts.Add(u.Words, hyps[i])
		if e.Errors() > 0 {
			bad = append(bad, exampleLine{u.Transcript(), strings.Join(hyps[i], " ")})
		}
	}
	r := connectedSetResult{Set: name, Strings: len(us), WER: counts.ErrorRate(), SER: counts.SER(), RTF: elapsed * float64(runtime.GOMAXPROCS(0)) / audio}
	r.Words, r.Sub, r.Ins, r.Del = counts.Ref, counts.Sub, counts.Ins, counts.Del
	return r, bad, nil
}

// unitOf is the word a result word came from: "oh" for a 0 said "oh"
// (printed 0, engine.OhLabel), so scoring can keep "oh" and "zero"
// apart as TIDIGITS' transcripts do; the printed word otherwise.
func unitOf(w engine.Word) string {
	if w.Spoken == engine.OhLabel {
		return datasets.OhWord
	}
	return w.Word
}

// recognizeFiles recognises every recording on all cores: the words of
// each (unitOf: "oh" kept apart from "0"), the seconds of audio in all,
// and the seconds the recognition took.
func recognizeFiles(rec *engine.Connected, paths []string) (hyps [][]string, audio, elapsed float64, err error) {
	hyps = make([][]string, len(paths))
	durs := make([]float64, len(paths))
	errs := make([]error, len(paths))
	start := time.Now()
	parallel.For(len(paths), func(i int) {
		a, err := frontend.ReadAudio(paths[i], 0)
		if err != nil {
			errs[i] = err
			return
		}
		durs[i] = a.Duration()
		r, err := rec.Recognize(a)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", paths[i], err)
			return
		}
		hyps[i] = []string{}
		for _, w := range r.Words {
			hyps[i] = append(hyps[i], unitOf(w))
		}
	})
	elapsed = time.Since(start).Seconds()
	for _, d := range durs {
		audio += d
	}
	return hyps, audio, elapsed, errors.Join(errs...)
}
