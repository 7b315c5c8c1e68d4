package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
)

// train TASK without --out writes the data cache's default model when
// there is none, refuses to replace one that exists (before any training)
// unless --force is given, and an explicit --out writes where it says.
func TestTrainKeepsAnExistingDefaultModel(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	t.Setenv("RFSTREAM_FSDD", toyFSDD(t))
	args := []string{"train", "digits", "--split", "all", "--m", "40", "--frames", "16", "--synth-voices", "0", "--engine-voices", ""}
	train := func(extra ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(append(append([]string{}, args...), extra...), &out, &errb)
		return code, errb.String()
	}
	if code, errb := train(); code != 0 {
		t.Fatalf("first training to the default model: exit %d: %s", code, errb)
	}
	first, err := os.ReadFile(defaults.DigitModelPath())
	if err != nil {
		t.Fatal(err)
	}
	code, errb := train("--m", "50")
	if code != 1 || !strings.Contains(errb, "--force") || !strings.Contains(errb, "--out") || strings.Contains(errb, "files done") {
		t.Fatalf("replacing the default model without --force: exit %d, stderr %q", code, errb)
	}
	if now, _ := os.ReadFile(defaults.DigitModelPath()); !bytes.Equal(now, first) {
		t.Fatal("the refused training changed the default model")
	}
	elsewhere := t.TempDir() + "/words.rfm"
	if code, errb := train("--m", "50", "--out", elsewhere); code != 0 {
		t.Fatalf("--out to a new file: exit %d: %s", code, errb)
	}
	if code, errb := train("--m", "50", "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errb)
	}
	m, err := engine.LoadModel(defaults.DigitModelPath())
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(defaults.DigitModelPath()); bytes.Equal(now, first) {
		t.Fatalf("--force left the old model (task %s)", m.Task)
	}
}
