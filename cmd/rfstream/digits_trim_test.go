package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Trimmed copies (--onset-trim-ms, --offset-trim-ms) follow the clean rows
// in one block per trim; each row is its source recording's word vector
// with the region's start or end moved, with the source's speaker and
// group. Without the flags the rows are the clean ones.
func TestTrimRows(t *testing.T) {
	recs, err := datasets.FSDD(toyFSDD(t))
	if err != nil {
		t.Fatal(err)
	}
	real := recs[:8]
	wc := frontend.DefaultWordConfig()
	wc.Frames = 16
	plain := trainVoiceFlags{synthTakes: 1, realWeight: 1}
	if err := plain.validate(); err != nil {
		t.Fatal(err)
	}
	if plain.used() {
		t.Fatal("no trims, weight 1, no voices: the training rows should be the split's own")
	}
	clean, err := loadWordVectors(real, wc)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"onset", "offset"} {
		t.Run(side, func(t *testing.T) {
			tv := trainVoiceFlags{synthTakes: 1, realWeight: 1}
			trims := &tv.onsetTrimMs
			if side == "onset" {
				tv.onsetTrims = "40, 120"
			} else {
				tv.offsetTrims, trims = "40, 120", &tv.offsetTrimMs
			}
			if err := tv.validate(); err != nil {
				t.Fatal(err)
			}
			if !tv.used() || !slices.Equal(*trims, []float64{40, 120}) {
				t.Fatalf("trims %v, used %v", *trims, tv.used())
			}
			rows, err := tv.rows(real, nil, wc, map[string][]float32{})
			if err != nil {
				t.Fatal(err)
			}
			n := len(real)
			if rows.x.Rows != 3*n || len(rows.recs) != 3*n || len(rows.groups) != 3*n {
				t.Fatalf("%d rows, %d recordings, %d groups; want %d", rows.x.Rows, len(rows.recs), len(rows.groups), 3*n)
			}
			changed := 0
			for i, r := range real {
				if !slices.Equal(linalg.Row32(rows.x, i), linalg.Row32(clean, i)) {
					t.Fatalf("row %d: the clean row is not the recording's word vector", i)
				}
				a, err := readWAVFile(r.Path)
				if err != nil {
					t.Fatal(err)
				}
				for b, ms := range []float64{40, 120} {
					onset, offset := ms, 0.0
					if side == "offset" {
						onset, offset = 0, ms
					}
					want, err := frontend.WordVectorTrimmed(wc, a.Samples, onset, offset)
					if err != nil {
						t.Fatal(err)
					}
					row := (b+1)*n + i
					if !slices.Equal(linalg.Row32(rows.x, row), want) {
						t.Fatalf("row %d: not the %g ms %s-trimmed vector of %s", row, ms, side, r.Path)
					}
					if !slices.Equal(want, linalg.Row32(clean, i)) {
						changed++
					}
					if rows.recs[row] != r || rows.groups[row] != i {
						t.Fatalf("row %d: recording %+v group %d, want %+v group %d", row, rows.recs[row], rows.groups[row], r, i)
					}
				}
			}
			if changed < n {
				t.Fatalf("only %d of %d trimmed copies differ from their clean row", changed, 2*n)
			}
		})
	}
}

// --onset-trim-labels limits the trimmed copies to recordings of the named
// labels, each still the trimmed vector of its source with the source's
// speaker and group; the clean rows are all there.
func TestOnsetTrimRowsLabels(t *testing.T) {
	recs, err := datasets.FSDD(toyFSDD(t))
	if err != nil {
		t.Fatal(err)
	}
	var real []datasets.Recording // four of each label, interleaved
	for i := 0; len(real) < 8; i++ {
		real = append(real, recs[i], recs[len(recs)-1-i])
	}
	wc := frontend.DefaultWordConfig()
	wc.Frames = 16
	var want []int // indices of the real recordings labelled "1"
	for i, r := range real {
		if r.Label == "1" {
			want = append(want, i)
		}
	}
	if len(want) == 0 || len(want) == len(real) {
		t.Fatalf("toy set: %d of %d recordings labelled 1; want some, not all", len(want), len(real))
	}
	tv := trainVoiceFlags{synthTakes: 1, realWeight: 1, onsetTrims: "120", trimLabelList: "1"}
	if err := tv.validate(); err != nil {
		t.Fatal(err)
	}
	rows, err := tv.rows(real, nil, wc, map[string][]float32{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(real)
	if rows.x.Rows != n+len(want) || len(rows.recs) != rows.x.Rows || len(rows.groups) != rows.x.Rows {
		t.Fatalf("%d rows, %d recordings, %d groups; want %d", rows.x.Rows, len(rows.recs), len(rows.groups), n+len(want))
	}
	clean, err := loadWordVectors(real, wc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range real {
		if !slices.Equal(linalg.Row32(rows.x, i), linalg.Row32(clean, i)) || rows.groups[i] != i {
			t.Fatalf("row %d: not the clean row of recording %d", i, i)
		}
	}
	for k, src := range want {
		row := n + k
		r := real[src]
		a, err := readWAVFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		trimmed, err := frontend.WordVectorOnsetTrimmed(wc, a.Samples, 120)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(linalg.Row32(rows.x, row), trimmed) {
			t.Fatalf("row %d: not the trimmed vector of %s", row, r.Path)
		}
		if rows.recs[row] != r || rows.groups[row] != src {
			t.Fatalf("row %d: recording %+v group %d, want %+v group %d", row, rows.recs[row], rows.groups[row], r, src)
		}
	}
	tv = trainVoiceFlags{synthTakes: 1, realWeight: 1, onsetTrims: "120", trimLabelList: "7"}
	if err := tv.validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.rows(real, nil, wc, map[string][]float32{}); err == nil || !strings.Contains(err.Error(), `"7"`) {
		t.Fatalf("a label no training recording has: error %v, want one naming it", err)
	}
}

// With --onset-trim-ms only the training rows grow: the table's test
// count and the predictions file list each test recording once, and the
// training count is one row per recording and trim more.
func TestOnsetTrimLeavesTestRowsAlone(t *testing.T) {
	fsdd := toyFSDD(t)
	recs, err := datasets.FSDD(fsdd)
	if err != nil {
		t.Fatal(err)
	}
	train, test := datasets.OfficialSplit(recs)
	dir := t.TempDir()
	counts := func(extra ...string) (string, [][]string) {
		pred := filepath.Join(dir, "pred.tsv")
		var out, errb bytes.Buffer
		args := append([]string{"eval", "digits", "--fsdd", fsdd, "--m", "40", "--frames", "16", "--predictions", pred}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errb.String())
		}
		f, err := os.Open(pred)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.Comma = '\t'
		lines, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "official") {
				return strings.Join(strings.Fields(line)[1:3], " "), lines[1:]
			}
		}
		t.Fatalf("no official row in %q", out.String())
		return "", nil
	}
	plainCounts, plainPreds := counts()
	trimCounts, trimPreds := counts("--onset-trim-ms", "50,100")
	want := func(trainRows int) string {
		return strings.Join([]string{strconv.Itoa(trainRows), strconv.Itoa(len(test))}, " ")
	}
	if plainCounts != want(len(train)) || trimCounts != want(3*len(train)) {
		t.Fatalf("train/test counts %q and with two trims %q; want %q and %q", plainCounts, trimCounts, want(len(train)), want(3*len(train)))
	}
	if len(plainPreds) != len(test) || len(trimPreds) != len(test) {
		t.Fatalf("%d and %d predictions, want one per test recording (%d)", len(plainPreds), len(trimPreds), len(test))
	}
	for i := range trimPreds {
		if trimPreds[i][1] != plainPreds[i][1] {
			t.Fatalf("prediction %d is for %s, without trims for %s", i, trimPreds[i][1], plainPreds[i][1])
		}
	}
}

// Whatever --onset-trim-ms or --offset-trim-ms is given, the parser either
// refuses it or returns distinct trims in (0, maxTrimMs] ms.
func FuzzParseOnsetTrims(f *testing.F) {
	for _, s := range []string{"80", "60,120", "", "0", "-5", "40,40", "1e400", "NaN", "Inf", " 50 , 150 ", "500", "500.0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		trims, err := parseTrims("--offset-trim-ms", s)
		if err != nil {
			return
		}
		seen := map[float64]bool{}
		for _, v := range trims {
			if math.IsNaN(v) || v <= 0 || v > maxTrimMs || seen[v] {
				t.Fatalf("%q gave %v", s, trims)
			}
			seen[v] = true
		}
	})
}
