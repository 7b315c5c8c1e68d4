package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// --normalize none trains on pixels in [0, 1] as they are and says so in
// the model file, so a tagger prepares its inputs the same way; a
// normalisation the program does not know is refused before any work.
func TestTrainImagesRecordsNormalization(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 120)
	for _, norm := range []string{"none", "unit"} {
		out := filepath.Join(dir, norm+".rfm")
		var stdout, stderr bytes.Buffer
		args := []string{"train", "mnist", "--map", "maxout", "--m", "40", "--q", "1", "--normalize", norm,
			"--train-images", trI, "--train-labels", trL, "--out", out}
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		m, err := engine.LoadModel(out)
		if err != nil {
			t.Fatal(err)
		}
		var in engine.ImageInput
		if err := json.Unmarshal(m.Input, &in); err != nil {
			t.Fatal(err)
		}
		if in.Normalize != norm || in.Scale != "byte/255" || in.Width != 8 || in.Height != 8 {
			t.Errorf("--normalize %s: model input %+v", norm, in)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"train", "mnist", "--normalize", "l1", "--train-images", trI, "--train-labels", trL,
		"--out", filepath.Join(dir, "l1.rfm")}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), `"l1"`) {
		t.Errorf("--normalize l1: exit %d, stderr %q", code, stderr.String())
	}
}

// writeIDX writes n synthetic 8×8 bar images and their labels as IDX files.
func writeIDX(t *testing.T, dir, name string, n int) (images, labels string) {
	t.Helper()
	images, labels, err := toymodels.WriteIDX(dir, name, n)
	if err != nil {
		t.Fatal(err)
	}
	return images, labels
}
