package cli

import (
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/train"
)

// toyFSDD writes a folder named like FSDD: digit 0 is a rising glide,
// digit 1 a falling one, two speakers, takes 0-9.
func toyFSDD(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := toymodels.WriteFSDD(dir, []string{"ann", "bob"}, 10); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readWAV(path string) (*frontend.Audio, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return frontend.ReadWAV(f)
}

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
	plain := train.VoiceOptions{SynthTakes: 1, RealWeight: 1}
	if err := (voiceLists{}).check(&plain); err != nil {
		t.Fatal(err)
	}
	if plain.Used() {
		t.Fatal("no trims, weight 1, no voices: the training rows should be the split's own")
	}
	clean, err := train.WordVectors(real, wc, train.Condition{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"onset", "offset"} {
		t.Run(side, func(t *testing.T) {
			tv := train.VoiceOptions{SynthTakes: 1, RealWeight: 1}
			var l voiceLists
			trims := &tv.OnsetTrimMs
			if side == "onset" {
				l.onsetTrims = "40, 120"
			} else {
				l.offsetTrims, trims = "40, 120", &tv.OffsetTrimMs
			}
			if err := l.check(&tv); err != nil {
				t.Fatal(err)
			}
			if !tv.Used() || !slices.Equal(*trims, []float64{40, 120}) {
				t.Fatalf("trims %v, used %v", *trims, tv.Used())
			}
			rows, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			n := len(real)
			if rows.X.Rows != 3*n || len(rows.Recs) != 3*n || len(rows.Groups) != 3*n {
				t.Fatalf("%d rows, %d recordings, %d groups; want %d", rows.X.Rows, len(rows.Recs), len(rows.Groups), 3*n)
			}
			changed := 0
			for i, r := range real {
				if !slices.Equal(linalg.Row32(rows.X, i), linalg.Row32(clean, i)) {
					t.Fatalf("row %d: the clean row is not the recording's word vector", i)
				}
				a, err := readWAV(r.Path)
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
					if !slices.Equal(linalg.Row32(rows.X, row), want) {
						t.Fatalf("row %d: not the %g ms %s-trimmed vector of %s", row, ms, side, r.Path)
					}
					if !slices.Equal(want, linalg.Row32(clean, i)) {
						changed++
					}
					if rows.Recs[row] != r || rows.Groups[row] != i {
						t.Fatalf("row %d: recording %+v group %d, want %+v group %d", row, rows.Recs[row], rows.Groups[row], r, i)
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
	tv := train.VoiceOptions{SynthTakes: 1, RealWeight: 1}
	if err := (voiceLists{onsetTrims: "120", trimLabels: "1"}).check(&tv); err != nil {
		t.Fatal(err)
	}
	rows, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	n := len(real)
	if rows.X.Rows != n+len(want) || len(rows.Recs) != rows.X.Rows || len(rows.Groups) != rows.X.Rows {
		t.Fatalf("%d rows, %d recordings, %d groups; want %d", rows.X.Rows, len(rows.Recs), len(rows.Groups), n+len(want))
	}
	clean, err := train.WordVectors(real, wc, train.Condition{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for i := range real {
		if !slices.Equal(linalg.Row32(rows.X, i), linalg.Row32(clean, i)) || rows.Groups[i] != i {
			t.Fatalf("row %d: not the clean row of recording %d", i, i)
		}
	}
	for k, src := range want {
		row := n + k
		r := real[src]
		a, err := readWAV(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		trimmed, err := frontend.WordVectorOnsetTrimmed(wc, a.Samples, 120)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(linalg.Row32(rows.X, row), trimmed) {
			t.Fatalf("row %d: not the trimmed vector of %s", row, r.Path)
		}
		if rows.Recs[row] != r || rows.Groups[row] != src {
			t.Fatalf("row %d: recording %+v group %d, want %+v group %d", row, rows.Recs[row], rows.Groups[row], r, src)
		}
	}
	tv = train.VoiceOptions{SynthTakes: 1, RealWeight: 1}
	if err := (voiceLists{onsetTrims: "120", trimLabels: "7"}).check(&tv); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard); err == nil || !strings.Contains(err.Error(), `"7"`) {
		t.Fatalf("a label no training recording has: error %v, want one naming it", err)
	}
}

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
	tv := train.VoiceOptions{SynthTakes: 1, RealWeight: 1, PadMs: 150}
	if err := (voiceLists{}).check(&tv); err != nil {
		t.Fatal(err)
	}
	if !tv.Used() {
		t.Fatal("--pad-copies-ms alone should change the training rows")
	}
	rows, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	n := len(real)
	if rows.X.Rows != 2*n {
		t.Fatalf("%d rows, want %d", rows.X.Rows, 2*n)
	}
	clean, err := train.WordVectors(real, wc, train.Condition{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range real {
		row := linalg.Row32(rows.X, n+i)
		if !slices.Equal(linalg.Row32(rows.X, i), linalg.Row32(clean, i)) {
			t.Fatalf("row %d: the clean row is not the recording's word vector", i)
		}
		if slices.Equal(row, linalg.Row32(clean, i)) {
			t.Fatalf("row %d: the padded copy of %s equals the clean row", n+i, r.Path)
		}
		if !slices.Equal(row, linalg.Row32(again.X, n+i)) {
			t.Fatalf("row %d: the padded copy differs between two runs", n+i)
		}
		if rows.Recs[n+i] != r || rows.Groups[n+i] != i {
			t.Fatalf("row %d: recording %+v group %d, want %+v group %d", n+i, rows.Recs[n+i], rows.Groups[n+i], r, i)
		}
		// The copy is the vector of the padded recording: its length is
		// the recording's plus 2 × 150 ms, its middle the recording.
		a, err := readWAV(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		padded := train.PaddedCopy(r.Path, a, 150)
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
		if err := (voiceLists{}).check(&train.VoiceOptions{SynthTakes: 1, RealWeight: 1, PadMs: bad}); err == nil {
			t.Fatalf("--pad-copies-ms %g accepted", bad)
		}
	}
}

// Repeats and speed copies follow the real rows in blocks, carry their
// source recording's group, and speed copies are speakers of their own.
func TestTrainVoiceRows(t *testing.T) {
	recs, err := datasets.FSDD(toyFSDD(t))
	if err != nil {
		t.Fatal(err)
	}
	real := recs[:8]
	tv := train.VoiceOptions{SynthTakes: 1, RealWeight: 2}
	if err := (voiceLists{speeds: "0.9"}).check(&tv); err != nil {
		t.Fatal(err)
	}
	wc := frontend.DefaultWordConfig()
	wc.Frames = 16
	rows, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rows.X.Rows != 4*len(real) || len(rows.Recs) != rows.X.Rows || len(rows.Groups) != rows.X.Rows {
		t.Fatalf("%d rows, %d recordings, %d groups; want %d", rows.X.Rows, len(rows.Recs), len(rows.Groups), 4*len(real))
	}
	for i := range real {
		// Blocks: clean, speed 0.9, clean again, speed 0.9 again.
		if !slices.Equal(linalg.Row32(rows.X, i), linalg.Row32(rows.X, 2*len(real)+i)) {
			t.Fatalf("row %d: the repeat differs from the original", i)
		}
		if slices.Equal(linalg.Row32(rows.X, i), linalg.Row32(rows.X, len(real)+i)) {
			t.Fatalf("row %d: the speed copy equals the original", i)
		}
		for b := 0; b < 4; b++ {
			if rows.Groups[b*len(real)+i] != i {
				t.Fatalf("block %d row %d: group %d", b, i, rows.Groups[b*len(real)+i])
			}
		}
		if sp := rows.Recs[len(real)+i].Speaker; sp != real[i].Speaker+"@0.9" {
			t.Fatalf("speed copy speaker %q", sp)
		}
	}
	held, err := train.GroupHoldOut(rows.Groups, 2*rows.X.Rows, 0.25, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := map[int]bool{}
	for _, r := range held {
		in[rows.Groups[r%len(rows.Groups)]] = true
	}
	if len(in) != 2 || len(held) != 2*8 {
		t.Fatalf("held out groups %v in %d rows, want 2 groups × 8 copies", in, len(held))
	}
	for r := 0; r < 2*rows.X.Rows; r++ {
		if in[rows.Groups[r%len(rows.Groups)]] != slices.Contains(held, r) {
			t.Fatalf("row %d of a held-out group is kept (or the reverse)", r)
		}
	}
	if _, err := train.GroupHoldOut(rows.Groups, rows.X.Rows+1, 0.1, 1); err == nil {
		t.Error("rows that are not whole copies: no error")
	}
	if _, err := train.GroupHoldOut([]int{0, 1}, 2, 0.1, 1); err == nil {
		t.Error("holding out none of two recordings: no error")
	}
}

func TestParseSelfTrain(t *testing.T) {
	got, err := ParseSelfTrain(" 0.25, 1")
	if err != nil || !slices.Equal(got, []float64{0.25, 1}) {
		t.Fatalf("%v, %v", got, err)
	}
	if got, err := ParseSelfTrain(""); err != nil || got != nil {
		t.Fatalf("empty: %v, %v", got, err)
	}
	twenty := strings.TrimSuffix(strings.Repeat("0.05,", 20), ",")
	if got, err := ParseSelfTrain(twenty); err != nil || len(got) != 20 {
		t.Fatalf("twenty rounds: %v, %v", got, err)
	}
	tooMany := strings.TrimSuffix(strings.Repeat("1,", maxSelfTrainRounds+1), ",")
	for _, bad := range []string{"0", "1.5", "-0.5", "x", "0.5,,1", "NaN", tooMany} {
		if _, err := ParseSelfTrain(bad); err == nil {
			t.Errorf("%q: no error", bad)
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

// --wave-augment adds a block of changed copies after the clean rows, each
// in its source's group; --engine-voices refuses an engine it does not know.
func TestWaveAugmentRowsAndEngineNames(t *testing.T) {
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox is not installed")
	}
	recs, err := datasets.FSDD(toyFSDD(t))
	if err != nil {
		t.Fatal(err)
	}
	real := recs[:6]
	tv := train.DefaultVoiceOptions()
	tv.WaveAugment = 1
	if err := (voiceLists{}).check(&tv); err != nil {
		t.Fatal(err)
	}
	wc := frontend.DefaultWordConfig()
	wc.Frames = 16
	rows, err := tv.Rows(real, nil, wc, train.VectorCache{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rows.X.Rows != 2*len(real) {
		t.Fatalf("%d rows, want %d", rows.X.Rows, 2*len(real))
	}
	for i := range real {
		if rows.Groups[len(real)+i] != i || rows.Recs[len(real)+i].Label != real[i].Label {
			t.Fatalf("copy %d: group %d label %s", i, rows.Groups[len(real)+i], rows.Recs[len(real)+i].Label)
		}
		if slices.Equal(linalg.Row32(rows.X, i), linalg.Row32(rows.X, len(real)+i)) {
			t.Fatalf("row %d: the augmented copy equals the original", i)
		}
	}
	tv = train.DefaultVoiceOptions()
	if err := (voiceLists{engines: "flite,mbrola"}).check(&tv); err == nil || !strings.Contains(err.Error(), "mbrola") {
		t.Errorf("--engine-voices flite,mbrola: %v", err)
	}
	if err := (voiceLists{engines: " flite , festival"}).check(&tv); err != nil || !slices.Equal(tv.Engines.Engines, []string{"flite", "festival"}) {
		t.Errorf("--engine-voices ' flite , festival': %v, %v", err, tv.Engines.Engines)
	}
}
