package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// writeIDX writes n synthetic 8×8 bar images (label = orientation) and
// their labels as IDX files.
func writeIDX(t *testing.T, dir, name string, n int) (images, labels string) {
	t.Helper()
	images, labels, err := toymodels.WriteIDX(dir, name, n)
	if err != nil {
		t.Fatal(err)
	}
	return images, labels
}

// writeManifest writes n rising and falling glides as WAV files and a
// manifest of them.
func writeManifest(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var m strings.Builder
	for i := 0; i < n; i++ {
		f0, f1, label := 400.0, 1500.0, "up"
		if i%2 == 1 {
			f0, f1, label = f1, f0, "down"
		}
		x := append(append(toymodels.Noise(800, uint32(i)), toymodels.Glide(f0, f1, 0.3+0.01*float64(i%10), uint32(i))...), toymodels.Noise(800, uint32(i+1))...)
		var b bytes.Buffer
		if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: 8000, Samples: x}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.wav", name, i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&m, "%s\t%s\ts%d\n", p, label, i%3)
	}
	p := filepath.Join(dir, name+".tsv")
	if err := os.WriteFile(p, []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLogsOffTerminalHaveNoControlCharacters runs training and evaluation
// commands with their output going to buffers (not terminals, as in CI):
// progress must still be reported, as plain lines only.
func TestLogsOffTerminalHaveNoControlCharacters(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 200)
	teI, teL := writeIDX(t, dir, "test", 40)
	trM, teM := writeManifest(t, dir, "train", 40), writeManifest(t, dir, "test", 10)
	for _, c := range []struct {
		args     []string
		progress []string // progress labels the log must show
	}{
		{[]string{"eval", "mnist", "--m", "50", "--q", "2", "--train-images", trI, "--train-labels", trL, "--test-images", teI, "--test-labels", teL},
			[]string{"features+gram: 200/200 rows done in"}},
		{[]string{"eval", "digits", "--m", "50", "--seeds", "2", "--train-manifest", trM, "--test-manifest", teM},
			[]string{"word vectors: 40/40 files done in", "word vectors: 10/10 files done in", "digits runs: 2/2 runs done in"}},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		all := out.String() + errb.String()
		if i := strings.IndexAny(all, "\r\x1b"); i >= 0 {
			t.Fatalf("%v: control character in a non-terminal log near %q", c.args, all[max(0, i-40):min(len(all), i+40)])
		}
		for _, p := range c.progress {
			if !strings.Contains(errb.String(), p) {
				t.Errorf("%v: no %q progress in the log:\n%s", c.args, p, errb.String())
			}
		}
	}
}
