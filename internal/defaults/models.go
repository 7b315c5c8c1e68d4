package defaults

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/rfstream/rfstream/engine"
)

// The data cache's models that a user's training replaces the defaults
// with, by file name.
func DigitModelPath() string     { return ModelPath("digits-maxout.rfm") }
func ImageModelPath() string     { return ModelPath("mnist-maxout.rfm") }
func AdaptableModelPath() string { return ModelPath("digits-adaptable.rfm") }

// PhoneModelPath is where train phones writes its model by default.
func PhoneModelPath() string { return ModelPath("phones.rfm") }

// Model is the default model of a task: what every command uses when no
// model is named, and what the public package's DefaultModel returns.
// TaskConnected is the speech model (Speech), TaskWords the adaptable
// digit model (Adaptable), TaskImages the MNIST tagger (Images): each the
// data cache's when the user trained one there, else the one that ships
// with the module. TaskPhones is the phone model `rfstream train phones`
// writes, which takes its corpora and is never trained behind a user's
// back.
func Model(task string, log io.Writer) (*engine.Model, error) {
	switch task {
	case engine.TaskConnected:
		return Speech(log)
	case engine.TaskWords:
		return Adaptable(log)
	case engine.TaskImages:
		return Images(log)
	case engine.TaskPhones:
		m, err := engine.LoadModel(PhoneModelPath())
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is missing: train it with rfstream train phones", PhoneModelPath())
		}
		return m, err
	}
	return nil, fmt.Errorf("no default model for task %q (known: %s, %s, %s, %s)", task,
		engine.TaskConnected, engine.TaskImages, engine.TaskPhones, engine.TaskWords)
}

// Speech is what recognize, stream, serve and the web page hear speech
// with when no model is named: the connected digit model, which decodes one
// digit or a string of them, with or without pauses (docs/commands.md has
// the measurements that chose it over the word model behind the
// segmenter). A model of the user's in the data cache is used; else the
// shipped one.
func Speech(log io.Writer) (*engine.Model, error) {
	return cachedOrShipped(ConnectedModel(), "connected", log, staleSpeech)
}

// staleSpeech says why a connected model cached by an older rfstream is
// not to be used: one whose training strings' pauses were rendered
// otherwise than the shipped model's (before they were rendered in the
// recordings' background it learnt white ones, and decodes today's strings
// far worse: experiments/journal/audio.md), and one without a filler, which
// rejects no word that is not a digit.
func staleSpeech(m *engine.Model) string {
	shipped, err := Shipped("connected")
	switch {
	case err == nil && m.Meta[engine.PausesMeta] != shipped.Meta[engine.PausesMeta]:
		return "was trained on strings with other pauses than today's"
	case m.Meta[engine.FillerMeta] == nil:
		return "predates the filler that rejects words that are not digits"
	}
	return ""
}

// cachedOrShipped is the default model of one kind: the data cache's at
// path when there is one and it is current, else the shipped model name. A
// cached model that cannot be read, or that stale says is out of date, is
// passed over with one line on log saying why.
func cachedOrShipped(path, name string, log io.Writer, stale func(*engine.Model) string) (*engine.Model, error) {
	m, err := engine.LoadModel(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Shipped(name)
	case err != nil:
		fmt.Fprintf(log, "%v: using the shipped %s model instead\n", err, name)
		return Shipped(name)
	}
	if stale != nil {
		if why := stale(m); why != "" {
			fmt.Fprintf(log, "%s %s: using the shipped %s model instead (delete the file to stop this line)\n", path, why, name)
			return Shipped(name)
		}
	}
	return m, nil
}

// Adaptable is the adaptable digit model (recognize --adapt, --session,
// serve --adaptable, rfstream.VoiceSession): the data cache's, when the
// user trained one there, else the shipped one.
func Adaptable(log io.Writer) (*engine.Model, error) {
	return cachedOrShipped(AdaptableModelPath(), "digits-adaptable", log, nil)
}

// Images is the MNIST tagger: the data cache's, when the user trained one
// there with today's recipe, else the shipped one.
func Images(log io.Writer) (*engine.Model, error) {
	return cachedOrShipped(ImageModelPath(), "mnist", log, func(m *engine.Model) string {
		if !HasImageRecipe(m) {
			return "predates image recipes (polarity, out-of-domain rule)"
		}
		return ""
	})
}

// HasImageRecipe reports whether an image model records the recipe the
// default one is trained with today: polarity and an out-of-domain rule.
func HasImageRecipe(m *engine.Model) bool {
	var in engine.ImageInput
	return json.Unmarshal(m.Input, &in) == nil && in.Polarity != "" && in.OutOfDomain != nil
}
