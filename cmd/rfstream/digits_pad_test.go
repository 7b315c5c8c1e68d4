package main

import (
	"slices"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Padded copies follow the clean rows: each is the word vector of its
// source with noise at the source's background level before and after,
// keeps the source's speaker and group, and is the same in every run.
func TestPadCopiesRows(t *testing.T) {
	recs, err := datasets.FSDD(toyFSDD(t))
	if err != nil {
		t.Fatal(err)
	}
	real := recs[:6]
	wc := frontend.DefaultWordConfig()
	// The floor rule off and a wide margin: the toy files are clean, their
	// padding faint, and the detector should keep it as speech.
	wc.Frames, wc.FloorShare, wc.MarginDB = 16, -1, 150
	tv := trainVoiceFlags{synthTakes: 1, realWeight: 1, padMs: 150}
	if err := tv.validate(); err != nil {
		t.Fatal(err)
	}
	if !tv.used() {
		t.Fatal("--pad-copies-ms alone should change the training rows")
	}
	rows, err := tv.rows(real, nil, wc, map[string][]float32{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(real)
	if rows.x.Rows != 2*n {
		t.Fatalf("%d rows, want %d", rows.x.Rows, 2*n)
	}
	clean, err := loadWordVectors(real, wc)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tv.rows(real, nil, wc, map[string][]float32{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range real {
		row := linalg.Row32(rows.x, n+i)
		if !slices.Equal(linalg.Row32(rows.x, i), linalg.Row32(clean, i)) {
			t.Fatalf("row %d: the clean row is not the recording's word vector", i)
		}
		if slices.Equal(row, linalg.Row32(clean, i)) {
			t.Fatalf("row %d: the padded copy of %s equals the clean row", n+i, r.Path)
		}
		if !slices.Equal(row, linalg.Row32(again.x, n+i)) {
			t.Fatalf("row %d: the padded copy differs between two runs", n+i)
		}
		if rows.recs[n+i] != r || rows.groups[n+i] != i {
			t.Fatalf("row %d: recording %+v group %d, want %+v group %d", n+i, rows.recs[n+i], rows.groups[n+i], r, i)
		}
		// The copy is the vector of the padded recording: its length is
		// the recording's plus 2 × 150 ms, its middle the recording.
		a, err := readWAVFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		padded := paddedCopy(r.Path, a, 150)
		pad := int(0.15 * float64(a.Rate))
		if len(padded) != len(a.Samples)+2*pad || !slices.Equal(padded[pad:pad+len(a.Samples)], a.Samples) {
			t.Fatalf("%s: padded to %d samples from %d (pad %d each side), or its middle is not the recording", r.Path, len(padded), len(a.Samples), pad)
		}
		want, err := frontend.WordVector(wc, padded)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(row, want) {
			t.Fatalf("row %d: not the word vector of %s padded", n+i, r.Path)
		}
	}
	for _, bad := range []float64{-1, 1001} {
		if err := (&trainVoiceFlags{synthTakes: 1, realWeight: 1, padMs: bad}).validate(); err == nil {
			t.Fatalf("--pad-copies-ms %g accepted", bad)
		}
	}
}
