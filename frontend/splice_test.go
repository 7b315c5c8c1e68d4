package frontend

import (
	"math"
	"testing"
)

// Splice over a whole utterance's unspliced frames gives exactly the
// Extractor's spliced frames, edges included: training splices in batch
// what the streaming frontend splices frame by frame.
func TestSpliceMatchesExtractor(t *testing.T) {
	cfg := DefaultAudioConfig()
	cfg.Ceps, cfg.Deltas, cfg.CMVN, cfg.Splice = 13, 2, "utterance", 5
	s := make([]float32, 4000)
	for i := range s {
		tt := float64(i) / 8000
		s[i] = float32(0.2*math.Sin(2*math.Pi*(300+400*tt)*tt) + 0.01*math.Sin(float64(i*i%997)))
	}
	want, err := ExtractFrames(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	base := cfg
	base.Splice = 0
	frames, err := ExtractFrames(base, s)
	if err != nil {
		t.Fatal(err)
	}
	if frames.Rows != want.Rows {
		t.Fatalf("%d unspliced frames, %d spliced", frames.Rows, want.Rows)
	}
	got := want
	got.Data = make([]float32, len(want.Data))
	Splice(got, frames, 0, frames.Rows, cfg.Splice)
	for i := range want.Data[:want.Rows*want.Cols] {
		if got.Data[i] != want.Data[i] {
			t.Fatalf("value %d: Splice %v, Extractor %v", i, got.Data[i], want.Data[i])
		}
	}
	// A window in the middle is the same rows of the whole.
	part := want
	part.Rows = 7
	part.Data = make([]float32, 7*want.Stride)
	Splice(part, frames, 10, 17, cfg.Splice)
	for i := range part.Data[:7*want.Cols] {
		if part.Data[i] != want.Data[10*want.Stride+i] {
			t.Fatalf("window value %d differs from the whole", i)
		}
	}
}
