package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/cli"
)

func scoreRows(rows ...[]float32) blas32.General {
	g := blas32.General{Rows: len(rows), Cols: len(rows[0]), Stride: len(rows[0])}
	for _, r := range rows {
		g.Data = append(g.Data, r...)
	}
	return g
}

// With --recognizer combo, self-training's pseudo-labels are the argmax of
// the whole-word and HMM scores combined, round after round, not the
// whole-word argmax: a toy where the two disagree on every unseen-voice
// recording, and the second round sees the refitted whole-word scores.
func TestSelfTrainPseudoLabelsFollowCombinedScores(t *testing.T) {
	test := []datasets.Recording{
		{Speaker: "seen"}, {Speaker: "new"}, {Speaker: "new"}, {Speaker: "new"},
	}
	trained := map[string]bool{"seen": true}
	// The whole-word model slightly prefers word 0 everywhere, the HMM
	// clearly prefers word 1 on the unseen voice.
	words := scoreRows(
		[]float32{1, 0.9, 0},
		[]float32{1, 0.9, 0},
		[]float32{1, 0.8, 0},
		[]float32{1, 0.7, 0.1},
	)
	hmm := scoreRows(
		[]float32{0, 0, 5},
		[]float32{0, 5, 0},
		[]float32{0, 4, 0},
		[]float32{0, 6, 1},
	)
	// After the first refit the whole-word model prefers word 2 by far;
	// combined with the HMM that gives word 2 on rows 1 and 3 and word 1 on
	// row 2 (worked out by hand from the standardised rows).
	refitted := scoreRows(
		[]float32{0, 0, 1},
		[]float32{0, -1, 10},
		[]float32{0, 1, 2},
		[]float32{0, -2, 10},
	)
	wantFirst, wantSecond := []int{1, 1, 1}, []int{2, 1, 2}
	for i, r := range []int{1, 2, 3} {
		if got := classifier.Argmax(words)[r]; got == wantFirst[i] {
			t.Fatalf("toy is wrong: whole-word argmax of row %d is already %d", r, got)
		}
	}
	for name, want := range map[string][][]int{
		"combo": {wantFirst, wantSecond},
		// The whole-word recogniser keeps its own argmax: word 0, then 2.
		"words": {{0, 0, 0}, {2, 2, 2}},
	} {
		hf := hmmFlags{recognizer: name, weight: 1}
		var picked [][]int
		refit := func(rows, labels []int) (blas32.General, error) {
			if !slices.Equal(rows, []int{1, 2, 3}) {
				t.Errorf("%s: pseudo-labelled rows %v, want the unseen voice's 1, 2, 3", name, rows)
			}
			picked = append(picked, append([]int(nil), labels...))
			return refitted, nil
		}
		decide := func(w blas32.General) blas32.General { return hf.decisionScores(w, hmm) }
		pick := func(s blas32.General, f float64) ([]int, []int) { return pseudoLabelledSorted(s, test, trained, f) }
		last, err := selfTrainRounds([]float64{1, 1}, words, decide, pick, refit, func(int, int) {})
		if err != nil {
			t.Fatal(err)
		}
		if len(picked) != 2 || !slices.Equal(picked[0], want[0]) || !slices.Equal(picked[1], want[1]) {
			t.Errorf("%s: pseudo-labels per round %v, want %v", name, picked, want)
		}
		if !slices.Equal(last.Data, refitted.Data) {
			t.Errorf("%s: self-training returned %v, want the last refit's whole-word scores", name, last.Data)
		}
	}
}

// pseudoLabelledSorted is pseudoLabelled with its rows in recording order
// (it lists them class by class).
func pseudoLabelledSorted(s blas32.General, test []datasets.Recording, trained map[string]bool, f float64) ([]int, []int) {
	rows, labels := pseudoLabelled(s, test, trained, f)
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return rows[a] - rows[b] })
	r, l := make([]int, len(rows)), make([]int, len(rows))
	for i, o := range order {
		r[i], l[i] = rows[o], labels[o]
	}
	return r, l
}

// A nested run trains one HMM per distinct training set: the inner fold
// that leaves out speakers S and T is found under the same cache key
// whether S is the outer speaker and T the inner one or the other way
// round, and different training sets get different keys.
func TestHMMCacheKeySharedByMirroredInnerFolds(t *testing.T) {
	dir := t.TempDir()
	speakers := []string{"ann", "bob", "cy", "dee"}
	for _, s := range speakers {
		for d := 0; d < 3; d++ {
			for take := 0; take < 2; take++ {
				// FSDD reads only the names, so empty files will do.
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d_%s_%d.wav", d, s, take)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	var hf hmmFlags
	hf.cf.Map.M, hf.cf.Passes = 1000, 2
	// keys[outer][inner] is the key of the fold without both.
	keys := map[string]map[string]string{}
	seen := map[string]bool{}
	for _, outer := range speakers {
		splits, err := digitSplits(cli.WordSet{FSDD: dir, Exclude: outer}, "speaker")
		if err != nil {
			t.Fatal(err)
		}
		keys[outer] = map[string]string{}
		for _, sp := range splits {
			inner := sp.test[0].Speaker
			keys[outer][inner] = hf.cacheKey(sp.train, 1)
			seen[keys[outer][inner]] = true
		}
	}
	for _, s := range speakers {
		for _, u := range speakers {
			if s != u && keys[s][u] != keys[u][s] {
				t.Errorf("fold without %s and %s: key %s excluding %s first, %s excluding %s first", s, u, keys[s][u], s, keys[u][s], u)
			}
		}
	}
	if want := len(speakers) * (len(speakers) - 1) / 2; len(seen) != want {
		t.Errorf("%d distinct keys over the inner folds, want %d (one per pair of speakers)", len(seen), want)
	}
	outerSplits, err := digitSplits(cli.WordSet{FSDD: dir}, "speaker")
	if err != nil {
		t.Fatal(err)
	}
	if k := hf.cacheKey(outerSplits[0].train, 1); seen[k] {
		t.Errorf("an outer fold shares its key %s with an inner fold", k)
	}
	if hf.cacheKey(outerSplits[0].train, 1) == hf.cacheKey(outerSplits[0].train, 2) {
		t.Error("the seed does not change the key")
	}
}

// --hmm-teacher-only: the combination still picks the pseudo-labels
// (decisionScores), but the decision is the whole-word argmax.
func TestHMMTeacherOnlyDecidesByWords(t *testing.T) {
	words := scoreRows([]float32{1, 0.9, 0}, []float32{0, 1, 0.5})
	hmm := scoreRows([]float32{0, 5, 0}, []float32{0, 0, 9})
	combo := hmmFlags{recognizer: "combo", weight: 1}
	teacher := hmmFlags{recognizer: "combo", weight: 1, teacherOnly: true}
	if got := combo.predict(words, hmm); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("combo decides %v, want the combined argmax [1 2]", got)
	}
	if got := teacher.predict(words, hmm); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("teacher-only decides %v, want the whole-word argmax [0 1]", got)
	}
	if got := classifier.Argmax(teacher.decisionScores(words, hmm)); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("teacher-only pseudo-labels from %v, want the combined argmax [1 2]", got)
	}
	for _, bad := range []hmmFlags{{recognizer: "words", teacherOnly: true}, {recognizer: "hmm", teacherOnly: true}} {
		if bad.validate() == nil {
			t.Errorf("--hmm-teacher-only with --recognizer %s accepted", bad.recognizer)
		}
	}
}
