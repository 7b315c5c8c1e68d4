package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/datasets"
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
// by the model's task. Without a path it is the default speech model
// (defaultSpeechModel), the one `recognize` uses too.
func audioModel(path string, log io.Writer) (*rfstream.WordClassifier, *rfstream.Connected, error) {
	m, err := modelOr(path, log, defaultSpeechModel)
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

// defaultSpeechModel is what recognize, stream, serve and the web page
// hear speech with when no model is named: the data cache's connected
// digit model, which decodes one digit or a string of them, with or without
// pauses (docs/commands.md has the measurements that chose it over the
// word model behind the segmenter). It is trained on first use.
func defaultSpeechModel(log io.Writer) (*rfstream.Model, error) {
	return loadConnectedModel(cli.ConnectedModel(), log, func() (*rfstream.Model, error) {
		o := defaultConnectedTraining(train.DefaultDigitStringOptions())
		o.FSDD, o.Log, o.Filler.SynthDir = cli.FSDDDir(), log, cli.SynthDigitsDir()
		m, _, err := train.DigitStrings(o)
		return m, err
	})
}

// defaultConnectedTraining is what tests shrink of the default connected
// model's training (they check the first-use path, not the model).
var defaultConnectedTraining = func(o train.DigitStringOptions) train.DigitStringOptions { return o }

// connectedModel is the default speech model, ready to decode.
func connectedModel(log io.Writer) (*rfstream.Connected, error) {
	m, err := defaultSpeechModel(log)
	if err != nil {
		return nil, err
	}
	return rfstream.NewConnected(m)
}

// loadConnectedModel loads the connected model at path, training it with
// retrain (and saving it) when it is missing or was trained on strings whose
// pauses were rendered otherwise than the test strings' are now: a model
// cached before the pauses were rendered in the recordings' background
// learnt white ones and decodes the new strings far worse (experiments/journal/audio.md).
//
// A model cached before the default model had a filler (it rejects no
// word that is not a digit) is trained again too.
func loadConnectedModel(path string, log io.Writer, retrain func() (*rfstream.Model, error)) (*rfstream.Model, error) {
	m, err := cli.LoadOrTrain(path, log, retrain)
	if err != nil {
		return m, err
	}
	switch {
	case m.Meta[train.PausesMeta] != datasets.PauseRendering:
		fmt.Fprintf(log, "%s was trained on strings with other pauses than the test strings': training it again\n", path)
	case m.Meta[train.FillerMeta] == nil:
		fmt.Fprintf(log, "%s predates the filler that rejects words that are not digits: training it again\n", path)
	default:
		return m, nil
	}
	if m, err = retrain(); err != nil {
		return nil, err
	}
	return m, rfstream.SaveModel(path, m)
}

// defaultDigitWordModel loads the data cache's digit model, training it on
// FSDD's official training takes first when it is missing.
func defaultDigitWordModel(log io.Writer) (*rfstream.Model, error) {
	return cli.LoadOrTrain(defaultDigitModel(), log, func() (*rfstream.Model, error) {
		o := defaultDigitTraining.apply(train.DefaultDigitOptions())
		o.FSDD, o.Log = cli.FSDDDir(), log
		o.Voices.SynthDir, o.Voices.Engines.Dir = cli.SynthDigitsDir(), cli.VoicesDir()
		// A synthesiser missing here costs the model its voices, not the
		// user their first recognition.
		o.Voices.Engines.SkipMissing, o.Voices.Engines.Log = true, log
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
		trainDefault := func() (*rfstream.Model, error) {
			run, err := cli.TrainImages(train.DefaultImageOptions(), log)
			if err != nil {
				return nil, err
			}
			return run.Model, nil
		}
		m, err = cli.LoadOrTrain(defaultImageModel(), log, trainDefault)
		if err == nil && !hasImageRecipe(m) {
			m, err = retrainDefaultImageModel(log, trainDefault)
		}
	}
	if err != nil {
		return nil, err
	}
	return rfstream.NewImageTagger(m)
}

// hasImageRecipe reports whether an image model records the recipe the
// default one is trained with today: polarity and an out-of-domain rule.
func hasImageRecipe(m *rfstream.Model) bool {
	var in rfstream.ImageInput
	return json.Unmarshal(m.Input, &in) == nil && in.Polarity != "" && in.OutOfDomain != nil
}

// retrainDefaultImageModel replaces a cached default MNIST model from
// before image recipes (it cannot read ink on paper, nor mark a picture
// out of domain) with one trained now; its read-out is the same.
func retrainDefaultImageModel(log io.Writer, trainDefault func() (*rfstream.Model, error)) (*rfstream.Model, error) {
	path := defaultImageModel()
	fmt.Fprintf(log, "%s predates image recipes (polarity, out-of-domain rule): training it again\n", path)
	m, err := trainDefault()
	if err != nil {
		return nil, err
	}
	if err := rfstream.SaveModel(path, m); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "saved %s\n", path)
	return m, nil
}
