package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// data voices builds the named engines' corpora into the cache and says
// what it found, MBROLA's absence included: flite's four voices, one of
// them female (slt).
func TestDataVoicesSaysWhatItBuilt(t *testing.T) {
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed")
	}
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox is not installed")
	}
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	var out, errb bytes.Buffer
	if code := run([]string{"data", "voices", "--engines", "flite", "--speakers", "4", "--takes", "1", "--strings", "1"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"mbrola: not available", "flite: 4 speakers (3 male, 1 female), 40 digits, 4 strings"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if code := run([]string{"data", "voices", "--engines", "nope"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "nope") {
		t.Errorf("unknown engine: exit %d, stderr %q", code, errb.String())
	}
}
