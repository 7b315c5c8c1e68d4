package main

import (
	"fmt"
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
