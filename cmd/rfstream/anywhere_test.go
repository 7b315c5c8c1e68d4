package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// awayFromCheckout makes the test run as a user would from any folder: the
// working directory an empty temporary one, the user's cache directory
// cache, and neither RFSTREAM_DATA nor RFSTREAM_FSDD set.
func awayFromCheckout(t *testing.T, cache string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	t.Setenv("HOME", t.TempDir())     // and on macOS
	t.Setenv("RFSTREAM_DATA", "")
	t.Setenv("RFSTREAM_FSDD", "")
	t.Chdir(t.TempDir())
}

// recognize gives the same answer from any working directory with the
// default model in the user's cache and no FSDD in reach: the model that
// exists is used, nothing is trained.
func TestRecognizeFromAnyDirectory(t *testing.T) {
	dir := t.TempDir()
	c, err := toymodels.Connected() // the default speech model's kind, made small
	if err != nil {
		t.Fatal(err)
	}
	c.Model.Meta = map[string]any{engine.PausesMeta: datasets.PauseRendering, engine.FillerMeta: "none (toy)"} // as the default model is trained
	model := filepath.Join(dir, "connected.rfm")
	if err := engine.SaveModel(model, c.Model); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe.wav")
	writeWAV(t, probe, toymodels.UpDown())
	here := recognizeOut(t, "--model", model, probe)
	if !strings.Contains(here, "up down") {
		t.Fatalf("the toy model itself hears %q in up-down", here)
	}

	cache := t.TempDir()
	awayFromCheckout(t, cache)
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "rfstream", "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "rfstream", "models", "connected.rfm"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if there := recognizeOut(t, probe); there != here {
		t.Fatalf("from another folder with the model in the user's cache: %q, from the model itself: %q", there, here)
	}
}

func recognizeOut(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"recognize"}, args...), &out, &errb); code != 0 {
		t.Fatalf("recognize %v: exit %d: %s", args, code, errb.String())
	}
	if strings.Contains(errb.String(), "training") {
		t.Fatalf("recognize %v trained a model: %s", args, errb.String())
	}
	return out.String()
}

// With no data cache and no FSDD, the commands answer with the shipped
// models, training nothing; training the digit model (which the demo and
// bench-stream still train on first use) says what to set, and every flag
// it names is one the failing command has.
func TestMissingModelAndFSDDSaysWhatToSet(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe.wav")
	writeWAV(t, probe, downWord(4242))
	awayFromCheckout(t, t.TempDir())
	for _, args := range [][]string{{"recognize", probe}, {"recognize", "--adapt", probe}, {"stream", "--fast", probe}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 || strings.Contains(errb.String(), "is missing") {
			t.Fatalf("%v: exit %d, want the shipped model's answer: %s", args, code, errb.String())
		}
	}
	args := []string{"train", "digits", "--out", filepath.Join(dir, "digits.rfm")}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 1 {
		t.Fatalf("%v: exit %d, want 1: %s", args, code, errb.String())
	}
	msg := errb.String()
	if !strings.Contains(msg, "RFSTREAM_FSDD") {
		t.Errorf("%v: the error does not name RFSTREAM_FSDD: %s", args, msg)
	}
	known := flagsOf(t, args[:2]...)
	for _, m := range regexp.MustCompile(`--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(msg, -1) {
		if !known[m[1]] {
			t.Errorf("%v: the error names --%s, which train digits does not have: %s", args, m[1], msg)
		}
	}
}

// flagsOf lists the flags of command as its -h prints them.
func flagsOf(t *testing.T, command ...string) map[string]bool {
	t.Helper()
	var help bytes.Buffer
	if code := run(append(command, "-h"), io.Discard, &help); code != 0 {
		t.Fatalf("%s -h: exit %d", command, code)
	}
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  --?([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help.String(), -1) {
		known[m[1]] = true
	}
	if len(known) < 2 {
		t.Fatalf("%s -h lists no flags: %s", command, help.String())
	}
	return known
}
