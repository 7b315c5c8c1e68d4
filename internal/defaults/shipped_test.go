package defaults

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A damaged shipped model is refused with a message that names the file
// and how to restore it, never decoded.
func TestDamagedShippedModelIsRefused(t *testing.T) {
	saved := readShipped
	t.Cleanup(func() { readShipped = saved })
	readShipped = func(name string) ([]byte, error) {
		b, err := saved(name)
		if err == nil && strings.HasSuffix(name, ".rfm") {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 1
		}
		return b, err
	}
	_, err := Shipped("connected")
	if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "internal/shipped/connected.rfm") || !strings.Contains(err.Error(), "go install") {
		t.Fatalf("a damaged shipped model: %v", err)
	}
}

// The default speech model is the user's in the data cache when it is of
// today's recipe, else the shipped one: a cache without it, or with one
// from older pauses or without a filler, gives the shipped model, with one
// line saying why when a cached file is passed over.
func TestSpeechIsTheCachedModelOrTheShippedOne(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	want, err := Shipped("connected")
	if err != nil {
		t.Fatal(err)
	}
	isShipped := func(m *engine.Model) bool {
		return m.Task == want.Task && len(m.Labels) == len(want.Labels) && m.Meta["training_data"] != nil
	}
	var log bytes.Buffer
	if m, err := Speech(&log); err != nil || !isShipped(m) || log.Len() != 0 {
		t.Fatalf("an empty cache: %v, shipped %v, log %q", err, err == nil && isShipped(m), log.String())
	}
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	path := ConnectedModel()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		meta map[string]any
		line string // "" when the cached model is used
	}{
		{"other pauses", map[string]any{engine.PausesMeta: "white", engine.FillerMeta: "1 voice"}, "other pauses"},
		{"no filler", map[string]any{engine.PausesMeta: datasets.PauseRendering}, "predates the filler"},
		{"today's recipe", map[string]any{engine.PausesMeta: datasets.PauseRendering, engine.FillerMeta: "1 voice"}, ""},
	} {
		cached := *words.Model
		cached.Meta = c.meta
		if err := engine.SaveModel(path, &cached); err != nil {
			t.Fatal(err)
		}
		log.Reset()
		m, err := Speech(&log)
		if err != nil {
			t.Fatal(err)
		}
		if c.line == "" {
			if isShipped(m) || log.Len() != 0 {
				t.Errorf("%s: the cached model was passed over (log %q)", c.name, log.String())
			}
			continue
		}
		if !isShipped(m) || !strings.Contains(log.String(), c.line) || !strings.Contains(log.String(), path) || strings.Count(log.String(), "\n") != 1 {
			t.Errorf("%s: shipped %v, log %q", c.name, isShipped(m), log.String())
		}
	}
	if err := os.WriteFile(path, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if m, err := Speech(&log); err != nil || !isShipped(m) || !strings.Contains(log.String(), "using the shipped connected model") {
		t.Fatalf("an unreadable cached model: %v, log %q", err, log.String())
	}
}
