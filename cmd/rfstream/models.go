package main

import (
	"errors"
	"io"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/recipes"
)

// modelOr loads the model at path, or without a path returns the default
// one (loaded or trained by fallback).
func modelOr(path string, log io.Writer, fallback func(io.Writer) (*engine.Model, error)) (*engine.Model, error) {
	if path != "" {
		return engine.LoadModel(path)
	}
	return fallback(log)
}

// digitModel returns the word model at path, or the default one.
func digitModel(path string, log io.Writer) (*engine.WordClassifier, error) {
	m, err := modelOr(path, log, recipes.Digits)
	if err != nil {
		return nil, err
	}
	return engine.NewWordClassifier(m)
}

// audioModel returns the audio model at path for a pipeline: a word model,
// or a connected-word or phone model (both decoded by Viterbi), told apart
// by the model's task. Without a path it is the default speech model
// (defaults.Speech), the one `recognize` uses too.
func audioModel(path string, log io.Writer) (*engine.WordClassifier, *engine.Connected, error) {
	m, err := modelOr(path, log, defaults.Speech)
	if err != nil {
		return nil, nil, err
	}
	if m.Task == engine.TaskConnected || m.Task == engine.TaskPhones {
		c, err := engine.NewConnected(m)
		return nil, c, err
	}
	w, err := engine.NewWordClassifier(m)
	return w, nil, err
}

// liveAudioModel is audioModel for the live commands (serve, stream): with
// adaptable, the data cache's adaptable digit model (trained on first use),
// which learns each voice a stream names; it and path exclude each other.
func liveAudioModel(path string, adaptable bool, log io.Writer) (*engine.WordClassifier, *engine.Connected, error) {
	if !adaptable {
		return audioModel(path, log)
	}
	if path != "" {
		return nil, nil, errors.New("--adaptable and --model both name the audio model: give one")
	}
	m, err := defaults.Adaptable(log)
	if err != nil {
		return nil, nil, err
	}
	w, err := engine.NewWordClassifier(m)
	return w, nil, err
}

// adaptableUsage is the --adaptable flag's help.
const adaptableUsage = "use the adaptable digit model (models/digits-adaptable.rfm in the data cache, trained on first use with espeak-ng's voices) instead of the digit model: it learns each voice a stream names (--voice, the web page's browsers) as it speaks"

// connectedModel is the default speech model, ready to decode.
func connectedModel(log io.Writer) (*engine.Connected, error) {
	m, err := defaults.Speech(log)
	if err != nil {
		return nil, err
	}
	return engine.NewConnected(m)
}

// imageModel returns the image model at path, or the default MNIST one.
func imageModel(path string, log io.Writer) (*engine.ImageTagger, error) {
	m, err := modelOr(path, log, defaults.Images)
	if err != nil {
		return nil, err
	}
	return engine.NewImageTagger(m)
}
