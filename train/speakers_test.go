package train

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Speaker-level CMVN removes a fixed per-speaker spectral tilt: the same
// word from two voices that differ only by a gain per band becomes the
// same vector. Statistics come from training; an unseen voice uses its own.
func TestSpeakerNormRemovesAPerSpeakerTilt(t *testing.T) {
	const mels, frames = 4, 3
	words := [][]float32{{1, 0, 2, 0, 3, 1, 0, 0, 1, 2, 0, 1}, {0, 2, 1, 1, 0, 0, 3, 1, 2, 0, 1, 0}}
	tilt := map[string][]float32{"ann": {0, 0, 0, 0}, "bob": {1, -2, 0.5, 3}, "cy": {-1, 1, 2, 0}}
	build := func(speakers ...string) (blas32.General, []datasets.Recording) {
		x := linalg.NewGeneral32(len(speakers)*len(words), mels*frames)
		var recs []datasets.Recording
		for si, s := range speakers {
			for wi, w := range words {
				row := linalg.Row32(x, si*len(words)+wi)
				for i, v := range w {
					row[i] = v + tilt[s][i%mels]
				}
				recs = append(recs, datasets.Recording{Speaker: s, Label: strconv.Itoa(wi)})
			}
		}
		return x, recs
	}
	xtr, rtr := build("ann", "bob")
	xte, rte := build("cy", "bob")
	norm := NewSpeakerNorm(xtr, rtr, mels, false)
	norm.Apply(xte, rte)
	norm.Apply(xtr, rtr)
	for wi := range words {
		ref := linalg.Row32(xtr, wi) // ann's word wi
		for _, other := range [][]float32{linalg.Row32(xtr, 2+wi), linalg.Row32(xte, wi), linalg.Row32(xte, 2+wi)} {
			for i := range ref {
				if math.Abs(float64(ref[i]-other[i])) > 1e-5 {
					t.Fatalf("word %d: %v vs %v after speaker normalisation", wi, ref, other)
				}
			}
		}
		var ss float64
		for _, v := range ref {
			ss += float64(v) * float64(v)
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Fatalf("normalised row has squared norm %v", ss)
		}
	}
}

// Holding out a speaker for λ takes their augmented copies too.
func TestLambdaHoldOutBySpeaker(t *testing.T) {
	recs := []datasets.Recording{{Speaker: "a"}, {Speaker: "b"}, {Speaker: "a"}, {Speaker: "c"}}
	rows, err := lambdaHoldOut("speaker", recs, 8, 1) // seed 1 picks the second speaker, b
	if err != nil || len(rows) != 2 || rows[0] != 1 || rows[1] != 5 {
		t.Fatalf("held-out rows %v, %v; want b's recording and its copy, [1 5]", rows, err)
	}
	if rows, err := lambdaHoldOut("random", recs, 8, 1); rows != nil || err != nil {
		t.Fatalf("random: %v, %v; want FitRLS's own split", rows, err)
	}
	if _, err := lambdaHoldOut("speaker", recs[:1], 2, 1); err == nil {
		t.Fatal("one training speaker accepted")
	}
	if _, err := lambdaHoldOut("voices", recs, 4, 1); err == nil || !strings.Contains(err.Error(), "voices") {
		t.Fatalf("unknown mode: %v", err)
	}
}

// With warped copies and no --lambda-by speaker, λ is judged on whole
// recordings: every held-out recording takes its copies along, and none of
// them stays in the fit. Without copies FitRLS keeps its own split.
func TestLambdaRowsKeepCopiesTogether(t *testing.T) {
	recs := make([]datasets.Recording, 40)
	for i := range recs {
		recs[i].Speaker = string(rune('a' + i%4))
	}
	rows, bySpeaker, err := LambdaRows("random", recs, nil, 40, 120, 3) // two warped copies of each
	if err != nil || bySpeaker {
		t.Fatalf("%v, %v", bySpeaker, err)
	}
	held := map[int]bool{}
	for _, r := range rows {
		held[r] = true
	}
	if len(rows) != 12 {
		t.Fatalf("%d held-out rows, want 4 recordings × 3", len(rows))
	}
	for r := range held {
		for c := 0; c < 3; c++ {
			if !held[r%40+40*c] {
				t.Fatalf("row %d held out but copy %d of its recording is in the fit", r, r%40+40*c)
			}
		}
	}
	if rows, _, err := LambdaRows("random", recs, nil, 40, 40, 3); rows != nil || err != nil {
		t.Fatalf("no copies: %v, %v; want FitRLS's own split", rows, err)
	}
	if rows, bySpeaker, err := LambdaRows("speaker", recs, nil, 40, 120, 1); err != nil || !bySpeaker || len(rows) != 30 {
		t.Fatalf("by speaker: %d rows, %v, %v; want one speaker's 10 recordings × 3", len(rows), bySpeaker, err)
	}
}
