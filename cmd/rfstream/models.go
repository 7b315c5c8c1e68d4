package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// Default models live in the data cache and are trained on first use, so
// every command works on a fresh checkout.
func defaultDigitModel() string { return filepath.Join(dataDir(), "models", "digits-maxout.rfm") }
func defaultImageModel() string { return filepath.Join(dataDir(), "models", "mnist-maxout.rfm") }
func defaultAdaptableDigitModel() string {
	return filepath.Join(dataDir(), "models", "digits-adaptable.rfm")
}

// loadOrTrain loads path, or when it does not exist runs train to create it.
func loadOrTrain(path string, log io.Writer, train func() (*rfstream.Model, error)) (*rfstream.Model, error) {
	m, err := rfstream.LoadModel(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return m, err
	}
	fmt.Fprintf(log, "%s is missing: training it now\n", path)
	if m, err = train(); err != nil {
		return nil, err
	}
	if err := rfstream.SaveModel(path, m); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "saved %s\n", path)
	return m, nil
}

// modelOr loads the model at path, or without a path returns the default
// one (loaded or trained by fallback).
func modelOr(path string, log io.Writer, fallback func(io.Writer) (*rfstream.Model, error)) (*rfstream.Model, error) {
	if path != "" {
		return rfstream.LoadModel(path)
	}
	return fallback(log)
}

// digitModel returns the word model at path, or the default one.
func digitModel(path string, log io.Writer) (*rfstream.WordClassifier, error) {
	m, err := modelOr(path, log, defaultDigitWordModel)
	if err != nil {
		return nil, err
	}
	return rfstream.NewWordClassifier(m)
}

// audioModel returns the audio model at path for a pipeline: a word model,
// or a connected-word or phone model (both decoded by Viterbi), told apart
// by the model's task. Without a
// path it is the default digit word model.
func audioModel(path string, log io.Writer) (*rfstream.WordClassifier, *rfstream.Connected, error) {
	if path == "" {
		w, err := digitModel("", log)
		return w, nil, err
	}
	m, err := rfstream.LoadModel(path)
	if err != nil {
		return nil, nil, err
	}
	if m.Task == rfstream.TaskConnected || m.Task == rfstream.TaskPhones {
		c, err := rfstream.NewConnected(m)
		return nil, c, err
	}
	w, err := rfstream.NewWordClassifier(m)
	return w, nil, err
}

// liveAudioModel is audioModel for the live commands (serve, stream): with
// adaptable, the data cache's adaptable digit model (trained on first use),
// which learns each voice a stream names; it and path exclude each other.
func liveAudioModel(path string, adaptable bool, log io.Writer) (*rfstream.WordClassifier, *rfstream.Connected, error) {
	if !adaptable {
		return audioModel(path, log)
	}
	if path != "" {
		return nil, nil, errors.New("--adaptable and --model both name the audio model: give one")
	}
	m, err := defaultAdaptableDigitModelTrained(log)
	if err != nil {
		return nil, nil, err
	}
	w, err := rfstream.NewWordClassifier(m)
	return w, nil, err
}

// adaptableUsage is the --adaptable flag's help.
const adaptableUsage = "use the adaptable digit model (data/models/digits-adaptable.rfm, trained on first use with espeak-ng's voices) instead of the digit model: it learns each voice a stream names (--voice, the web page's browsers) as it speaks"

// defaultDigitWordModel loads the data cache's digit model, training it on
// FSDD's official training takes first when it is missing.
func defaultDigitWordModel(log io.Writer) (*rfstream.Model, error) {
	return loadOrTrain(defaultDigitModel(), log, func() (*rfstream.Model, error) {
		o := defaultDigitTraining
		o.fsdd = fsddDir()
		return trainWordModel(o, log)
	})
}

// defaultAdaptableDigitModelTrained loads the data cache's adaptable digit
// model (rfstream recognize --adapt), training it first when it is missing:
// every FSDD recording plus 50 synthetic voices, speaker CMVN, the speech
// detector's noise-floor rule off with gaps of at most 100 ms, and ten
// self-training rounds. That is the setting most folds of the nested
// leave-one-speaker-out evaluation chose (experiments/journal/audio.md, ninth round:
// synthetic 50 + st10, 95.10 % on voices absent from training).
func defaultAdaptableDigitModelTrained(log io.Writer) (*rfstream.Model, error) {
	return adaptableDigitModel(defaultAdaptableDigitModel(), "", log)
}

// adaptableDigitModel loads the adaptable digit model at path, training it
// first when it is missing, on FSDD without the excluded speakers.
func adaptableDigitModel(path, exclude string, log io.Writer) (*rfstream.Model, error) {
	return loadOrTrain(path, log, func() (*rfstream.Model, error) {
		o := defaultAdaptableTraining
		o.fsdd, o.exclude = fsddDir(), exclude
		wc := frontend.DefaultWordConfig()
		wc.FloorShare, wc.MaxGapMs = -1, 100
		o.wc = &wc
		return trainWordModel(o, log)
	})
}

// defaultAdaptableTraining is how the default adaptable digit model is
// trained (tests shrink it).
var defaultAdaptableTraining = wordTrainOptions{split: "all", m: 3000, q: 4, seed: 1,
	voices:    &trainVoiceFlags{synthVoices: 50, synthTakes: 2, synthSeed: 1, realWeight: 1},
	voiceNorm: true, rounds: []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}}

// defaultDigitTraining is how the default digit model is trained (tests
// shrink it: the first-use path is what they check, not the model's size).
var defaultDigitTraining = wordTrainOptions{split: "official", m: 3000, q: 4, seed: 1}

// imageModel returns the image model at path, or the default MNIST one.
func imageModel(path string, log io.Writer) (*rfstream.ImageTagger, error) {
	var m *rfstream.Model
	var err error
	if path != "" {
		m, err = rfstream.LoadModel(path)
	} else {
		m, err = loadOrTrain(defaultImageModel(), log, func() (*rfstream.Model, error) {
			mf := mapFlags{kind: "maxout", m: 1000, q: 4, seed: 1}
			var imf imageFlags
			run, err := fitImages(&mf, &imf, 0, true, log)
			if err != nil {
				return nil, err
			}
			return run.model, nil
		})
	}
	if err != nil {
		return nil, err
	}
	return rfstream.NewImageTagger(m)
}

type wordTrainOptions struct {
	fsdd, manifest, split string
	exclude               string // FSDD speakers left out
	// voices widens the training set (synthetic voices, speed copies,
	// onset-trimmed copies); nil or unused: the recordings alone.
	voices *trainVoiceFlags
	// voiceNorm removes every training voice's mean log-mel spectrum;
	// rounds make the model adaptable (rfstream.Adaptation).
	voiceNorm bool
	rounds    []float64
	// aloneCopies (with voiceNorm) adds a copy of every training row
	// normalised as a voice's first recording is in a session
	// (rfstream.NormaliseAsFirst), so the model also knows voices as it
	// hears them before it has learnt them.
	aloneCopies bool
	// maps chooses the map (any kind, optionally --select); nil means
	// maxout with m, q and seed.
	maps *mapFlags
	m, q int
	seed uint64
	wc   *frontend.WordConfig
}

// trainWordModel trains a word model on FSDD (the official training takes,
// or every take with split "all") or on a manifest.
func trainWordModel(o wordTrainOptions, log io.Writer) (*rfstream.Model, error) {
	var recs []datasets.Recording
	var err error
	if o.manifest != "" {
		recs, err = datasets.ReadManifest(o.manifest)
	} else {
		recs, err = datasets.FSDD(o.fsdd)
		if err == nil {
			recs, err = excludeSpeakers(recs, o.exclude)
		}
		if err == nil && o.split != "all" {
			recs, _ = datasets.OfficialSplit(recs)
		}
	}
	if err != nil {
		return nil, err
	}
	wc := frontend.DefaultWordConfig()
	if o.wc != nil {
		wc = *o.wc
	}
	start := time.Now()
	labels := datasets.Labels(recs)
	// The steps below are eval digits' for one split, in its order, so a
	// model trained here on a split's training recordings is the one that
	// evaluation fitted (rows, λ hold-out, normalisation and seed alike).
	rows := trainingRows{recs: recs}
	if o.voices != nil && o.voices.used() {
		synth, err := o.voices.synth(wc.Audio.SampleRate)
		if err != nil {
			return nil, err
		}
		if rows, err = o.voices.rows(recs, synth, wc, map[string][]float32{}); err != nil {
			return nil, err
		}
		if got := datasets.Labels(rows.recs); len(got) != len(labels) {
			return nil, fmt.Errorf("synthetic voices say the digits 0-9, the training set's labels are %v", labels)
		}
	} else if rows.x, err = loadWordVectors(recs, wc); err != nil {
		return nil, err
	}
	x := rows.x
	y, err := indices(rows.recs, labelIndex(labels))
	if err != nil {
		return nil, err
	}
	var voiceMean []float32
	groups := rows.groups
	if o.voiceNorm {
		norm := newSpeakerNorm(x, rows.recs, wc.Audio.Mels, false)
		voiceMean = norm.averageMean()
		var copies blas32.General
		var all []int
		if o.aloneCopies { // made from the rows before normalisation
			all = identity(x.Rows)
			copies = linalg.AppendRows32(blas32.General{Cols: x.Cols}, x, all)
			for i := range copies.Rows {
				rfstream.NormaliseAsFirst(linalg.Row32(copies, i), voiceMean, rfstream.DefaultVoicePrior)
			}
		}
		norm.apply(x, rows.recs)
		if o.aloneCopies {
			x = linalg.AppendRows32(x, copies, all)
			y = append(slices.Clone(y), y...)
			// A recording's copy is held out with it when λ is chosen.
			if groups == nil {
				groups = all
			}
			groups = append(slices.Clone(groups), groups...)
		}
	}
	mf := o.maps
	if mf == nil {
		mf = &mapFlags{kind: maxout.Kind, m: o.m, q: o.q, seed: o.seed}
	}
	if mf.templateRows == nil {
		mf.templateRows = &x // --templates data draws from the training words
	}
	recipe, err := mf.recipe(wc.Dim())
	if err != nil {
		return nil, err
	}
	// The scores see the training words only as unlabelled inputs; labels
	// choose the selection's λ when --select-lambda is not given.
	recipe, sel, err := mf.selectFeatures(recipe, x, x, y, len(labels), log)
	if err != nil {
		return nil, err
	}
	mp, err := features.Build(recipe)
	if err != nil {
		return nil, err
	}
	opt := classifier.FitOptions{Seed: mf.seed, Progress: log}
	// Copies of a recording (synthetic takes aside, every row is one
	// recording unless the voices flags add copies) are held out together.
	if opt.HeldOutRows, _, err = lambdaRows("random", rows.recs, groups, x.Rows, x.Rows, mf.seed); err != nil {
		return nil, err
	}
	rls, rep, err := classifier.FitRLS(mp, x, y, len(labels), opt)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "trained a word model on %d recordings (%d rows, %d labels, %s, λ=%.3g) in %.1fs\n",
		len(recs), x.Rows, len(labels), mf.label(mp), rep.Lambda, time.Since(start).Seconds())
	model := rfstream.NewWordModel(wc, mp, rls, labels)
	model.Meta = map[string]any{"recordings": len(recs), "rows": x.Rows, "source": firstNonEmpty(o.manifest, o.fsdd), "split": o.split}
	if o.exclude != "" {
		model.Meta["excluded_speakers"] = o.exclude
	}
	if o.aloneCopies {
		model.Meta["alone_copies"] = true
	}
	if sel != nil {
		model.Meta["selection"] = sel
	}
	if o.voiceNorm || len(o.rounds) > 0 {
		a := rfstream.Adaptation{VoiceNorm: o.voiceNorm, VoiceMean: voiceMean, Rounds: o.rounds, Seed: mf.seed, Lambda: rep.Lambda}
		if err := model.SetAdaptation(a, x, y); err != nil {
			return nil, err
		}
	}
	return model, nil
}

// identity is 0, 1, …, n-1.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
