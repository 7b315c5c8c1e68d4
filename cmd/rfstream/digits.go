package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/linalg"
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
}

func (f *wordSetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.fsdd, "fsdd", fsddDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	fs.StringVar(&f.trainManifest, "train-manifest", "", "TSV of path, label, speaker for training (instead of FSDD)")
	fs.StringVar(&f.testManifest, "test-manifest", "", "TSV of path, label, speaker for testing")
}

// loadWordVectors reads every recording, resamples it to the word
// config's rate and computes its word vector, on all cores.
func loadWordVectors(recs []datasets.Recording, wc frontend.WordConfig) (blas32.General, error) {
	x := linalg.NewGeneral32(len(recs), wc.Dim())
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				v, err := wordVectorOfFile(recs[i].Path, wc)
				if err != nil {
					errs[i] = err
					continue
				}
				copy(linalg.Row32(x, i), v)
			}
		}()
	}
	for i := range recs {
		next <- i
	}
	close(next)
	wg.Wait()
	return x, errors.Join(errs...)
}

func wordVectorOfFile(path string, wc frontend.WordConfig) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := frontend.ReadWAV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return wordVectorOfAudio(a, wc)
}

func wordVectorOfAudio(a *frontend.Audio, wc frontend.WordConfig) ([]float32, error) {
	if a.Rate != wc.Audio.SampleRate {
		var err error
		if a, err = frontend.Resample(a, wc.Audio.SampleRate); err != nil {
			return nil, err
		}
	}
	return frontend.WordVector(wc, a.Samples)
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
	fs.BoolVar(&wc.BandMean, "band-mean", wc.BandMean, "word vector: remove each band's mean over the word")
	fs.Float64Var(&wc.MarginDB, "margin-db", wc.MarginDB, "speech detector: frames within this many dB of the loud level are speech")
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
	switch split {
	case "official":
		tr, te := datasets.OfficialSplit(recs)
		return []digitSplit{{"official", tr, te}}, nil
	case "speaker":
		var out []digitSplit
		for _, s := range datasets.Speakers(recs) {
			tr, te := datasets.SpeakerSplit(recs, s)
			out = append(out, digitSplit{"held-out " + s, tr, te})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown --split %q (official, speaker)", split)
}

// digitsResult is one line of `rfstream eval digits --json`.
type digitsResult struct {
	Task         string             `json:"task"`
	Split        string             `json:"split"`
	Map          string             `json:"map"`
	M            int                `json:"m"`
	Q            int                `json:"q,omitempty"`
	Seeds        int                `json:"seeds"`
	Accuracy     float64            `json:"accuracy"`
	AccuracyStd  float64            `json:"accuracy_std"`
	TestError    float64            `json:"test_error"`
	PerSplit     map[string]float64 `json:"per_split,omitempty"`
	TrainSeconds float64            `json:"train_seconds"`
	PeakRSSMB    float64            `json:"peak_rss_mb"`
}

func evalDigits(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval digits", "[flags]", stderr)
	var mf mapFlags
	var wf wordSetFlags
	mf.register(fs, "maxout", 2000)
	wf.register(fs)
	split := fs.String("split", "official", "official (takes 0-4 test) or speaker (leave one speaker out)")
	seeds := fs.Int("seeds", 1, "map seeds to average over (seed, seed+1, …)")
	lambda := fs.Float64("lambda", 0, "ridge parameter (0: choose on held-out training recordings)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	confusion := fs.String("confusion", "", "also draw the confusion matrix (all splits pooled, first seed) to this base name")
	wc := frontend.DefaultWordConfig()
	registerWordFlags(fs, &wc)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	splits, err := wf.splits(*split)
	if err != nil {
		return err
	}
	res := digitsResult{Task: "digits", Split: *split, Map: mf.kind, Seeds: *seeds, PerSplit: map[string]float64{}}
	if mf.kind == "maxout" {
		res.Q = mf.q
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "split\ttrain\ttest\tmap\taccuracy (mean ± std over seeds)\ttrain s")
	var accs []float64
	var trainSec float64
	var allTrue, allPred []int
	var names []string
	cache := map[string][]float32{}
	for _, sp := range splits {
		labels := datasets.Labels(sp.train)
		idx := labelIndex(labels)
		ytr, err := indices(sp.train, idx)
		if err != nil {
			return err
		}
		yte, err := indices(sp.test, idx)
		if err != nil {
			return err
		}
		xtr, err := cachedWordVectors(sp.train, wc, cache)
		if err != nil {
			return err
		}
		xte, err := cachedWordVectors(sp.test, wc, cache)
		if err != nil {
			return err
		}
		var splitAcc []float64
		for s := 0; s < *seeds; s++ {
			mfs := mf
			mfs.seed = mf.seed + uint64(s)
			recipe, err := mfs.recipe(wc.Dim())
			if err != nil {
				return err
			}
			fm, err := features.Build(recipe)
			if err != nil {
				return err
			}
			res.M = fm.OutDim()
			start := time.Now()
			rls, _, err := rfstream.FitRLS(fm, xtr, ytr, len(labels), rfstream.FitOptions{Lambda: *lambda, Seed: mfs.seed})
			if err != nil {
				return err
			}
			trainSec += time.Since(start).Seconds()
			pred := rls.Predict(rfstream.Features(fm, xte, 0))
			splitAcc = append(splitAcc, 1-classifier.ErrorRate(pred, yte))
			if s == 0 {
				allTrue, allPred, names = append(allTrue, yte...), append(allPred, pred...), labels
			}
		}
		mean, std := meanStd(splitAcc)
		res.PerSplit[sp.name] = mean
		accs = append(accs, splitAcc...)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.2f%% ± %.2f\t%.1f\n", sp.name, len(sp.train), len(sp.test), mf.label(features.NewIdentity(res.M)), 100*mean, 100*std, trainSec)
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
		fmt.Fprintf(tw, "mean over %d splits\t\t\t\t%.2f%% ± %.2f\t\n", len(splits), 100*res.Accuracy, 100*res.AccuracyStd)
	}
	tw.Flush()
	if *confusion != "" {
		title := fmt.Sprintf("spoken digits, %s split, %s: %.2f%% accuracy", *split, mf.label(features.NewIdentity(res.M)), 100*res.Accuracy)
		if err := drawConfusion(*confusion, title, names, allTrue, allPred); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s.png and %s.svg\n", *confusion, *confusion)
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
	var missing []datasets.Recording
	for _, r := range recs {
		if _, ok := cache[r.Path]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		x, err := loadWordVectors(missing, wc)
		if err != nil {
			return blas32.General{}, err
		}
		for i, r := range missing {
			cache[r.Path] = linalg.Row32(x, i)
		}
	}
	x := linalg.NewGeneral32(len(recs), wc.Dim())
	for i, r := range recs {
		copy(linalg.Row32(x, i), cache[r.Path])
	}
	return x, nil
}

func trainDigits(args []string, stdout, stderr io.Writer) error {
	return errors.New("not yet: use rfstream eval digits")
}
