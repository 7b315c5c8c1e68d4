package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

func init() {
	registerTask(&task{name: "connected", summary: "connected digit strings: frame classifier over HMM states + Viterbi (WER/SER)",
		eval: evalConnected, train: trainConnected})
}

// defaultConnectedModel is where eval connected keeps the model it trains.
func defaultConnectedModel() string { return filepath.Join(dataDir(), "models", "connected.rfm") }

// connectedFlags are the training flags shared by train and eval.
type connectedFlags struct {
	mf            mapFlags
	fsdd          string
	classifier    string
	passes        int
	states        int
	silStates     int
	softmaxFrames int
	optimizer     string
	softmaxLambda float64
	softmaxIter   int
	rlsLambda     float64
	padMin        float64
	padMax        float64
	tune          bool
	trainStrings  int
	devStrings    int
	dec           rfstream.ConnectedDecoder
}

func (f *connectedFlags) register(fs *flag.FlagSet) {
	f.mf.register(fs, "maxout", 2000)
	fs.StringVar(&f.fsdd, "fsdd", fsddDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD); training uses takes 5-49")
	fs.StringVar(&f.classifier, "classifier", "rls", "frame classifier: rls (scores → posteriors by a fitted temperature) or softmax")
	fs.IntVar(&f.passes, "passes", 4, "re-alignments after the uniform bootstrap")
	fs.IntVar(&f.states, "states", 8, "HMM states per digit")
	fs.IntVar(&f.silStates, "sil-states", 3, "HMM states of silence")
	fs.IntVar(&f.softmaxFrames, "softmax-frames", 60000, "softmax: training frames subsampled (features are held in memory)")
	fs.StringVar(&f.optimizer, "optimizer", "adam", "softmax: adam or lbfgs")
	fs.Float64Var(&f.softmaxLambda, "softmax-lambda", 1e-3, "softmax: L2 weight on standardised features")
	fs.IntVar(&f.softmaxIter, "softmax-iter", 0, "softmax: L-BFGS iterations or Adam epochs (0: the optimiser's default)")
	fs.Float64Var(&f.rlsLambda, "lambda", 0, "rls: ridge parameter (0: choose on held-out frames)")
	fs.Float64Var(&f.padMin, "pad-min", 0.1, "training: least background-level silence added before and after each recording, s")
	fs.Float64Var(&f.padMax, "pad-max", 0.4, "training: most silence added, s")
	fs.IntVar(&f.trainStrings, "train-strings", 400, "also train on this many strings joined from training recordings (word times known from their construction)")
	fs.BoolVar(&f.tune, "tune", true, "choose the word penalty and acoustic scale on strings of held-out training recordings (takes 5-9)")
	fs.IntVar(&f.devStrings, "dev-strings", 100, "strings built for tuning")
	f.dec = rfstream.DefaultConnectedDecoder()
	fs.Float64Var(&f.dec.SelfLoop, "self-loop", f.dec.SelfLoop, "decoder: HMM self-loop probability")
	fs.Float64Var(&f.dec.WordPenalty, "word-penalty", f.dec.WordPenalty, "decoder: log-domain cost of each word")
	fs.Float64Var(&f.dec.AcousticScale, "acoustic-scale", f.dec.AcousticScale, "decoder: weight of the scaled log-likelihoods")
	fs.Float64Var(&f.dec.PriorScale, "prior-scale", f.dec.PriorScale, "decoder: power of the state priors divided out")
	fs.Float64Var(&f.dec.Beam, "beam", f.dec.Beam, "decoder: beam (0: exact search)")
}

// train reads the FSDD training split, pads every recording with silence
// and trains a connected model by alignment.
func (f *connectedFlags) train(log io.Writer) (*rfstream.Model, train.ConnectedReport, error) {
	var rep train.ConnectedReport
	if err := f.mf.refuseSelect("connected digits"); err != nil {
		return nil, rep, err
	}
	recs, err := datasets.FSDD(f.fsdd)
	if err != nil {
		return nil, rep, err
	}
	trainRecs, _ := datasets.OfficialSplit(recs)
	m, rep, err := f.trainOn(trainRecs, heldOutTake, log)
	if err != nil || !f.tune {
		return m, rep, err
	}
	rep.Tuning, err = f.tuneModel(m, trainRecs, log)
	return m, rep, err
}

// trainOn trains a connected model on the given recordings (each padded
// with silence, plus joined strings when trainStrings > 0); heldOut marks
// the recordings kept out of the classifier's training (nil: a seeded
// tenth). It does not tune the decoder.
func (f *connectedFlags) trainOn(trainRecs []datasets.Recording, heldOut func(datasets.Recording) bool, log io.Writer) (*rfstream.Model, train.ConnectedReport, error) {
	var rep train.ConnectedReport
	held := func(r datasets.Recording) bool { return heldOut != nil && heldOut(r) }
	in := rfstream.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = f.states, f.silStates, f.classifier
	utts := make([]train.Utterance, len(trainRecs))
	errs := make([]error, len(trainRecs))
	parallel.For(len(trainRecs), func(i int) {
		a, err := frontend.ReadAudio(trainRecs[i].Path, in.Audio.SampleRate)
		if err != nil {
			errs[i] = err
			return
		}
		rng := rand.New(rand.NewPCG(f.mf.seed, uint64(i)))
		lead := f.padMin + (f.padMax-f.padMin)*rng.Float64()
		trail := f.padMin + (f.padMax-f.padMin)*rng.Float64()
		utts[i] = train.Utterance{Samples: datasets.PadSilence(a.Samples, a.Rate, lead, trail, rng), Words: []string{trainRecs[i].Label},
			HeldOut: held(trainRecs[i])}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, rep, err
	}
	if f.trainStrings > 0 {
		var pool []datasets.Recording
		for _, r := range trainRecs {
			if !held(r) {
				pool = append(pool, r)
			}
		}
		plans, err := datasets.PlanStrings(pool, datasets.StringOptions{Count: f.trainStrings, Seed: f.mf.seed + 2000})
		if err != nil {
			return nil, rep, err
		}
		strs := make([]train.Utterance, len(plans))
		errs := make([]error, len(plans))
		parallel.For(len(plans), func(i int) {
			a, spans, err := datasets.RenderString(plans[i], in.Audio.SampleRate, datasets.Noise{}, f.mf.seed+uint64(i)<<20)
			if err != nil {
				errs[i] = err
				return
			}
			u := train.Utterance{Samples: a.Samples, Words: plans[i].Words()}
			for _, sp := range spans {
				u.Spans = append(u.Spans, [2]float64{sp.Start, sp.End})
			}
			strs[i] = u
		})
		if err := errors.Join(errs...); err != nil {
			return nil, rep, err
		}
		utts = append(utts, strs...)
	}
	recipe, err := f.mf.recipe(in.Audio.Dim())
	if err != nil {
		return nil, rep, err
	}
	words := datasets.Labels(trainRecs)
	m, rep, err := train.Connected(utts, train.ConnectedOptions{
		Input: in, Decoder: f.dec, Map: recipe, Words: words, Passes: f.passes,
		SoftmaxFrames: f.softmaxFrames, RLSLambda: f.rlsLambda, Seed: f.mf.seed, Log: log,
		Softmax: classifier.SoftmaxOptions{Optimizer: f.optimizer, Lambda: f.softmaxLambda, MaxIter: f.softmaxIter, Seed: f.mf.seed},
	})
	if err == nil && f.trainStrings > 0 {
		// The model learns the joined strings' pauses: say how they were
		// rendered, so a cached model from another rendering is retrained.
		m.Meta[pausesMeta] = datasets.PauseRendering
	}
	return m, rep, err
}

// pausesMeta is the model metadata key naming how the pauses of its
// training strings were rendered.
const pausesMeta = "string_pauses"

// tuneModel chooses the decoder settings on strings of the held-out
// training recordings and writes them into m.
func (f *connectedFlags) tuneModel(m *rfstream.Model, trainRecs []datasets.Recording, log io.Writer) ([]train.TuneTrial, error) {
	rate := rfstream.DefaultConnectedInput().Audio.SampleRate
	var held []datasets.Recording
	for _, r := range trainRecs {
		if heldOutTake(r) {
			held = append(held, r)
		}
	}
	plans, err := datasets.PlanStrings(held, datasets.StringOptions{Count: f.devStrings, Seed: f.mf.seed + 1000})
	if err != nil {
		return nil, err
	}
	dev := make([]train.DevUtterance, len(plans))
	errs := make([]error, len(plans))
	parallel.For(len(plans), func(i int) {
		a, _, err := datasets.RenderString(plans[i], rate, datasets.Noise{}, uint64(i))
		dev[i], errs[i] = train.DevUtterance{Audio: a, Words: plans[i].Words()}, err
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	trials, err := train.TuneConnected(m, dev, train.DefaultTuneGrid())
	if err != nil {
		return nil, err
	}
	best := trials[0]
	for _, t := range trials {
		if t.WER < best.WER {
			best = t
		}
	}
	fmt.Fprintf(log, "connected: tuned on %d strings of held-out training recordings: word penalty %g, acoustic scale %g, prior scale %g (dev WER %.2f%%; untuned %.2f%%)\n",
		len(dev), best.WordPenalty, best.AcousticScale, best.PriorScale, 100*best.WER, 100*trials[0].WER)
	return trials, nil
}

// heldOutTake: takes 5-9 of the training split are held out of the
// classifier's training, to choose λ and the temperature, measure held-out
// frame accuracy and tune the decoder; the test split (takes 0-4) is never
// used for any choice.
func heldOutTake(r datasets.Recording) bool { return r.Take >= 5 && r.Take <= 9 }

func trainConnected(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train connected", "[flags]", stderr)
	var cf connectedFlags
	cf.register(fs)
	out := fs.String("out", defaultConnectedModel(), "model file to write")
	asJSON := fs.Bool("json", false, "end with one JSON object (the training report)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	m, rep, err := cf.train(stderr)
	if err != nil {
		return err
	}
	if err := rfstream.SaveModel(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained in %.1f s; saved %s\n", rep.Seconds, *out)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	return nil
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
	fs := newFlagSet("eval connected", "[flags]", stderr)
	var cf connectedFlags
	cf.register(fs)
	modelPath := fs.String("model", "", "evaluate this model instead of training one")
	retune := fs.Bool("retune", false, "with --model: choose its decoder settings again on held-out training strings")
	retrain := fs.Bool("retrain", true, "train a model (with the flags above) rather than reuse "+defaultConnectedModel())
	setsFlag := fs.String("sets", "clean,snr20,snr10,espeak", "generated test sets to score (clean, snr20, snr10, espeak)")
	nStrings := fs.Int("strings", 200, "strings per generated FSDD test set")
	nEspeak := fs.Int("espeak-strings", 120, "strings in the espeak-ng test set")
	setSeed := fs.Uint64("set-seed", 1, "seed of the generated test sets")
	manifests := fs.String("manifest", "", "also score these comma-separated transcript manifests (TSV: path, digits separated by spaces)")
	examples := fs.Int("examples", 3, "print this many misrecognised strings per set")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	res := connectedEval{Task: "connected"}
	var m *rfstream.Model
	var err error
	switch {
	case *modelPath != "":
		if m, err = rfstream.LoadModel(*modelPath); err != nil {
			return err
		}
		res.Model = *modelPath
		if *retune {
			recs, err := datasets.FSDD(cf.fsdd)
			if err != nil {
				return err
			}
			train, _ := datasets.OfficialSplit(recs)
			if _, err := cf.tuneModel(m, train, stderr); err != nil {
				return err
			}
		}
	case *retrain:
		var rep train.ConnectedReport
		if m, rep, err = cf.train(stderr); err != nil {
			return err
		}
		res.Passes, res.TrainSec = rep.Passes, rep.Seconds
		if err := rfstream.SaveModel(defaultConnectedModel(), m); err != nil {
			return err
		}
		res.Model = defaultConnectedModel()
	default:
		if m, err = loadOrTrain(defaultConnectedModel(), stderr, func() (*rfstream.Model, error) {
			m, _, err := cf.train(stderr)
			return m, err
		}); err != nil {
			return err
		}
		res.Model = defaultConnectedModel()
	}
	rec, err := rfstream.NewConnected(m)
	if err != nil {
		return err
	}
	res.Classifier, res.Map, res.M = rec.Input.Classifier, m.Map.Kind, rec.Map.OutDim()

	type namedSet struct {
		name     string
		manifest string
	}
	var sets []namedSet
	if *setsFlag != "" {
		recs, err := datasets.FSDD(cf.fsdd)
		if err != nil {
			return err
		}
		_, test := datasets.OfficialSplit(recs)
		known := map[string]datasets.ConnectedSet{}
		for _, s := range datasets.DefaultConnectedSets {
			known[s.Name] = s
		}
		dir := filepath.Join(dataDir(), "connected")
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
			sets = append(sets, namedSet{name, mp})
		}
	}
	if *manifests != "" {
		for _, p := range strings.Split(*manifests, ",") {
			sets = append(sets, namedSet{strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), p})
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tstrings\twords\tWER %\tSER %\tsub\tins\tdel\tRTF")
	var exampleText strings.Builder
	for _, s := range sets {
		us, err := datasets.ReadTranscripts(s.manifest)
		if err != nil {
			return err
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
	res.PeakRSSMB = peakRSSMB()
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// scoreConnected recognises every utterance of a set on all cores and
// scores the word strings.
func scoreConnected(rec *rfstream.Connected, name string, us []datasets.Utterance) (connectedSetResult, []exampleLine, error) {
	hyps := make([][]string, len(us))
	durs := make([]float64, len(us))
	errs := make([]error, len(us))
	start := time.Now()
	parallel.For(len(us), func(i int) {
		a, err := readWAVFile(us[i].Path)
		if err != nil {
			errs[i] = err
			return
		}
		durs[i] = a.Duration()
		r, err := rec.Recognize(a)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", us[i].Path, err)
			return
		}
		hyps[i] = []string{}
		for _, w := range r.Words {
			hyps[i] = append(hyps[i], w.Word)
		}
	})
	elapsed := time.Since(start).Seconds()
	if err := errors.Join(errs...); err != nil {
		return connectedSetResult{}, nil, err
	}
	var counts decode.ErrorCounts
	var bad []exampleLine
	var audio float64
	for i, u := range us {
		e := counts.Add(u.Words, hyps[i])
		if e.Errors() > 0 {
			bad = append(bad, exampleLine{u.Transcript(), strings.Join(hyps[i], " ")})
		}
		audio += durs[i]
	}
	r := connectedSetResult{Set: name, Strings: len(us), WER: counts.ErrorRate(), SER: counts.SER(), RTF: elapsed * float64(runtime.GOMAXPROCS(0)) / audio}
	r.Words, r.Sub, r.Ins, r.Del = counts.Ref, counts.Sub, counts.Ins, counts.Del
	return r, bad, nil
}
