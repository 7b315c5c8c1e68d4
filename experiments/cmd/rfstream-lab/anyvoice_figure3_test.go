package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
)

// TestFigure3Folds: the gender split trains on one sex and tests on the
// other; the dev split never tests on the other sex, never tests an FSDD
// voice, and holds out each synthesiser's voices of the training sex in
// turn with everything else of that sex in training.
func TestFigure3Folds(t *testing.T) {
	engineOf := map[string]string{}
	voice := func(engine, spk string, n int) []datasets.Recording {
		engineOf[spk] = engine
		var out []datasets.Recording
		for i := 0; i < n; i++ {
			out = append(out, datasets.Recording{Path: fmt.Sprintf("%s-%d.wav", spk, i), Label: fmt.Sprint(i % 10), Speaker: spk})
		}
		return out
	}
	var male, female []datasets.Recording
	male = append(male, voice("fsdd", "george", 10)...)
	male = append(male, voice("flite", "flite-awb", 10)...)
	male = append(male, voice("festival", "fest-kal", 10)...)
	female = append(female, voice("flite", "flite-slt", 10)...)
	female = append(female, voice("espeak-ng", "es-f1", 10)...)

	folds, err := figure3Folds("gender", "m2f,f2m", male, female, engineOf)
	if err != nil || len(folds) != 2 || len(folds[0].train) != 30 || len(folds[0].test) != 20 || len(folds[1].train) != 20 {
		t.Fatalf("gender folds: %v, %+v", err, folds)
	}
	folds, err = figure3Folds("dev", "m2f,f2m", male, female, engineOf)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"m2f dev-without-festival", "m2f dev-without-flite", "f2m dev-without-espeak-ng", "f2m dev-without-flite"}
	if len(folds) != len(want) {
		t.Fatalf("%d dev folds, want %v", len(folds), want)
	}
	isMale := map[string]bool{"george": true, "flite-awb": true, "fest-kal": true}
	for i, f := range folds {
		if f.name != want[i] {
			t.Errorf("fold %d is %q, want %q", i, f.name, want[i])
		}
		trainMale := i < 2
		seen := map[string]bool{}
		for _, r := range f.train {
			seen[r.Speaker] = true
			if isMale[r.Speaker] != trainMale {
				t.Errorf("%s trains on %s, of the other sex", f.name, r.Speaker)
			}
		}
		for _, r := range f.test {
			if seen[r.Speaker] || isMale[r.Speaker] != trainMale || engineOf[r.Speaker] == "fsdd" {
				t.Errorf("%s tests on %s (trained on: %v, fsdd: %v)", f.name, r.Speaker, seen[r.Speaker], engineOf[r.Speaker] == "fsdd")
			}
		}
		if trainMale && !seen["george"] {
			t.Errorf("%s leaves FSDD out of training", f.name)
		}
	}
	if _, err := figure3Folds("age", "m2f", male, female, engineOf); err == nil {
		t.Error("an unknown split was accepted")
	}
	if _, err := figure3Folds("gender", "m2c", male, female, engineOf); err == nil {
		t.Error("an unknown direction was accepted")
	}
}

// TestReplotFigure3: earlier runs' points are drawn together, one curve
// per map whatever its size; a file that is not a run's JSON, or runs of
// different splits, are refused naming the file.
func TestReplotFigure3(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r figure3Result) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", figure3Result{Split: "gender", Points: []figure3Point{
		{Fold: "m2f", Map: "invariant", Label: "invariant m=25 n=1 |G|=30 gaussian", M: 25, Bins: 1, Dim: 75, Accuracy: 0.6},
		{Fold: "m2f", Map: "invariant", Label: "invariant m=50 n=1 |G|=30 gaussian", M: 50, Bins: 1, Dim: 150, Accuracy: 0.7}}})
	b := write("b.json", figure3Result{Split: "gender", Points: []figure3Point{
		{Fold: "m2f", Map: "maxout", Label: "maxout m=75 q=4", M: 25, Bins: 1, Dim: 75, Accuracy: 0.5}}})
	base := filepath.Join(dir, "fig")
	var out bytes.Buffer
	if err := replotFigure3([]string{a, b}, base, &out); err != nil {
		t.Fatal(err)
	}
	var got figure3Result
	if raw, err := os.ReadFile(base + ".json"); err != nil || json.Unmarshal(raw, &got) != nil || len(got.Points) != 3 {
		t.Fatalf("merged JSON: %v, %d points", err, len(got.Points))
	}
	for _, ext := range []string{"-m2f.png", "-m2f.svg"} {
		if _, err := os.Stat(base + ext); err != nil {
			t.Errorf("no plot: %v", err)
		}
	}
	if n := curveName(got.Points[0]); n != curveName(got.Points[1]) || n != "invariant n=1 |G|=30 gaussian" {
		t.Errorf("curve names %q and %q", n, curveName(got.Points[1]))
	}
	dev := write("dev.json", figure3Result{Split: "dev"})
	if err := replotFigure3([]string{a, dev}, base, &out); err == nil || !strings.Contains(err.Error(), "dev.json") {
		t.Errorf("runs of two splits: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	if err := replotFigure3([]string{bad}, base, &out); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("a broken file: %v", err)
	}
}
