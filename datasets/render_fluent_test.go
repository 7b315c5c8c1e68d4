package datasets

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

// writePaddedTone writes a 440 Hz tone of dur seconds between pad seconds
// of digital silence on each side.
func writePaddedTone(t *testing.T, path string, pad, dur float64) {
	t.Helper()
	n, p := int(dur*8000), int(pad*8000)
	a := &frontend.Audio{Rate: 8000, Samples: make([]float32, n+2*p)}
	for i := range n {
		a.Samples[p+i] = float32(0.2 * math.Sin(2*math.Pi*440*float64(i)/8000))
	}
	if err := writeWAV(path, a); err != nil {
		t.Fatal(err)
	}
}

// TestRenderFluentString: the recordings' own silence is cut, the words
// run together (no overlap: their lengths add up; with overlap: shorter,
// by no more than the bound), and the spans tile the speech.
func TestRenderFluentString(t *testing.T) {
	dir := t.TempDir()
	writePaddedTone(t, filepath.Join(dir, "a.wav"), 0.3, 0.3)
	writePaddedTone(t, filepath.Join(dir, "b.wav"), 0.2, 0.5)
	p := StringPlan{Parts: []Recording{{Path: filepath.Join(dir, "a.wav"), Label: "1"}, {Path: filepath.Join(dir, "b.wav"), Label: "2"}},
		Gaps: []float64{0.25, 0.4, 0.5}}
	a, spans, err := RenderFluentString(p, 8000, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Each word keeps at most a 10 ms frame of silence on either side.
	if got := spans[1].End - spans[0].Start; got < 0.8 || got > 0.84 {
		t.Errorf("two words of 0.3 and 0.5 s said fluently span %.3f s", got)
	}
	if spans[0].End != spans[1].Start || math.Abs(spans[0].Start-0.25) > 1e-9 {
		t.Errorf("spans %+v: want the first at 0.25 s and the second right after it", spans)
	}
	if got := float64(len(a.Samples)) / 8000; math.Abs(got-(spans[1].End+0.5)) > 1e-3 {
		t.Errorf("audio of %.3f s, want the speech and 0.5 s after it", got)
	}
	_, over, err := RenderFluentString(p, 8000, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := (spans[1].End - spans[0].Start) - (over[1].End - over[0].Start); d < 0 || d > 0.1 {
		t.Errorf("an overlap of up to 0.1 s shortened the string by %.3f s", d)
	}
	if _, _, err := RenderFluentString(p, 8000, 2, 1); err == nil {
		t.Error("an overlap of 2 s was accepted")
	}
}
