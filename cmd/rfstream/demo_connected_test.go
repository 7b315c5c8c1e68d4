package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/train"
)

// A cached connected model is retrained when it does not say its training
// strings' pauses were rendered as the test strings' are, and reused when
// it does; a missing one is trained. (Any model serves: only its metadata
// is read.)
func TestCachedConnectedModelFromOtherPausesIsRetrained(t *testing.T) {
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	old := words.Model
	if old.Meta[train.PausesMeta] == datasets.PauseRendering {
		t.Fatal("the stand-in model already records the current pauses")
	}
	path := filepath.Join(t.TempDir(), "connected.rfm")
	if err := engine.SaveModel(path, old); err != nil {
		t.Fatal(err)
	}
	trained := 0
	retrain := func() (*engine.Model, error) {
		trained++
		m := *old
		m.Meta = map[string]any{train.PausesMeta: datasets.PauseRendering, train.FillerMeta: "50 voices of seed 1"}
		return &m, nil
	}
	for i, want := range []int{1, 1} {
		m, err := defaults.LoadConnected(path, io.Discard, retrain)
		if err != nil {
			t.Fatal(err)
		}
		if trained != want || m.Meta[train.PausesMeta] != datasets.PauseRendering {
			t.Fatalf("load %d: trained %d times, pauses %v; want %d and %q", i, trained, m.Meta[train.PausesMeta], want, datasets.PauseRendering)
		}
	}
	saved, err := engine.LoadModel(path)
	if err != nil || saved.Meta[train.PausesMeta] != datasets.PauseRendering {
		t.Fatalf("the retrained model was not saved: %v, %v", err, saved)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := defaults.LoadConnected(path, io.Discard, retrain); err != nil || trained != 2 {
		t.Fatalf("a missing model: %v, trained %d times, want 2", err, trained)
	}
}

// A cached connected model with today's pauses but no filler (trained
// before the default model could reject words that are not digits) is
// retrained once, and the retrained one is kept.
func TestCachedConnectedModelWithoutFillerIsRetrained(t *testing.T) {
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	old := *words.Model
	old.Meta = map[string]any{train.PausesMeta: datasets.PauseRendering}
	path := filepath.Join(t.TempDir(), "connected.rfm")
	if err := engine.SaveModel(path, &old); err != nil {
		t.Fatal(err)
	}
	trained := 0
	retrain := func() (*engine.Model, error) {
		trained++
		m := old
		m.Meta = map[string]any{train.PausesMeta: datasets.PauseRendering, train.FillerMeta: "50 voices of seed 1"}
		return &m, nil
	}
	for i := 0; i < 2; i++ {
		m, err := defaults.LoadConnected(path, io.Discard, retrain)
		if err != nil {
			t.Fatal(err)
		}
		if trained != 1 || m.Meta[train.FillerMeta] == nil {
			t.Fatalf("load %d: trained %d times, filler %v; want once and a filler", i, trained, m.Meta[train.FillerMeta])
		}
	}
}
