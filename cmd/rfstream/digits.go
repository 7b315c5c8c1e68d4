package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/transforms"
)

func init() {
	registerTask(&task{name: "digits", summary: "spoken digits (FSDD or manifests): whole-word random features + RLS",
		eval: evalDigits, train: trainDigits})
}

// wordSetFlags locate recordings: FSDD by default, or manifests.
type wordSetFlags struct {
	fsdd          string
	trainManifest string
	testManifest  string
	exclude       string // comma-separated speakers left out of every split
}

func (f *wordSetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.fsdd, "fsdd", fsddDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	fs.StringVar(&f.trainManifest, "train-manifest", "", "TSV of path, label, speaker for training (instead of FSDD)")
	fs.StringVar(&f.testManifest, "test-manifest", "", "TSV of path, label, speaker for testing")
	fs.StringVar(&f.exclude, "exclude-speakers", "", "comma-separated FSDD speakers to leave out entirely (for cross-validation inside the training speakers)")
}

// loadWordVectors reads every recording, resamples it to the word
// config's rate and computes its word vector, on all cores.
func loadWordVectors(recs []datasets.Recording, wc frontend.WordConfig) (blas32.General, error) {
	return loadWordVectorsIn(recs, wc, condition{})
}

// waveWarp transforms a recording before its word vector is computed.
type waveWarp func(samples []float32, rate int) ([]float32, error)

// loadWordVectorsIn computes the word vectors of recs under condition c
// (its waveform warp and onset trim), on all cores.
func loadWordVectorsIn(recs []datasets.Recording, wc frontend.WordConfig, c condition) (blas32.General, error) {
	x := linalg.NewGeneral32(len(recs), wc.Dim())
	bar := progress.New(workLog, "word vectors", int64(len(recs)), "files")
	defer bar.Finish()
	err := parallel.ForErr(len(recs), func(i int) error {
		v, err := wordVectorOfFile(recs[i].Path, wc, c)
		bar.Add(1)
		if err != nil {
			return err
		}
		copy(linalg.Row32(x, i), v)
		return nil
	})
	return x, err
}

func wordVectorOfFile(path string, wc frontend.WordConfig, c condition) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := frontend.ReadWAV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.warp != nil {
		if a.Samples, err = c.warp(a.Samples, a.Rate); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if a.Rate != wc.Audio.SampleRate {
		if a, err = frontend.Resample(a, wc.Audio.SampleRate); err != nil {
			return nil, err
		}
	}
	if c.padMs > 0 {
		a.Samples = paddedCopy(path, a, c.padMs)
	}
	return frontend.WordVectorTrimmed(wc, a.Samples, c.onsetTrimMs, c.offsetTrimMs)
}

// paddedCopy returns the recording at path (its audio a) with padMs of
// noise at its background level before and after it. The noise is seeded
// by the file's name, so a copy is the same in every run and fold.
// (--pad-copies-ms is bounded when the flags are validated.)
func paddedCopy(path string, a *frontend.Audio, padMs float64) []float32 {
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(path)))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x70616473))
	return datasets.PadSilence(a.Samples, a.Rate, padMs/1000, padMs/1000, rng)
}

func labelIndex(labels []string) map[string]int {
	m := make(map[string]int, len(labels))
	for i, l := range labels {
		m[l] = i
	}
	return m
}

func indices(recs []datasets.Recording, idx map[string]int) ([]int, error) {
	out := make([]int, len(recs))
	for i, r := range recs {
		j, ok := idx[r.Label]
		if !ok {
			return nil, fmt.Errorf("%s: label %q does not occur in the training set", r.Path, r.Label)
		}
		out[i] = j
	}
	return out, nil
}

// registerWordFlags exposes the word representation's settings.
func registerWordFlags(fs *flag.FlagSet, wc *frontend.WordConfig) {
	fs.IntVar(&wc.Frames, "frames", wc.Frames, "word vector: frames after time resampling")
	fs.IntVar(&wc.Audio.Mels, "mels", wc.Audio.Mels, "word vector: log-mel bands")
	fs.Float64Var(&wc.RangeDB, "range-db", wc.RangeDB, "word vector: clamp log-mel values this far below the peak (0: off)")
	fs.Float64Var(&wc.LevelLiftDB, "level-lift-db", wc.LevelLiftDB, "word vector: raise every frame toward the loudest frame's level by at most this many dB, so weak fricatives count beside loud vowels (0: off)")
	fs.BoolVar(&wc.BandMean, "band-mean", wc.BandMean, "word vector: remove each band's mean over the word")
	fs.IntVar(&wc.Lifter, "lifter", wc.Lifter, "word vector: smooth each frame's log-mel spectrum to its first N cepstral coefficients (0: off)")
	fs.Float64Var(&wc.MarginDB, "margin-db", wc.MarginDB, "speech detector: frames within this many dB of the loud level are speech")
	fs.Float64Var(&wc.FloorShare, "floor-share", wc.FloorShare, "speech detector: frames must also rise this share of the way from the noise floor (5th percentile of energy) to the loud level (0: the default 1/3; negative: rule off, --margin-db alone)")
	fs.Float64Var(&wc.MaxGapMs, "max-gap-ms", wc.MaxGapMs, "speech detector: keep only the speech around the loudest frame, bridging quiet stretches up to this many ms (0: first to last frame above the threshold)")
}

// condition is a test-time distortion for the mismatch evaluation.
type condition struct {
	name string
	warp waveWarp
	// onsetTrimMs moves the start of the detected speech region this much
	// later (frontend.WordVectorOnsetTrimmed; 0: the whole region).
	onsetTrimMs float64
	// offsetTrimMs moves its end this much earlier (0: the whole region).
	offsetTrimMs float64
	// padMs of noise at the recording's own background level go before
	// and after it (datasets.PadSilence), as a live segmenter's padding
	// around a word in a stream.
	padMs float64
}

// mismatchConditions shift pitch by ±400 cents and play at 0.7× and 1.4×
// speed, with the waveform transforms; training stays clean.
var mismatchConditions = []condition{
	{name: "pitch +400c", warp: func(x []float32, r int) ([]float32, error) { return transforms.PitchShift(x, r, 400) }},
	{name: "pitch -400c", warp: func(x []float32, r int) ([]float32, error) { return transforms.PitchShift(x, r, -400) }},
	{name: "tempo 0.7x", warp: func(x []float32, r int) ([]float32, error) { return transforms.TempoWarp(x, r, 0.7) }},
	{name: "tempo 1.4x", warp: func(x []float32, r int) ([]float32, error) { return transforms.TempoWarp(x, r, 1.4) }},
}

// digitSplit is one train/test division of the recordings.
type digitSplit struct {
	name        string
	train, test []datasets.Recording
}

func (f *wordSetFlags) splits(split string) ([]digitSplit, error) {
	if f.trainManifest != "" || f.testManifest != "" {
		if f.trainManifest == "" || f.testManifest == "" {
			return nil, errors.New("give both --train-manifest and --test-manifest")
		}
		tr, err := datasets.ReadManifest(f.trainManifest)
		if err != nil {
			return nil, err
		}
		te, err := datasets.ReadManifest(f.testManifest)
		if err != nil {
			return nil, err
		}
		return []digitSplit{{"manifest", tr, te}}, nil
	}
	recs, err := datasets.FSDD(f.fsdd)
	if err != nil {
		return nil, err
	}
	if recs, err = excludeSpeakers(recs, f.exclude); err != nil {
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

// excludeSpeakers drops the recordings of the comma-separated speakers
// (none when the list is empty), keeping the order of the rest.
func excludeSpeakers(recs []datasets.Recording, list string) ([]datasets.Recording, error) {
	if list == "" {
		return recs, nil
	}
	drop := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		drop[strings.TrimSpace(s)] = true
	}
	kept := recs[:0:0]
	for _, r := range recs {
		if !drop[r.Speaker] {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(recs) {
		return nil, fmt.Errorf("--exclude-speakers %q names no FSDD speaker (%v)", list, datasets.Speakers(recs))
	}
	return kept, nil
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

func evalDigits(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval digits", "[flags]", stderr)
	var res digitsResult
	var mf mapFlags
	var wf wordSetFlags
	mf.register(fs, "maxout", 2000)
	wf.register(fs)
	var hf hmmFlags
	hf.register(fs)
	var tv trainVoiceFlags
	tv.register(fs)
	split := fs.String("split", "official", "official (takes 0-4 test), speaker (leave one speaker out) or dev (takes 5-9 test, 10-49 train: for choosing settings)")
	seeds := fs.Int("seeds", 1, "map seeds to average over (seed, seed+1, …)")
	lambda := fs.Float64("lambda", 0, "ridge parameter (0: choose on held-out training recordings)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	confusion := fs.String("confusion", "", "also draw the confusion matrix (all splits pooled, first seed) to this base name")
	confTable := fs.Bool("confusion-table", false, "print every split's confusion matrix (first seed) and its most frequent confusions; --json carries them too")
	predFile := fs.String("predictions", "", "write every test recording's true and predicted label (first seed) to this TSV: split, path, speaker, label, predicted")
	mismatch := fs.Bool("mismatch", false, "also test on recordings pitch-shifted ±400 cents and played at 0.7× and 1.4× (training stays clean)")
	cents := fs.Float64("cents", 400, "invariant map: pitch shifts of the templates up to ±cents")
	tempo := fs.Float64("tempo", 2, "invariant map: tempo factors of the templates in [1/tempo, tempo]")
	fillMin := fs.Bool("warp-fill-min", false, "pitch warps bring in silence (the patch's minimum) past the band edges instead of repeating the edge band")
	lambdaBy := fs.String("lambda-by", "random", "hold out for choosing λ: random (10% of training recordings) or speaker (all recordings of one training speaker)")
	spkNorm := fs.String("speaker-norm", "none", "speaker-level CMVN of word vectors: none, mean (each speaker's mean log-mel spectrum removed) or meanvar; statistics from the speaker's training recordings, or for an unseen voice from its own (unlabelled) test recordings")
	spkWarp := fs.Float64("speaker-warp", 0, "VTLN-like: warp each speaker's vectors along the frequency axis by the shift (within ±this many cents) that best matches the training speakers' canonical mean spectrum (0: off); before --speaker-norm")
	spkWarpBy := fs.String("speaker-warp-by", "spectrum", "--speaker-warp: spectrum (every speaker matched to the training voices' canonical mean spectrum, training included) or confidence (training unchanged; each voice absent from training gets the warp under which the model's score margin on its recordings is largest)")
	spkWarpStep := fs.Float64("speaker-warp-step", 25, "--speaker-warp: grid step in cents")
	ensemble := fs.Bool("ensemble", false, "one prediction from all --seeds maps together (standardised scores summed) instead of the mean accuracy over seeds")
	augment := fs.Int("augment", 0, "add this many pitch/tempo-warped copies (same ±cents, tempo range) of every training vector")
	testWarpsFlag := fs.String("test-warps", "", "test-time warping: comma-separated pitch/formant shifts in cents (e.g. -200,-100,0,100,200); every test recording is scored under each shift of its log-mel patch and the class scores pooled (see --test-warp-pool)")
	testWarpPool := fs.String("test-warp-pool", "mean", "--test-warps: mean (average the class scores over the shifts) or max (keep each class's best)")
	knnSmooth := fs.Int("knn-smooth", 0, "for voices absent from training: replace each recording's scores by the mean standardised scores of its k nearest recordings of the same voice (0: off); also picks --self-train's pseudo-labels")
	balanced := fs.Bool("self-train-balanced", false, "--self-train: assume every unseen voice says each word about equally often, and cap each class's pseudo-labels at its share (see experiments/journal/audio.md: this uses the test voice's label distribution)")
	selfTrainFlag := fs.String("self-train", "", "unsupervised adaptation to voices absent from training: comma-separated fractions, one self-training round each (e.g. 0.5,1: refit with the surest half of each unseen voice's test recordings, class by class, under their predicted labels, then with all of them)")
	wc := frontend.DefaultWordConfig()
	registerWordFlags(fs, &wc)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := hf.validate(); err != nil {
		return err
	}
	if err := tv.validate(); err != nil {
		return err
	}
	selfFracs, err := parseSelfTrain(*selfTrainFlag)
	if err != nil {
		return err
	}
	if (len(selfFracs) > 0 || *knnSmooth != 0) && *mismatch {
		return errors.New("--self-train and --knn-smooth work without --mismatch")
	}
	if *knnSmooth < 0 {
		return fmt.Errorf("--knn-smooth %d: want ≥ 0", *knnSmooth)
	}
	testWarps, err := parseTestWarps(*testWarpsFlag)
	if err != nil {
		return err
	}
	if *testWarpPool != "mean" && *testWarpPool != "max" {
		return fmt.Errorf("unknown --test-warp-pool %q (mean, max)", *testWarpPool)
	}
	if len(testWarps) > 0 && (*mismatch || *spkWarp > 0) {
		return errors.New("--test-warps works without --mismatch and --speaker-warp")
	}
	comboWeights, err := hf.comboWeights()
	if err != nil {
		return err
	}
	if *ensemble && (*mismatch || *confusion != "" || *confTable || *predFile != "") {
		return errors.New("--ensemble works without --mismatch, --confusion, --confusion-table and --predictions")
	}
	if *spkWarpBy != "spectrum" && *spkWarpBy != "confidence" {
		return fmt.Errorf("unknown --speaker-warp-by %q (spectrum, confidence)", *spkWarpBy)
	}
	if *spkWarpBy == "confidence" && *mismatch {
		return errors.New("--speaker-warp-by confidence works without --mismatch")
	}
	if hf.used() && *mismatch {
		return errors.New("--mismatch works with --recognizer words only")
	}
	if hf.teacherOnly && len(selfFracs) == 0 {
		return errors.New("--hmm-teacher-only needs --self-train (the HMM would take no part)")
	}
	if hf.recognizer == "hmm" && (len(selfFracs) > 0 || *knnSmooth > 0) {
		// Both adapt the whole-word model, which --recognizer hmm ignores.
		return errors.New("--self-train and --knn-smooth adapt the whole-word model: use them with --recognizer words or combo, not hmm")
	}
	compAcc := map[string][]float64{}
	var compNames []string
	addComp := func(name string, acc float64) {
		if _, ok := compAcc[name]; !ok {
			compNames = append(compNames, name)
		}
		compAcc[name] = append(compAcc[name], acc)
	}
	spec := wordGroup(wc, *cents, *tempo, *fillMin)
	mf.group = &spec
	warps, err := transforms.Build(spec)
	if err != nil {
		return err
	}
	conds := []condition{{name: "clean"}}
	if *mismatch {
		conds = append(conds, mismatchConditions...)
	}
	res.Conditions = map[string]float64{}
	splits, err := wf.splits(*split)
	if err != nil {
		return err
	}
	synth, err := tv.synth(wc.Audio.SampleRate)
	if err != nil {
		return err
	}
	res.Task, res.Split, res.Map, res.Seeds, res.PerSplit = "digits", *split, mf.kind, *seeds, map[string]float64{}
	if mf.kind == "maxout" {
		res.Q = mf.q
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "split\ttrain\ttest\tmap\t")
	for _, c := range conds {
		fmt.Fprintf(tw, "%s\t", c.name)
	}
	fmt.Fprintln(tw, "train s")
	condAcc := map[string][]float64{}
	// seedCond[c][s]: condition c's accuracy with seed s, summed over splits.
	seedCond := make([][]float64, len(conds))
	for i := range seedCond {
		seedCond[i] = make([]float64, *seeds)
	}
	var accs []float64
	var trainSec float64
	var allTrue, allPred []int
	var names []string
	cache := map[string][]float32{}
	var preds *predictionWriter
	if *predFile != "" {
		if preds, err = newPredictionWriter(*predFile); err != nil {
			return err
		}
		defer func() {
			if preds != nil { // an error path: the file is left as written so far
				preds.close()
			}
		}()
	}
	grid := progress.New(stderr, "digits runs", int64(len(splits)**seeds), "runs")
	defer grid.Finish()
	for _, sp := range splits {
		// realTrain are the split's own recordings; sp.train becomes one
		// recording per training row once synthetic voices, speed copies
		// and repeats are added. groups ties each row to its source
		// recording for the λ hold-out.
		realTrain := sp.train
		labels := datasets.Labels(sp.train)
		var xtr blas32.General
		var groups []int
		if tv.used() {
			rows, err := tv.rows(sp.train, synth, wc, cache)
			if err != nil {
				return err
			}
			xtr, sp.train, groups = rows.x, rows.recs, rows.groups
			if got := datasets.Labels(sp.train); len(got) != len(labels) {
				return fmt.Errorf("synthetic voices say the digits 0-9, the training set's labels are %v", labels)
			}
		} else if xtr, err = cachedWordVectors(sp.train, wc, cache); err != nil {
			return err
		}
		idx := labelIndex(labels)
		ytr, err := indices(sp.train, idx)
		if err != nil {
			return err
		}
		yte, err := indices(sp.test, idx)
		if err != nil {
			return err
		}
		xtes := make([]blas32.General, len(conds))
		for i, c := range conds {
			if xtes[i], err = cachedWordVectorsWarped(sp.test, wc, cache, c); err != nil {
				return err
			}
		}
		// rawTest keeps the clean test vectors before any speaker
		// normalisation, for the confidence-chosen warp.
		rawTest := linalg.NewGeneral32(xtes[0].Rows, xtes[0].Cols)
		copy(rawTest.Data, xtes[0].Data)
		if *spkWarp > 0 && *spkWarpBy == "spectrum" {
			sg, ok := warps.(*transforms.SpectroGroup)
			if !ok {
				return fmt.Errorf("--speaker-warp needs the spectro-warp group")
			}
			sw, err := newSpeakerWarp(sg, wc.Audio.Mels, *spkWarp, *spkWarpStep)
			if err != nil {
				return err
			}
			sw.fit(xtr, sp.train)
			var unseen map[string]float64
			for i := range xtes {
				if u := sw.apply(xtes[i], sp.test); i == 0 {
					unseen = u
				}
			}
			sw.apply(xtr, sp.train)
			fmt.Fprintf(stderr, "%s: speaker warps (cents): %s\n", sp.name, sw.report(unseen))
		}
		var norm *speakerNorm
		switch *spkNorm {
		case "none":
		case "mean", "meanvar":
			// Test statistics are estimated before any row is changed.
			norm = newSpeakerNorm(xtr, sp.train, wc.Audio.Mels, *spkNorm == "meanvar")
			for i := range xtes {
				norm.apply(xtes[i], sp.test)
			}
			norm.apply(xtr, sp.train)
		default:
			return fmt.Errorf("unknown --speaker-norm %q (none, mean, meanvar)", *spkNorm)
		}
		xte := xtes[0]
		var splitAcc []float64
		perCond := make([][]float64, len(conds))
		// The HMM recogniser is trained once per split (with the base
		// seed); the whole-word maps vary with the seeds. ens sums every
		// seed's standardised whole-word scores.
		var hs blas32.General
		if hf.used() {
			// The HMM trains on the real recordings only.
			iw, err := hf.model(realTrain, wf.fsdd, mf.seed, stderr)
			if err != nil {
				return err
			}
			if hs, err = hmmScores(iw, sp.test, labels, hf.pad); err != nil {
				return err
			}
		}
		ens := linalg.NewGeneral32(len(sp.test), len(labels))
		for s := 0; s < *seeds; s++ {
			mfs := mf
			mfs.seed = mf.seed + uint64(s)
			mfs.templateRows = &xtr // --templates data draws from the (normalised) training vectors
			recipe, err := mfs.recipe(wc.Dim())
			if err != nil {
				return err
			}
			recipe, sel, err := mfs.selectFeatures(recipe, xtr, xtr, ytr, len(labels), nil)
			if err != nil {
				return err
			}
			if sel != nil {
				res.Select = sel.Method
				res.ScoreSeconds += sel.ScoreSeconds
			}
			fm, err := features.Build(recipe)
			if err != nil {
				return err
			}
			res.M = fm.OutDim()
			start := time.Now()
			xfit, yfit, err := augmentWarped(xtr, ytr, warps, *augment, mfs.seed)
			if err != nil {
				return err
			}
			opt := classifier.FitOptions{Lambda: *lambda, Seed: mfs.seed}
			if *lambda == 0 {
				var bySpeaker bool
				if opt.HeldOutRows, bySpeaker, err = lambdaRows(*lambdaBy, sp.train, groups, xtr.Rows, xfit.Rows, mfs.seed); err != nil {
					return err
				}
				if bySpeaker {
					// New voices may want far more smoothing than new takes.
					opt.Grid = []float64{1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1}
				}
			}
			rls, fitRep, err := classifier.FitRLS(fm, xfit, yfit, len(labels), opt)
			if err != nil {
				return err
			}
			trainSec += time.Since(start).Seconds()
			grid.Add(1)
			trained := map[string]bool{}
			for _, r := range sp.train {
				trained[r.Speaker] = true
			}
			prep := func(x blas32.General) {
				if norm != nil {
					norm.apply(x, sp.test)
				}
			}
			// scored are the test vectors as the model last scored them.
			scored := xte
			// scoreTest gives a model's scores of the test recordings:
			// plain, or pooled over the test-time warps.
			scoreTest := func(m *classifier.RLS) (blas32.General, error) {
				out := linalg.NewGeneral32(scored.Rows, len(labels))
				m.Scores(out, features.Apply(fm, scored, 0))
				return out, nil
			}
			if len(testWarps) > 0 {
				sg, ok := warps.(*transforms.SpectroGroup)
				if !ok {
					return fmt.Errorf("--test-warps needs the spectro-warp group")
				}
				views := testWarpViews(rawTest, sg, testWarps, prep)
				scoreTest = func(m *classifier.RLS) (blas32.General, error) {
					return pooledScores(views, func(x blas32.General) blas32.General {
						out := linalg.NewGeneral32(x.Rows, len(labels))
						m.Scores(out, features.Apply(fm, x, 0))
						return out
					}, *testWarpPool)
				}
			}
			scores, err := scoreTest(rls)
			if err != nil {
				return err
			}
			if *spkWarp > 0 && *spkWarpBy == "confidence" {
				sg, ok := warps.(*transforms.SpectroGroup)
				if !ok {
					return fmt.Errorf("--speaker-warp needs the spectro-warp group")
				}
				var grid []float64
				for c := -*spkWarp; c <= *spkWarp+1e-9; c += *spkWarpStep {
					grid = append(grid, c)
				}
				score := func(x blas32.General) blas32.General {
					out := linalg.NewGeneral32(x.Rows, len(labels))
					rls.Scores(out, features.Apply(fm, x, 0))
					return out
				}
				var chosen map[string]float64
				scores, chosen = confidenceWarp(rawTest, sp.test, trained, sg, grid, prep, score)
				fmt.Fprintf(stderr, "%s seed %d: warps chosen by confidence (cents): %v\n", sp.name, mfs.seed, chosen)
				if len(selfFracs) > 0 || *knnSmooth > 0 {
					scored = warpedTest(rawTest, sp.test, chosen, sg, prep)
				}
			}
			smooth := func(s blas32.General) blas32.General {
				if *knnSmooth > 0 {
					return neighbourSmoothed(s, scored, sp.test, trained, *knnSmooth)
				}
				return s
			}
			scores = smooth(scores)
			// Self-training: refit with the unseen voices' surest
			// recordings under the labels the recogniser decides (with
			// combo, the whole-word and HMM scores combined); λ stays the
			// one chosen on the training set, scaled with the number of
			// rows. The HMM keeps its training on the real voices.
			// Pseudo-labelled rows get no --onset-trim-ms copies: they
			// are the unseen voice's own recordings, clipped as they
			// are (its cut "six" files are among them), and part of
			// their labels are wrong, which copies would count twice.
			pick := func(s blas32.General, f float64) ([]int, []int) {
				if *balanced {
					return balancedPseudoLabelled(s, sp.test, trained, f)
				}
				return pseudoLabelled(s, sp.test, trained, f)
			}
			refit := func(rows, pl []int) (blas32.General, error) {
				xa, ya := withRows(xfit, yfit, scored, rows, pl)
				o := opt
				o.Lambda, o.HeldOutRows = fitRep.Lambda*float64(xa.Rows)/float64(xfit.Rows), nil
				adapted, _, err := classifier.FitRLS(fm, xa, ya, len(labels), o)
				if err != nil {
					return blas32.General{}, err
				}
				out, err := scoreTest(adapted)
				if err != nil {
					return blas32.General{}, err
				}
				return smooth(out), nil
			}
			decide := func(words blas32.General) blas32.General { return hf.decisionScores(words, hs) }
			scores, err = selfTrainRounds(selfFracs, scores, decide, pick, refit, func(round, n int) {
				fmt.Fprintf(stderr, "%s seed %d: self-training round %d took %d pseudo-labelled recordings\n", sp.name, mfs.seed, round+1, n)
			})
			if err != nil {
				return err
			}
			pred := classifier.Argmax(scores)
			addScaled(ens, scores)
			if hf.used() {
				accOf := func(p []int) float64 { return 1 - classifier.ErrorRate(p, yte) }
				addComp("words", accOf(pred))
				addComp("hmm", accOf(classifier.Argmax(hs)))
				for _, w := range comboWeights {
					addComp(fmt.Sprintf("combo w=%g", w), accOf(classifier.Argmax(combineScores(scores, hs, w))))
				}
				pred = hf.predict(scores, hs)
			}
			splitAcc = append(splitAcc, 1-classifier.ErrorRate(pred, yte))
			if s == 0 {
				allTrue, allPred, names = append(allTrue, yte...), append(allPred, pred...), labels
				if *confTable {
					counts, err := confusionCounts(yte, pred, len(labels))
					if err != nil {
						return err
					}
					if res.Confusions == nil {
						res.Confusions = map[string][][]int{}
					}
					res.Confusions[sp.name], res.Labels = counts, labels
					writeConfusionTable(stdout, sp.name, labels, counts)
				}
				if preds != nil {
					if err := preds.add(sp.name, sp.test, labels, pred, decide(scores)); err != nil {
						return err
					}
				}
			}
			perCond[0] = append(perCond[0], splitAcc[len(splitAcc)-1])
			for i := 1; i < len(conds); i++ {
				p := rls.Predict(features.Apply(fm, xtes[i], 0))
				perCond[i] = append(perCond[i], 1-classifier.ErrorRate(p, yte))
			}
			for i := range conds {
				seedCond[i][s] += perCond[i][s] / float64(len(splits))
			}
		}
		if *ensemble {
			// One prediction per recording from all seeds' maps together.
			pred := classifier.Argmax(ens)
			if hf.used() {
				accOf := func(p []int) float64 { return 1 - classifier.ErrorRate(p, yte) }
				addComp("words ensemble", accOf(pred))
				for _, w := range comboWeights {
					addComp(fmt.Sprintf("ensemble+hmm w=%g", w), accOf(classifier.Argmax(combineScores(ens, hs, w))))
				}
				pred = hf.predict(ens, hs)
			}
			splitAcc = []float64{1 - classifier.ErrorRate(pred, yte)}
			fmt.Fprintf(tw, "%s\t%d\t%d\tensemble of %d seeds\t%.2f%%\n", sp.name, len(sp.train), len(sp.test), *seeds, 100*splitAcc[0])
		}
		mean, _ := meanStd(splitAcc)
		res.PerSplit[sp.name] = mean
		accs = append(accs, splitAcc...)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t", sp.name, len(sp.train), len(sp.test), mf.label(features.NewIdentity(res.M)))
		for i, c := range conds {
			m, sd := meanStd(perCond[i])
			condAcc[c.name] = append(condAcc[c.name], m)
			fmt.Fprintf(tw, "%.2f%% ± %.2f\t", 100*m, 100*sd)
		}
		fmt.Fprintf(tw, "%.1f\n", trainSec)
	}
	for _, c := range conds {
		res.Conditions[c.name], _ = meanStd(condAcc[c.name])
	}
	if len(conds) > 1 {
		res.Drops, res.DropsStd = map[string]float64{}, map[string]float64{}
		for i := 1; i < len(conds); i++ {
			d := make([]float64, *seeds)
			for s := range d {
				d[s] = seedCond[0][s] - seedCond[i][s]
			}
			res.Drops[conds[i].name], res.DropsStd[conds[i].name] = meanStd(d)
		}
	}
	res.Accuracy, res.AccuracyStd = meanStd(accs)
	if len(splits) > 1 {
		// Across held-out speakers, report the spread of per-speaker means.
		var per []float64
		for _, v := range res.PerSplit {
			per = append(per, v)
		}
		sort.Float64s(per)
		res.Accuracy, res.AccuracyStd = meanStd(per)
		fmt.Fprintf(tw, "mean over %d splits\t\t\t\t", len(splits))
		for _, c := range conds {
			fmt.Fprintf(tw, "%.2f%%\t", 100*res.Conditions[c.name])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if len(compNames) > 0 {
		res.Recognizer, res.Components = hf.recognizer, map[string]float64{}
		for _, n := range compNames {
			m, sd := meanStd(compAcc[n])
			res.Components[n] = m
			fmt.Fprintf(stdout, "%s: %.2f%% ± %.2f (all splits and seeds)\n", n, 100*m, 100*sd)
		}
	}
	if *confusion != "" {
		title := fmt.Sprintf("spoken digits, %s split, %s: %.2f%% accuracy", *split, mf.label(features.NewIdentity(res.M)), 100*res.Accuracy)
		if err := drawConfusion(*confusion, title, names, allTrue, allPred); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s.png and %s.svg\n", *confusion, *confusion)
	}
	if preds != nil {
		if err := preds.close(); err != nil {
			return err
		}
		preds = nil
		fmt.Fprintf(stdout, "wrote %s\n", *predFile)
	}
	res.TestError = 1 - res.Accuracy
	res.TrainSeconds = trainSec
	res.PeakRSSMB = peakRSSMB()
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// cachedWordVectors computes word vectors once per file across splits.
func cachedWordVectors(recs []datasets.Recording, wc frontend.WordConfig, cache map[string][]float32) (blas32.General, error) {
	return cachedWordVectorsWarped(recs, wc, cache, condition{name: "clean"})
}

func cachedWordVectorsWarped(recs []datasets.Recording, wc frontend.WordConfig, cache map[string][]float32, c condition) (blas32.General, error) {
	key := func(r datasets.Recording) string { return c.name + "\x00" + r.Path }
	var missing []datasets.Recording
	for _, r := range recs {
		if _, ok := cache[key(r)]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		x, err := loadWordVectorsIn(missing, wc, c)
		if err != nil {
			return blas32.General{}, err
		}
		for i, r := range missing {
			cache[key(r)] = linalg.Row32(x, i)
		}
	}
	x := linalg.NewGeneral32(len(recs), wc.Dim())
	for i, r := range recs {
		copy(linalg.Row32(x, i), cache[key(r)])
	}
	return x, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// wordGroup is the group an invariant map of word vectors pools over:
// pitch shifts up to ±cents and tempo factors in [1/tempo, tempo] of the
// log-mel templates.
func wordGroup(wc frontend.WordConfig, cents, tempo float64, fillMin bool) transforms.Spec {
	return transforms.Spec{Kind: transforms.SpectroKind, Params: mustJSON(transforms.SpectroParams{Frames: wc.Frames, Mels: wc.Audio.Mels,
		LowHz: wc.Audio.LowHz, HighHz: float64(wc.Audio.SampleRate) / 2, Cents: cents, Tempo: tempo, FillMin: fillMin})}
}

func trainDigits(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train digits", "--out MODEL [flags]", stderr)
	var wf wordSetFlags
	wf.register(fs)
	var mf mapFlags
	mf.register(fs, "maxout", 3000)
	var tv trainVoiceFlags
	tv.register(fs)
	cents := fs.Float64("cents", 400, "invariant map: pitch shifts of the templates up to ±cents")
	tempo := fs.Float64("tempo", 2, "invariant map: tempo factors of the templates in [1/tempo, tempo]")
	split := fs.String("split", "official", "FSDD recordings to train on: official (takes 5-49) or all")
	out := fs.String("out", "", "where to save the model (default: the data cache's digit model)")
	spkNorm := fs.String("speaker-norm", "none", "speaker-level CMVN: none, or mean (each training voice's mean log-mel spectrum removed; a new voice's is removed too, estimated from one recording, or with recognize --adapt from all of a voice's recordings)")
	selfTrain := fs.String("self-train", "", "make the model adaptable: rfstream recognize --adapt runs one self-training round per comma-separated fraction over a voice's recordings, as eval digits --self-train does (the model then carries its training rows)")
	aloneCopies := fs.Bool("alone-copies", false, "with --speaker-norm mean: add a copy of every training row normalised as a voice's first recording is in a live session (mostly with the training voices' average spectrum), so the model also knows a voice it has not learnt yet; train only (eval digits has no such flag)")
	wc := frontend.DefaultWordConfig()
	registerWordFlags(fs, &wc)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := tv.validate(); err != nil {
		return err
	}
	if *aloneCopies && *spkNorm != "mean" {
		return errors.New("--alone-copies needs --speaker-norm mean")
	}
	rounds, err := parseSelfTrain(*selfTrain)
	if err != nil {
		return err
	}
	if *spkNorm != "none" && *spkNorm != "mean" {
		return fmt.Errorf("unknown --speaker-norm %q (none, mean)", *spkNorm)
	}
	if *out == "" {
		*out = defaultDigitModel()
	}
	spec := wordGroup(wc, *cents, *tempo, false)
	mf.group = &spec
	model, err := trainWordModel(wordTrainOptions{fsdd: wf.fsdd, manifest: wf.trainManifest, exclude: wf.exclude, split: *split,
		maps: &mf, wc: &wc, voices: &tv, voiceNorm: *spkNorm == "mean", rounds: rounds, aloneCopies: *aloneCopies}, stderr)
	if err != nil {
		return err
	}
	if err := rfstream.SaveModel(*out, model); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved %s\n", *out)
	return nil
}
