package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/train"
	"github.com/rfstream/rfstream/transforms"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "digits", Summary: "spoken digits (FSDD or manifests): whole-word random features + RLS",
		Eval: evalDigits})
}

// mismatchConditions shift pitch by ±400 cents and play at 0.7× and 1.4×
// speed, with the waveform transforms; training stays clean.
var mismatchConditions = []train.Condition{
	{Name: "pitch +400c", Warp: func(x []float32, r int) ([]float32, error) { return transforms.PitchShift(x, r, 400) }},
	{Name: "pitch -400c", Warp: func(x []float32, r int) ([]float32, error) { return transforms.PitchShift(x, r, -400) }},
	{Name: "tempo 0.7x", Warp: func(x []float32, r int) ([]float32, error) { return transforms.TempoWarp(x, r, 0.7) }},
	{Name: "tempo 1.4x", Warp: func(x []float32, r int) ([]float32, error) { return transforms.TempoWarp(x, r, 1.4) }},
}

// digitSplit is one train/test division of the recordings.
type digitSplit struct {
	name        string
	train, test []datasets.Recording
}

// digitSplits divides the recordings w locates as split says.
func digitSplits(w cli.WordSet, split string) ([]digitSplit, error) {
	if w.TrainManifest != "" || w.TestManifest != "" {
		if w.TrainManifest == "" || w.TestManifest == "" {
			return nil, errors.New("give both --train-manifest and --test-manifest")
		}
		tr, err := datasets.ReadManifest(w.TrainManifest)
		if err != nil {
			return nil, err
		}
		te, err := datasets.ReadManifest(w.TestManifest)
		if err != nil {
			return nil, err
		}
		return []digitSplit{{"manifest", tr, te}}, nil
	}
	recs, err := datasets.FSDD(w.FSDD)
	if err != nil {
		return nil, err
	}
	if recs, err = train.ExcludeSpeakers(recs, w.Exclude); err != nil {
		return nil, err
	}
	switch split {
	case "official":
		tr, te := datasets.OfficialSplit(recs)
		return []digitSplit{{"official", tr, te}}, nil
	case "dev":
		// Inside the official training takes only: 10-49 train, 5-9 test,
		// for choosing settings without touching the official test takes.
		tr, _ := datasets.OfficialSplit(recs)
		var fit, dev []datasets.Recording
		for _, r := range tr {
			if r.Take < 10 {
				dev = append(dev, r)
			} else {
				fit = append(fit, r)
			}
		}
		return []digitSplit{{"dev (takes 5-9)", fit, dev}}, nil
	case "speaker":
		var out []digitSplit
		for _, s := range datasets.Speakers(recs) {
			tr, te := datasets.SpeakerSplit(recs, s)
			out = append(out, digitSplit{"held-out " + s, tr, te})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown --split %q (official, speaker, dev)", split)
}

// digitsResult is one line of `rfstream eval digits --json`.
type digitsResult struct {
	Task        string             `json:"task"`
	Split       string             `json:"split"`
	Map         string             `json:"map"`
	M           int                `json:"m"`
	Q           int                `json:"q,omitempty"`
	Seeds       int                `json:"seeds"`
	Accuracy    float64            `json:"accuracy"`
	AccuracyStd float64            `json:"accuracy_std"`
	TestError   float64            `json:"test_error"`
	PerSplit    map[string]float64 `json:"per_split,omitempty"`
	Conditions  map[string]float64 `json:"conditions,omitempty"` // accuracy per test condition (clean, mismatch)
	// Drops is, per mismatch condition, the clean accuracy minus the
	// condition's (averaged over splits for each seed), mean and standard
	// deviation over the seeds.
	Drops        map[string]float64 `json:"drops,omitempty"`
	DropsStd     map[string]float64 `json:"drops_std,omitempty"`
	TrainSeconds float64            `json:"train_seconds"`
	PeakRSSMB    float64            `json:"peak_rss_mb"`
	Select       string             `json:"select,omitempty"`
	ScoreSeconds float64            `json:"score_seconds,omitempty"` // ELSS scoring, all splits and seeds
	Recognizer   string             `json:"recognizer,omitempty"`
	// Components is, with --recognizer hmm or combo, the accuracy of each
	// recogniser alone and of the combination at every weight tried.
	Components map[string]float64 `json:"components,omitempty"`
	// Confusions is, with --confusion-table, every split's confusion
	// matrix (first seed; rows true, columns predicted, in Labels' order).
	Confusions map[string][][]int `json:"confusions,omitempty"`
	Labels     []string           `json:"labels,omitempty"`
}

// digitRecipe is where eval digits' defaults come from: the product's
// recipe; the tests swap in one without synthetic voices, whose synthesis
// would take them minutes.
var digitRecipe = train.DefaultDigitOptions

// legacyDigitRecipe is eval digits' defaults before issue 37 made them the
// product's recipe (FSDD alone, the speech detector's default rules; every
// recorded run gives its m): what the recorded nested and mismatch runs'
// arguments mean, so those tools keep running them with it.
func legacyDigitRecipe() train.WordOptions {
	o := train.DefaultDigitOptions()
	o.Map.M = 2000
	o.Voices.SynthVoices, o.Voices.Engines.Engines = 0, nil
	o.Word.FloorShare, o.Word.MaxGapMs = 0, 0
	return o
}

// digitsFlags are eval digits' settings.
type digitsFlags struct {
	mf                                    train.MapOptions
	ws                                    cli.WordSet
	hf                                    hmmFlags
	tv                                    train.VoiceOptions
	checkVoices                           func() error
	wc                                    frontend.WordConfig
	split, confusion, predFile            string
	lambdaBy, spkNorm, spkWarpBy          string
	testWarpsFlag, testWarpPool, selfFlag string
	seeds, augment, knnSmooth             int
	orbit                                 train.WarpOrbit
	lambda                                float64
	spkWarp, spkWarpStep                  float64
	asJSON, confTable, mismatch           bool
	ensemble, balanced                    bool
	// Read from the flags above by check.
	selfFracs, testWarps, comboWeights []float64
}

func (f *digitsFlags) register(fs *flag.FlagSet, def train.WordOptions) {
	f.mf = def.Map
	cli.MapFlags(fs, &f.mf)
	cli.WordSetFlags(fs, &f.ws)
	f.hf.register(fs)
	f.tv = def.Voices
	f.checkVoices = cli.VoiceFlags(fs, &f.tv)
	fs.StringVar(&f.split, "split", "official", "official (takes 0-4 test), speaker (leave one speaker out) or dev (takes 5-9 test, 10-49 train: for choosing settings)")
	fs.IntVar(&f.seeds, "seeds", 1, "map seeds to average over (seed, seed+1, …)")
	fs.Float64Var(&f.lambda, "lambda", 0, "ridge parameter (0: choose on held-out training recordings)")
	fs.BoolVar(&f.asJSON, "json", false, "end with one JSON object on the last line")
	fs.StringVar(&f.confusion, "confusion", "", "also draw the confusion matrix (all splits pooled, first seed) to this base name")
	fs.BoolVar(&f.confTable, "confusion-table", false, "print every split's confusion matrix (first seed) and its most frequent confusions; --json carries them too")
	fs.StringVar(&f.predFile, "predictions", "", "write every test recording's true and predicted label (first seed) to this TSV: split, path, speaker, label, predicted")
	fs.BoolVar(&f.mismatch, "mismatch", false, "also test on recordings pitch-shifted ±400 cents and played at 0.7× and 1.4× (training stays clean)")
	f.orbit = def.Orbit
	cli.WarpOrbitFlags(fs, &f.orbit)
	fs.StringVar(&f.lambdaBy, "lambda-by", "random", "hold out for choosing λ: random (10% of training recordings) or speaker (all recordings of one training speaker)")
	fs.StringVar(&f.spkNorm, "speaker-norm", "none", "speaker-level CMVN of word vectors: none, mean (each speaker's mean log-mel spectrum removed) or meanvar; statistics from the speaker's training recordings, or for an unseen voice from its own (unlabelled) test recordings")
	fs.Float64Var(&f.spkWarp, "speaker-warp", 0, "VTLN-like: warp each speaker's vectors along the frequency axis by the shift (within ±this many cents) that best matches the training speakers' canonical mean spectrum (0: off); before --speaker-norm")
	fs.StringVar(&f.spkWarpBy, "speaker-warp-by", "spectrum", "--speaker-warp: spectrum (every speaker matched to the training voices' canonical mean spectrum, training included) or confidence (training unchanged; each voice absent from training gets the warp under which the model's score margin on its recordings is largest)")
	fs.Float64Var(&f.spkWarpStep, "speaker-warp-step", 25, "--speaker-warp: grid step in cents")
	fs.BoolVar(&f.ensemble, "ensemble", false, "one prediction from all --seeds maps together (standardised scores summed) instead of the mean accuracy over seeds")
	fs.IntVar(&f.augment, "augment", 0, "add this many pitch/tempo-warped copies (same ±cents, tempo range) of every training vector")
	fs.StringVar(&f.testWarpsFlag, "test-warps", "", "test-time warping: comma-separated pitch/formant shifts in cents (e.g. -200,-100,0,100,200); every test recording is scored under each shift of its log-mel patch and the class scores pooled (see --test-warp-pool)")
	fs.StringVar(&f.testWarpPool, "test-warp-pool", "mean", "--test-warps: mean (average the class scores over the shifts) or max (keep each class's best)")
	fs.IntVar(&f.knnSmooth, "knn-smooth", 0, "for voices absent from training: replace each recording's scores by the mean standardised scores of its k nearest recordings of the same voice (0: off); also picks --self-train's pseudo-labels")
	fs.BoolVar(&f.balanced, "self-train-balanced", false, "--self-train: assume every unseen voice says each word about equally often, and cap each class's pseudo-labels at its share (see experiments/journal/audio.md: this uses the test voice's label distribution)")
	fs.StringVar(&f.selfFlag, "self-train", "", "unsupervised adaptation to voices absent from training: comma-separated fractions, one self-training round each (e.g. 0.5,1: refit with the surest half of each unseen voice's test recordings, class by class, under their predicted labels, then with all of them)")
	f.wc = def.Word
	cli.WordConfigFlags(fs, &f.wc)
}

// check refuses settings that do not go together and reads the list flags.
func (f *digitsFlags) check() error {
	if err := f.hf.validate(); err != nil {
		return err
	}
	if err := f.checkVoices(); err != nil {
		return err
	}
	var err error
	if f.selfFracs, err = cli.ParseSelfTrain(f.selfFlag); err != nil {
		return err
	}
	if (len(f.selfFracs) > 0 || f.knnSmooth != 0) && f.mismatch {
		return errors.New("--self-train and --knn-smooth work without --mismatch")
	}
	if f.knnSmooth < 0 {
		return fmt.Errorf("--knn-smooth %d: want ≥ 0", f.knnSmooth)
	}
	if f.testWarps, err = parseTestWarps(f.testWarpsFlag); err != nil {
		return err
	}
	if f.testWarpPool != "mean" && f.testWarpPool != "max" {
		return fmt.Errorf("unknown --test-warp-pool %q (mean, max)", f.testWarpPool)
	}
	if len(f.testWarps) > 0 && (f.mismatch || f.spkWarp > 0) {
		return errors.New("--test-warps works without --mismatch and --speaker-warp")
	}
	if f.comboWeights, err = f.hf.comboWeights(); err != nil {
		return err
	}
	if f.ensemble && (f.mismatch || f.confusion != "" || f.confTable || f.predFile != "") {
		return errors.New("--ensemble works without --mismatch, --confusion, --confusion-table and --predictions")
	}
	if f.spkWarpBy != "spectrum" && f.spkWarpBy != "confidence" {
		return fmt.Errorf("unknown --speaker-warp-by %q (spectrum, confidence)", f.spkWarpBy)
	}
	if f.spkWarpBy == "confidence" && f.mismatch {
		return errors.New("--speaker-warp-by confidence works without --mismatch")
	}
	if f.hf.used() && f.mismatch {
		return errors.New("--mismatch works with --recognizer words only")
	}
	if f.hf.teacherOnly && len(f.selfFracs) == 0 {
		return errors.New("--hmm-teacher-only needs --self-train (the HMM would take no part)")
	}
	if f.hf.recognizer == "hmm" && (len(f.selfFracs) > 0 || f.knnSmooth > 0) {
		// Both adapt the whole-word model, which --recognizer hmm ignores.
		return errors.New("--self-train and --knn-smooth adapt the whole-word model: use them with --recognizer words or combo, not hmm")
	}
	return nil
}

// digitsEval is one run of eval digits: its settings, what every split
// shares, and what the splits and seeds add up to.
type digitsEval struct {
	digitsFlags
	stdout, stderr io.Writer
	warps          transforms.Group
	conds          []train.Condition
	synth          []datasets.Recording
	cache          train.VectorCache
	res            digitsResult
	tw             *tabwriter.Writer
	grid           *progress.Bar
	preds          *predictionWriter
	compAcc        map[string][]float64
	compNames      []string
	condAcc        map[string][]float64
	// seedCond[c][s]: condition c's accuracy with seed s, summed over splits.
	seedCond         [][]float64
	accs             []float64
	trainSec         float64
	allTrue, allPred []int
	names            []string
	nsplits          int
	// given are splits made by the caller (eval tidigits), used instead
	// of the ones --split names.
	given []digitSplit
}

// evalDigits is eval digits with the product's recipe as its defaults, so
// the bare command measures the model rfstream train digits makes.
func evalDigits(args []string, stdout, stderr io.Writer) error {
	return evalDigitsFrom(digitRecipe(), args, stdout, stderr)
}

// evalDigitsFrom is eval digits with def's settings as its defaults.
func evalDigitsFrom(def train.WordOptions, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval digits", "[flags]", stderr)
	e := &digitsEval{stdout: stdout, stderr: stderr}
	e.register(fs, def)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if err := e.check(); err != nil {
		return err
	}
	splits, err := e.prepare()
	if err != nil {
		return err
	}
	return e.runSplits(splits)
}

// runSplits evaluates every split and prints the summaries.
func (e *digitsEval) runSplits(splits []digitSplit) (err error) {
	if e.predFile != "" {
		if e.preds, err = newPredictionWriter(e.predFile); err != nil {
			return err
		}
		defer func() {
			if e.preds != nil { // an error path: the file is left as written so far
				e.preds.close()
			}
		}()
	}
	e.grid = progress.New(e.stderr, "digits runs", int64(len(splits)*e.seeds), "runs")
	defer e.grid.Finish()
	for _, sp := range splits {
		if err := e.evalSplit(sp); err != nil {
			return err
		}
	}
	return e.finish()
}

// prepare sets up what every split shares: the map's group, the test
// conditions, the splits, the synthetic voices and the table's header.
func (e *digitsEval) prepare() ([]digitSplit, error) {
	e.compAcc = map[string][]float64{}
	spec := e.orbit.Spec(e.wc)
	e.mf.Group = &spec
	// The speaker warp and the test-time warps use the pitch/tempo group
	// whatever the invariant map's orbit.
	var err error
	if e.warps, err = transforms.Build(train.WordGroup(e.wc, e.orbit.Cents, e.orbit.Tempo, e.orbit.FillMin)); err != nil {
		return nil, err
	}
	e.conds = []train.Condition{train.Clean}
	if e.mismatch {
		e.conds = append(e.conds, mismatchConditions...)
	}
	e.res.Conditions = map[string]float64{}
	splits := e.given
	if splits == nil {
		if splits, err = digitSplits(e.ws, e.split); err != nil {
			return nil, err
		}
	}
	e.nsplits = len(splits)
	if e.synth, err = e.tv.Synth(e.wc.Audio.SampleRate); err != nil {
		return nil, err
	}
	e.res.Task, e.res.Split, e.res.Map, e.res.Seeds, e.res.PerSplit = "digits", e.split, e.mf.Kind, e.seeds, map[string]float64{}
	if e.mf.Kind == "maxout" {
		e.res.Q = e.mf.Q
	}
	e.tw = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(e.tw, "split\ttrain\ttest\tmap\t")
	for _, c := range e.conds {
		fmt.Fprintf(e.tw, "%s\t", c.Name)
	}
	fmt.Fprintln(e.tw, "train s")
	e.condAcc = map[string][]float64{}
	e.seedCond = make([][]float64, len(e.conds))
	for i := range e.seedCond {
		e.seedCond[i] = make([]float64, e.seeds)
	}
	e.cache = train.VectorCache{}
	return splits, nil
}

func (e *digitsEval) addComp(name string, acc float64) {
	if _, ok := e.compAcc[name]; !ok {
		e.compNames = append(e.compNames, name)
	}
	e.compAcc[name] = append(e.compAcc[name], acc)
}

// splitRows is one split's data as its seeds share it.
type splitRows struct {
	sp digitSplit // sp.train: one recording per training row
	// realTrain are the split's own recordings; sp.train becomes one
	// recording per training row once synthetic voices, speed copies and
	// repeats are added. groups ties each row to its source recording for
	// the λ hold-out.
	realTrain []datasets.Recording
	groups    []int
	labels    []string
	xtr       blas32.General
	ytr, yte  []int
	// xtes are the test vectors under each condition; rawTest keeps the
	// clean ones before any speaker normalisation, for the
	// confidence-chosen warp.
	xtes    []blas32.General
	rawTest blas32.General
	norm    *train.SpeakerNorm
	trained map[string]bool // the training speakers
	// hs are the HMM recogniser's scores of the test recordings, when it
	// takes part.
	hs blas32.General
}

// rows is the split's rows phase (train.WordRows, as train.Words runs it)
// and the test vectors under every condition.
func (e *digitsEval) rows(sp digitSplit) (*splitRows, error) {
	d := &splitRows{realTrain: sp.train, labels: datasets.Labels(sp.train)}
	rows, err := train.WordRows(sp.train, e.synth, e.tv, e.wc, e.cache, e.stderr)
	if err != nil {
		return nil, err
	}
	d.xtr, sp.train, d.groups = rows.X, rows.Recs, rows.Groups
	d.sp = sp
	idx := train.LabelIndex(d.labels)
	if d.ytr, err = train.Indices(sp.train, idx); err != nil {
		return nil, err
	}
	if d.yte, err = train.Indices(sp.test, idx); err != nil {
		return nil, err
	}
	d.xtes = make([]blas32.General, len(e.conds))
	for i, c := range e.conds {
		if d.xtes[i], err = train.CachedWordVectors(sp.test, e.wc, e.cache, c, e.stderr); err != nil {
			return nil, err
		}
	}
	d.rawTest = linalg.NewGeneral32(d.xtes[0].Rows, d.xtes[0].Cols)
	copy(d.rawTest.Data, d.xtes[0].Data)
	d.trained = map[string]bool{}
	for _, r := range sp.train {
		d.trained[r.Speaker] = true
	}
	return d, nil
}

// normalise is the split's normalisation phase: the speaker warp chosen
// by spectrum, then speaker CMVN (train.SpeakerNorm, as train.Words
// normalises voices), test rows before training rows.
func (e *digitsEval) normalise(d *splitRows) error {
	if e.spkWarp > 0 && e.spkWarpBy == "spectrum" {
		sg, ok := e.warps.(*transforms.SpectroGroup)
		if !ok {
			return fmt.Errorf("--speaker-warp needs the spectro-warp group")
		}
		sw, err := newSpeakerWarp(sg, e.wc.Audio.Mels, e.spkWarp, e.spkWarpStep)
		if err != nil {
			return err
		}
		sw.fit(d.xtr, d.sp.train)
		var unseen map[string]float64
		for i := range d.xtes {
			if u := sw.apply(d.xtes[i], d.sp.test); i == 0 {
				unseen = u
			}
		}
		sw.apply(d.xtr, d.sp.train)
		fmt.Fprintf(e.stderr, "%s: speaker warps (cents): %s\n", d.sp.name, sw.report(unseen))
	}
	switch e.spkNorm {
	case "none":
	case "mean", "meanvar":
		// Test statistics are estimated before any row is changed.
		d.norm = train.NewSpeakerNorm(d.xtr, d.sp.train, e.wc.Audio.Mels, e.spkNorm == "meanvar")
		for i := range d.xtes {
			d.norm.Apply(d.xtes[i], d.sp.test)
		}
		d.norm.Apply(d.xtr, d.sp.train)
	default:
		return fmt.Errorf("unknown --speaker-norm %q (none, mean, meanvar)", e.spkNorm)
	}
	return nil
}

// evalSplit evaluates every seed on one split and adds the split's line
// to the table.
func (e *digitsEval) evalSplit(sp digitSplit) error {
	d, err := e.rows(sp)
	if err != nil {
		return err
	}
	if err := e.normalise(d); err != nil {
		return err
	}
	// The HMM recogniser is trained once per split (with the base seed);
	// the whole-word maps vary with the seeds. ens sums every seed's
	// standardised whole-word scores.
	if e.hf.used() {
		// The HMM trains on the real recordings only.
		iw, err := e.hf.model(d.realTrain, e.ws.FSDD, e.mf.Seed, e.stderr)
		if err != nil {
			return err
		}
		if d.hs, err = hmmScores(iw, d.sp.test, d.labels, e.hf.pad); err != nil {
			return err
		}
	}
	var splitAcc []float64
	perCond := make([][]float64, len(e.conds))
	ens := linalg.NewGeneral32(len(d.sp.test), len(d.labels))
	for s := 0; s < e.seeds; s++ {
		acc, err := e.evalSeed(d, s, ens, perCond)
		if err != nil {
			return err
		}
		splitAcc = append(splitAcc, acc)
	}
	if e.ensemble {
		// One prediction per recording from all seeds' maps together.
		pred := classifier.Argmax(ens)
		if e.hf.used() {
			accOf := func(p []int) float64 { return 1 - classifier.ErrorRate(p, d.yte) }
			e.addComp("words ensemble", accOf(pred))
			for _, w := range e.comboWeights {
				e.addComp(fmt.Sprintf("ensemble+hmm w=%g", w), accOf(classifier.Argmax(combineScores(ens, d.hs, w))))
			}
			pred = e.hf.predict(ens, d.hs)
		}
		splitAcc = []float64{1 - classifier.ErrorRate(pred, d.yte)}
		fmt.Fprintf(e.tw, "%s\t%d\t%d\tensemble of %d seeds\t%.2f%%\n", d.sp.name, len(d.sp.train), len(d.sp.test), e.seeds, 100*splitAcc[0])
	}
	mean, _ := meanStd(splitAcc)
	e.res.PerSplit[d.sp.name] = mean
	e.accs = append(e.accs, splitAcc...)
	fmt.Fprintf(e.tw, "%s\t%d\t%d\t%s\t", d.sp.name, len(d.sp.train), len(d.sp.test), e.mf.Label(features.NewIdentity(e.res.M)))
	for i, c := range e.conds {
		m, sd := meanStd(perCond[i])
		e.condAcc[c.Name] = append(e.condAcc[c.Name], m)
		fmt.Fprintf(e.tw, "%.2f%% ± %.2f\t", 100*m, 100*sd)
	}
	fmt.Fprintf(e.tw, "%.1f\n", e.trainSec)
	return nil
}

// evalSeed fits the whole-word model of seed number s on the split (the
// map and fit phases, as train.Words runs them), scores the test
// recordings and records the accuracy under every condition; it adds the
// seed's standardised scores to ens and returns its clean accuracy.
func (e *digitsEval) evalSeed(d *splitRows, s int, ens blas32.General, perCond [][]float64) (float64, error) {
	mfs := e.mf
	mfs.Seed = e.mf.Seed + uint64(s)
	// --templates data draws from the (normalised) training vectors.
	fm, sel, err := mfs.Build(d.xtr, d.ytr, len(d.labels), nil)
	if err != nil {
		return 0, err
	}
	if sel != nil {
		e.res.Select = sel.Method
		e.res.ScoreSeconds += sel.ScoreSeconds
	}
	e.res.M = fm.OutDim()
	start := time.Now()
	fit := fitRows{fm: fm, classes: len(d.labels), seed: mfs.Seed}
	if fit.x, fit.y, err = augmentWarped(d.xtr, d.ytr, e.warps, e.augment, mfs.Seed); err != nil {
		return 0, err
	}
	wf := train.WordFit{Lambda: e.lambda, LambdaBy: e.lambdaBy, Seed: mfs.Seed}
	if fit.rls, fit.rep, err = train.FitWords(fm, fit.x, fit.y, fit.classes, d.sp.train, d.groups, d.xtr.Rows, wf); err != nil {
		return 0, err
	}
	e.trainSec += time.Since(start).Seconds()
	e.grid.Add(1)
	scores, err := e.scoreTest(d, &fit, mfs.Seed)
	if err != nil {
		return 0, err
	}
	pred := classifier.Argmax(scores)
	addScaled(ens, scores)
	if e.hf.used() {
		accOf := func(p []int) float64 { return 1 - classifier.ErrorRate(p, d.yte) }
		e.addComp("words", accOf(pred))
		e.addComp("hmm", accOf(classifier.Argmax(d.hs)))
		for _, w := range e.comboWeights {
			e.addComp(fmt.Sprintf("combo w=%g", w), accOf(classifier.Argmax(combineScores(scores, d.hs, w))))
		}
		pred = e.hf.predict(scores, d.hs)
	}
	acc := 1 - classifier.ErrorRate(pred, d.yte)
	if s == 0 {
		if err := e.recordFirstSeed(d, pred, e.hf.decisionScores(scores, d.hs)); err != nil {
			return 0, err
		}
	}
	perCond[0] = append(perCond[0], acc)
	for i := 1; i < len(e.conds); i++ {
		p := fit.rls.Predict(features.Apply(fm, d.xtes[i], 0))
		perCond[i] = append(perCond[i], 1-classifier.ErrorRate(p, d.yte))
	}
	for i := range e.conds {
		e.seedCond[i][s] += perCond[i][s] / float64(e.nsplits)
	}
	return acc, nil
}

// fitRows are a seed's fitted read-out and what it was fitted on.
type fitRows struct {
	fm      features.Map
	classes int
	x       blas32.General // the training rows with their augmented copies
	y       []int
	seed    uint64
	rls     *classifier.RLS
	rep     classifier.FitReport
}

// recordFirstSeed keeps the first seed's predictions for the confusion
// matrix, the confusion table and the predictions file.
func (e *digitsEval) recordFirstSeed(d *splitRows, pred []int, decision blas32.General) error {
	e.allTrue, e.allPred, e.names = append(e.allTrue, d.yte...), append(e.allPred, pred...), d.labels
	if e.confTable {
		counts, err := confusionCounts(d.yte, pred, len(d.labels))
		if err != nil {
			return err
		}
		if e.res.Confusions == nil {
			e.res.Confusions = map[string][][]int{}
		}
		e.res.Confusions[d.sp.name], e.res.Labels = counts, d.labels
		writeConfusionTable(e.stdout, d.sp.name, d.labels, counts)
	}
	if e.preds != nil {
		return e.preds.add(d.sp.name, d.sp.test, d.labels, pred, decision)
	}
	return nil
}

// scoreTest scores the split's test recordings with the seed's read-out:
// plain or pooled over test-time warps, with a confidence-chosen warp per
// unseen voice, neighbour smoothing and self-training rounds as asked.
func (e *digitsEval) scoreTest(d *splitRows, fit *fitRows, seed uint64) (blas32.General, error) {
	prep := func(x blas32.General) {
		if d.norm != nil {
			d.norm.Apply(x, d.sp.test)
		}
	}
	score := func(m *classifier.RLS, x blas32.General) blas32.General {
		out := linalg.NewGeneral32(x.Rows, fit.classes)
		m.Scores(out, features.Apply(fit.fm, x, 0))
		return out
	}
	// scored are the test vectors as the model last scored them.
	scored := d.xtes[0]
	// scoreTest gives a model's scores of the test recordings: plain, or
	// pooled over the test-time warps.
	scoreTest := func(m *classifier.RLS) (blas32.General, error) { return score(m, scored), nil }
	if len(e.testWarps) > 0 {
		sg, ok := e.warps.(*transforms.SpectroGroup)
		if !ok {
			return blas32.General{}, fmt.Errorf("--test-warps needs the spectro-warp group")
		}
		views := testWarpViews(d.rawTest, sg, e.testWarps, prep)
		scoreTest = func(m *classifier.RLS) (blas32.General, error) {
			return pooledScores(views, func(x blas32.General) blas32.General { return score(m, x) }, e.testWarpPool)
		}
	}
	scores, err := scoreTest(fit.rls)
	if err != nil {
		return scores, err
	}
	if e.spkWarp > 0 && e.spkWarpBy == "confidence" {
		sg, ok := e.warps.(*transforms.SpectroGroup)
		if !ok {
			return scores, fmt.Errorf("--speaker-warp needs the spectro-warp group")
		}
		var grid []float64
		for c := -e.spkWarp; c <= e.spkWarp+1e-9; c += e.spkWarpStep {
			grid = append(grid, c)
		}
		var chosen map[string]float64
		scores, chosen = confidenceWarp(d.rawTest, d.sp.test, d.trained, sg, grid, prep, func(x blas32.General) blas32.General { return score(fit.rls, x) })
		fmt.Fprintf(e.stderr, "%s seed %d: warps chosen by confidence (cents): %v\n", d.sp.name, seed, chosen)
		if len(e.selfFracs) > 0 || e.knnSmooth > 0 {
			scored = warpedTest(d.rawTest, d.sp.test, chosen, sg, prep)
		}
	}
	smooth := func(s blas32.General) blas32.General {
		if e.knnSmooth > 0 {
			return neighbourSmoothed(s, scored, d.sp.test, d.trained, e.knnSmooth)
		}
		return s
	}
	scores = smooth(scores)
	// Self-training: refit with the unseen voices' surest recordings under
	// the labels the recogniser decides (with combo, the whole-word and HMM
	// scores combined); λ stays the one chosen on the training set, scaled
	// with the number of rows, as recognize --adapt's refits do (the same
	// classifier.RefitWithRows). The HMM keeps its training on the real
	// voices. Pseudo-labelled rows get no --onset-trim-ms copies: they are
	// the unseen voice's own recordings, clipped as they are (its cut "six"
	// files are among them), and part of their labels are wrong, which
	// copies would count twice.
	pick := func(s blas32.General, f float64) ([]int, []int) {
		if e.balanced {
			return balancedPseudoLabelled(s, d.sp.test, d.trained, f)
		}
		return pseudoLabelled(s, d.sp.test, d.trained, f)
	}
	refit := func(rows, pl []int) (blas32.General, error) {
		adapted, err := classifier.RefitWithRows(fit.fm, fit.x, fit.y, fit.classes, fit.rep.Lambda, fit.seed, scored, rows, pl)
		if err != nil {
			return blas32.General{}, err
		}
		out, err := scoreTest(adapted)
		if err != nil {
			return blas32.General{}, err
		}
		return smooth(out), nil
	}
	decide := func(words blas32.General) blas32.General { return e.hf.decisionScores(words, d.hs) }
	return selfTrainRounds(e.selfFracs, scores, decide, pick, refit, func(round, n int) {
		fmt.Fprintf(e.stderr, "%s seed %d: self-training round %d took %d pseudo-labelled recordings\n", d.sp.name, seed, round+1, n)
	})
}

// finish prints the summaries and the JSON line, and writes the confusion
// matrix and the predictions.
func (e *digitsEval) finish() error {
	for _, c := range e.conds {
		e.res.Conditions[c.Name], _ = meanStd(e.condAcc[c.Name])
	}
	if len(e.conds) > 1 {
		e.res.Drops, e.res.DropsStd = map[string]float64{}, map[string]float64{}
		for i := 1; i < len(e.conds); i++ {
			d := make([]float64, e.seeds)
			for s := range d {
				d[s] = e.seedCond[0][s] - e.seedCond[i][s]
			}
			e.res.Drops[e.conds[i].Name], e.res.DropsStd[e.conds[i].Name] = meanStd(d)
		}
	}
	e.res.Accuracy, e.res.AccuracyStd = meanStd(e.accs)
	if e.nsplits > 1 {
		// Across held-out speakers, report the spread of per-speaker means.
		var per []float64
		for _, v := range e.res.PerSplit {
			per = append(per, v)
		}
		sort.Float64s(per)
		e.res.Accuracy, e.res.AccuracyStd = meanStd(per)
		fmt.Fprintf(e.tw, "mean over %d splits\t\t\t\t", e.nsplits)
		for _, c := range e.conds {
			fmt.Fprintf(e.tw, "%.2f%%\t", 100*e.res.Conditions[c.Name])
		}
		fmt.Fprintln(e.tw)
	}
	e.tw.Flush()
	if len(e.compNames) > 0 {
		e.res.Recognizer, e.res.Components = e.hf.recognizer, map[string]float64{}
		for _, n := range e.compNames {
			m, sd := meanStd(e.compAcc[n])
			e.res.Components[n] = m
			fmt.Fprintf(e.stdout, "%s: %.2f%% ± %.2f (all splits and seeds)\n", n, 100*m, 100*sd)
		}
	}
	if e.confusion != "" {
		title := fmt.Sprintf("spoken digits, %s split, %s: %.2f%% accuracy", e.split, e.mf.Label(features.NewIdentity(e.res.M)), 100*e.res.Accuracy)
		if err := drawConfusion(e.confusion, title, e.names, e.allTrue, e.allPred); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s.png and %s.svg\n", e.confusion, e.confusion)
	}
	if e.preds != nil {
		if err := e.preds.close(); err != nil {
			return err
		}
		e.preds = nil
		fmt.Fprintf(e.stdout, "wrote %s\n", e.predFile)
	}
	e.res.TestError = 1 - e.res.Accuracy
	e.res.TrainSeconds = e.trainSec
	e.res.PeakRSSMB = progress.PeakRSSMB()
	if e.asJSON {
		b, _ := json.Marshal(e.res)
		fmt.Fprintln(e.stdout, string(b))
	}
	return nil
}
