package defaults

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/shipped"
)

// Corpus is one body of data a shipped model learnt from, with its
// licence: a model carries the licences of what it learnt from.
type Corpus struct {
	Name    string `json:"name"`
	Licence string `json:"licence"`
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
