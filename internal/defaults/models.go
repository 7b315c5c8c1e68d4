package defaults

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/train"
)

// The data cache's default models, by file name.
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

// LoadOrTrain loads the model at path, or when it does not exist runs
// train to create it and saves it there: default models live in the data
// cache and are trained on first use, so every command works on a fresh
// checkout.
func LoadOrTrain(path string, log io.Writer, train func() (*engine.Model, error)) (*engine.Model, error) {
	m, err := engine.LoadModel(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return m, err
	}
	fmt.Fprintf(log, "%s is missing: training it now\n", path)
	if m, err = train(); err != nil {
		return nil, fmt.Errorf("%s is missing and training it failed: %w", path, err)
	}
	if err := engine.SaveModel(path, m); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "saved %s\n", path)
	return m, nil
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
// not to be used: one trained before the pauses of its training strings
// were rendered in the recordings' background learnt white ones and decodes
// today's strings far worse (experiments/journal/audio.md), and one without
// a filler rejects no word that is not a digit.
func staleSpeech(m *engine.Model) string {
	switch {
	case m.Meta[train.PausesMeta] != datasets.PauseRendering:
		return "was trained on strings with other pauses than today's"
	case m.Meta[train.FillerMeta] == nil:
		return "predates the filler that rejects words that are not digits"
	}
	return ""
}

// ConnectedTraining is what tests shrink of the default connected model's
// training (they check the recipe's path, not the model).
var ConnectedTraining = func(o train.DigitStringOptions) train.DigitStringOptions { return o }

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

// Digits loads the data cache's digit model, training it on FSDD's
// official training takes first when it is missing.
func Digits(log io.Writer) (*engine.Model, error) {
	return LoadOrTrain(DigitModelPath(), log, func() (*engine.Model, error) {
		o := DigitTraining.apply(train.DefaultDigitOptions())
		o.FSDD, o.Log = FSDDDir(), log
		o.Voices.SynthDir, o.Voices.Engines.Dir = SynthDigitsDir(), VoicesDir()
		// A synthesiser missing here costs the model its voices, not the
		// user their first recognition.
		o.Voices.Engines.SkipMissing, o.Voices.Engines.Log = true, log
		return train.Words(o)
	})
}

// Adaptable is the adaptable digit model (recognize --adapt, --session,
// serve --adaptable, rfstream.VoiceSession): the data cache's, when the
// user trained one there, else the shipped one.
func Adaptable(log io.Writer) (*engine.Model, error) {
	return cachedOrShipped(AdaptableModelPath(), "digits-adaptable", log, nil)
}

// AdaptableAt loads the adaptable digit model at path, training it first
// when it is missing, on FSDD without the excluded speakers (the demo's
// voice never heard).
func AdaptableAt(path, exclude string, log io.Writer) (*engine.Model, error) {
	return LoadOrTrain(path, log, func() (*engine.Model, error) { return trainAdaptableWithout(exclude, log) })
}

// FirstUse is what tests shrink of a default digit model's training (they
// check the first-use path, not the model's size): the map's size and the
// voices widening the training set (nil: the recordings alone). It starts
// as train's defaults.
type FirstUse struct {
	M      int
	Voices *train.VoiceOptions
}

func firstUse(o train.WordOptions) FirstUse {
	return FirstUse{M: o.Map.M, Voices: &o.Voices}
}

func (f FirstUse) apply(o train.WordOptions) train.WordOptions {
	o.Map.M, o.Voices = f.M, train.VoiceOptions{}
	if f.Voices != nil {
		o.Voices = *f.Voices
	}
	return o
}

var (
	DigitTraining     = firstUse(train.DefaultDigitOptions())
	AdaptableTraining = firstUse(train.DefaultAdaptableDigitOptions())
)

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

// LoadImages reads the image sets o names (train.LoadImages), or MNIST
// from the data cache, fetched when missing, when o names no file; o then
// names MNIST's files.
func LoadImages(o *train.ImageOptions, log io.Writer, needTrain bool) (*train.ImageData, error) {
	if err := o.Input(0, 0).Validate(); err != nil {
		return nil, err
	}
	if o.TrainImages == "" && o.TrainLabels == "" && o.TestImages == "" && o.TestLabels == "" {
		if err := EnsureMNIST(log); err != nil {
			return nil, err
		}
		d := MNISTDir()
		o.TrainImages, o.TrainLabels = filepath.Join(d, "train-images-idx3-ubyte"), filepath.Join(d, "train-labels-idx1-ubyte")
		o.TestImages, o.TestLabels = filepath.Join(d, "t10k-images-idx3-ubyte"), filepath.Join(d, "t10k-labels-idx1-ubyte")
	}
	return train.LoadImages(*o, needTrain)
}

// TrainImages trains an image model (train.Images) on the files o names,
// or on MNIST (fetched into the data cache when missing); log receives what
// fetching says, o.Log the fit's progress.
func TrainImages(o train.ImageOptions, log io.Writer) (*train.ImageRun, error) {
	d, err := LoadImages(&o, log, true)
	if err != nil {
		return nil, err
	}
	return train.Images(o, d)
}
