package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/fixtures"
)

// eval images on folders of generated shapes: the test error is read
// through the tagger, the folder of pictures of no class is one set per
// subfolder, and the curve's thresholds reject at least the test shares
// they were read off for, the other pictures more as they rise.
func TestEvalImagesFoldersAndOutOfDomainCurve(t *testing.T) {
	dir := t.TempDir()
	classes := []string{"circle", "cross", "square"}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fixtures.WriteShapeFolder(filepath.Join(dir, "train"), classes, 30, 1))
	must(fixtures.WriteShapeFolder(filepath.Join(dir, "test"), classes, 10, 2))
	must(fixtures.WriteShapeFolder(filepath.Join(dir, "other"), []string{"noise", "grating"}, 8, 3))
	var out, errb bytes.Buffer
	code := run([]string{"eval", "images", "--train-dir", filepath.Join(dir, "train"), "--test-dir", filepath.Join(dir, "test"),
		"--ood-dir", filepath.Join(dir, "other"), "--m", "300", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var ev imagesEval
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.TestN != 30 || ev.TestError > 0.1 || ev.Rule == nil || ev.TestRejected > 0.1 || len(ev.Others) != 2 {
		t.Fatalf("%+v", ev)
	}
	for _, o := range ev.Others {
		if o.N != 8 || o.Rejected < 0.75 || len(o.Curve) != len(curveShares) {
			t.Fatalf("other set %+v", o)
		}
		for i := 1; i < len(o.Curve); i++ {
			if o.Curve[i] < o.Curve[i-1] {
				t.Fatalf("curve of %s falls as the threshold rises: %v", o.Name, o.Curve)
			}
		}
	}
	if !strings.Contains(out.String(), "grating") || !strings.Contains(out.String(), "rejected by the model's rule") {
		t.Fatalf("table:\n%s", out.String())
	}
	if code := run([]string{"eval", "images", "--train-dir", filepath.Join(dir, "train")}, &out, &errb); code == 0 {
		t.Fatal("--train-dir without --test-dir accepted")
	}
}
