package main

import (
	"errors"
	"io"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/train"
)

// Default models live in the data cache and are trained on first use, so
// every command works on a fresh checkout.
func defaultDigitModel() string          { return cli.ModelPath("digits-maxout.rfm") }
func defaultImageModel() string          { return cli.ModelPath("mnist-maxout.rfm") }
func defaultAdaptableDigitModel() string { return cli.ModelPath("digits-adaptable.rfm") }

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
const adaptableUsage = "use the adaptable digit model (models/digits-adaptable.rfm in the data cache, trained on first use with espeak-ng's voices) instead of the digit model: it learns each voice a stream names (--voice, the web page's browsers) as it speaks"

// defaultDigitWordModel loads the data cache's digit model, training it on
// FSDD's official training takes first when it is missing.
func defaultDigitWordModel(log io.Writer) (*rfstream.Model, error) {
	return cli.LoadOrTrain(defaultDigitModel(), log, func() (*rfstream.Model, error) {
		o := defaultDigitTraining.apply(train.DefaultDigitOptions())
		o.FSDD, o.Log = cli.FSDDDir(), log
		return train.Words(o)
	})
}

// defaultAdaptableDigitModelTrained loads the data cache's adaptable digit
// model (rfstream recognize --adapt), training it first when it is missing
// (train.DefaultAdaptableDigitOptions).
func defaultAdaptableDigitModelTrained(log io.Writer) (*rfstream.Model, error) {
	return adaptableDigitModel(defaultAdaptableDigitModel(), "", log)
}

// adaptableDigitModel loads the adaptable digit model at path, training it
// first when it is missing, on FSDD without the excluded speakers.
func adaptableDigitModel(path, exclude string, log io.Writer) (*rfstream.Model, error) {
	return cli.LoadOrTrain(path, log, func() (*rfstream.Model, error) {
		o := defaultAdaptableTraining.apply(train.DefaultAdaptableDigitOptions())
		o.FSDD, o.Exclude, o.Log = cli.FSDDDir(), exclude, log
		o.Voices.SynthDir = cli.SynthDigitsDir()
		return train.Words(o)
	})
}

// firstUseTraining is what tests shrink of a default digit model's
// training (they check the first-use path, not the model's size): the
// map's size and the voices widening the training set (nil: the
// recordings alone). It starts as train's defaults.
type firstUseTraining struct {
	m      int
	voices *train.VoiceOptions
}

func firstUse(o train.WordOptions) firstUseTraining {
	return firstUseTraining{m: o.Map.M, voices: &o.Voices}
}

func (f firstUseTraining) apply(o train.WordOptions) train.WordOptions {
	o.Map.M, o.Voices = f.m, train.VoiceOptions{}
	if f.voices != nil {
		o.Voices = *f.voices
	}
	return o
}

var (
	defaultDigitTraining     = firstUse(train.DefaultDigitOptions())
	defaultAdaptableTraining = firstUse(train.DefaultAdaptableDigitOptions())
)

// imageModel returns the image model at path, or the default MNIST one.
func imageModel(path string, log io.Writer) (*rfstream.ImageTagger, error) {
	var m *rfstream.Model
	var err error
	if path != "" {
		m, err = rfstream.LoadModel(path)
	} else {
		m, err = cli.LoadOrTrain(defaultImageModel(), log, func() (*rfstream.Model, error) {
			run, err := cli.TrainImages(train.DefaultImageOptions(), log)
			if err != nil {
				return nil, err
			}
			return run.Model, nil
		})
	}
	if err != nil {
		return nil, err
	}
	return rfstream.NewImageTagger(m)
}
