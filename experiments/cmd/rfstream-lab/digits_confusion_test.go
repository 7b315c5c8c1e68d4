package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfusionCountsAndTopPairs(t *testing.T) {
	truth := []int{0, 0, 0, 1, 1, 2, 2, 2, 2}
	pred := []int{0, 1, 1, 1, 2, 0, 0, 2, 1}
	c, err := confusionCounts(truth, pred, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 2, 0}, {0, 1, 1}, {2, 1, 1}}
	for i := range want {
		for j := range want[i] {
			if c[i][j] != want[i][j] {
				t.Fatalf("counts %v, want %v", c, want)
			}
		}
	}
	top := topConfusions(c, []string{"a", "b", "c"}, 3)
	// Largest first, ties in row-major order: a→b 2, c→a 2, then b→c 1.
	if len(top) != 3 || top[0] != (confusedPair{"a", "b", 2}) || top[1] != (confusedPair{"c", "a", 2}) || top[2] != (confusedPair{"b", "c", 1}) {
		t.Fatalf("top confusions %v", top)
	}
	var out bytes.Buffer
	writeConfusionTable(&out, "toy", []string{"a", "b", "c"}, c)
	if !strings.Contains(out.String(), "(6 of 6 errors)") || !strings.Contains(out.String(), "33.3%") {
		t.Fatalf("table:\n%s", out.String())
	}
	if _, err := confusionCounts([]int{0, 3}, []int{0, 1}, 3); err == nil {
		t.Fatal("class 3 of 3 accepted")
	}
	if _, err := confusionCounts([]int{0}, []int{0, 1}, 3); err == nil {
		t.Fatal("lengths 1 and 2 accepted")
	}
}

// --confusion-table's matrices agree with the accuracies, and
// --predictions lists every test recording with the same outcome.
func TestEvalDigitsConfusionTableAndPredictions(t *testing.T) {
	fsdd := toyFSDD(t)
	predPath := filepath.Join(t.TempDir(), "pred.tsv")
	var out, errb bytes.Buffer
	code := run([]string{"eval", "digits", "--fsdd", fsdd, "--split", "speaker", "--m", "20", "--frames", "16",
		"--confusion-table", "--predictions", predPath, "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res digitsResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Confusions) != 2 || len(res.Labels) != 2 {
		t.Fatalf("confusions %v labels %v, want one 2×2 matrix per held-out speaker", res.Confusions, res.Labels)
	}
	for split, c := range res.Confusions {
		var n, diag int
		for i, row := range c {
			for j, v := range row {
				n += v
				if i == j {
					diag += v
				}
			}
		}
		if n != 20 || math.Abs(float64(diag)/float64(n)-res.PerSplit[split]) > 1e-12 {
			t.Errorf("%s: %d of %d on the diagonal, accuracy %v", split, diag, n, res.PerSplit[split])
		}
		if !strings.Contains(out.String(), "confusion, "+split) {
			t.Errorf("no table printed for %s", split)
		}
	}
	preds, err := readPredictions(predPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != 40 {
		t.Fatalf("%d predictions, want 40 (every recording held out once)", len(preds))
	}
	var wrong int
	for _, p := range preds {
		if p.Label != p.Predicted {
			wrong++
		}
	}
	var wantWrong float64
	for split := range res.Confusions {
		wantWrong += 20 * (1 - res.PerSplit[split])
	}
	if math.Abs(float64(wrong)-wantWrong) > 1e-9 {
		t.Fatalf("%d misrecognised in the predictions file, %v by the accuracies", wrong, wantWrong)
	}
	// The speech-region report reads the same file.
	out.Reset()
	if code := run([]string{"eval", "digits-speech", "--fsdd", fsdd, "--predictions", predPath}, &out, &errb); code != 0 {
		t.Fatalf("digits-speech exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"mean speech ms", "median speech ms", "errors under 0.8×", "ann", "bob"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("digits-speech output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestReadPredictionsRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.tsv")
	os.WriteFile(bad, []byte("a\tb\tc\td\te\tf\n"), 0o644)
	if _, err := readPredictions(bad); err == nil {
		t.Fatal("a file without the header accepted")
	}
	os.WriteFile(bad, []byte("split\tpath\n"), 0o644)
	if _, err := readPredictions(bad); err == nil {
		t.Fatal("a two-column file accepted")
	}
	os.WriteFile(bad, []byte("split\tpath\tspeaker\tlabel\tpredicted\tmargin\ns\tp\tx\t1\t1\tbig\n"), 0o644)
	if _, err := readPredictions(bad); err == nil {
		t.Fatal("a non-numeric margin accepted")
	}
	if _, err := readPredictions(filepath.Join(dir, "missing.tsv")); err == nil {
		t.Fatal("a missing file accepted")
	}
}

// A predictions file of any content gives rows or an error, never a
// panic; a file that reads back carries one row per distinct path.
func FuzzReadPredictions(f *testing.F) {
	f.Add([]byte("split\tpath\tspeaker\tlabel\tpredicted\tmargin\ns\ta.wav\tx\t1\t2\t0.5\n"))
	f.Add([]byte("split\tpath\tspeaker\tlabel\tpredicted\tmargin\n"))
	f.Add([]byte("split\tpath\n\"unterminated"))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "p.tsv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readPredictions(p)
		if err == nil && rows == nil {
			t.Fatal("no error and no rows map")
		}
	})
}

func FuzzParseTestWarps(f *testing.F) {
	for _, s := range []string{"-100,0,100", "0,0", "", "1e400,1", "NaN,1", " 5 , -5 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := parseTestWarps(s)
		if err != nil {
			return
		}
		seen := map[float64]bool{}
		for _, c := range w {
			if math.IsNaN(c) || math.Abs(c) > 1200 || seen[c] {
				t.Fatalf("%q gave %v", s, w)
			}
			seen[c] = true
		}
	})
}
