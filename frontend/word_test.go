package frontend

import (
	"math"
	"testing"
)

func TestSpeechRegionFindsTheBurst(t *testing.T) {
	// 1 s of faint noise with a loud tone from 0.4 s to 0.7 s.
	x := make([]float32, 8000)
	var lcg uint32 = 7
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		x[i] = 0.001 * (float32(lcg>>8)/float32(1<<24) - 0.5)
		if i >= 3200 && i < 5600 {
			x[i] += float32(0.5 * math.Sin(2*math.Pi*700*float64(i)/8000))
		}
	}
	_, e := LogMel(DefaultAudioConfig(), x)
	a, b := SpeechRegion(e, 35)
	// Frame i covers samples [80i, 80i+200): the tone touches frames 38..69.
	if a < 37 || a > 41 || b < 68 || b > 71 {
		t.Fatalf("speech region frames [%d,%d), want about [38,70)", a, b)
	}
}

func TestWordVectorIsUnitAndDurationFree(t *testing.T) {
	wc := DefaultWordConfig()
	tone := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(0.3 * math.Sin(2*math.Pi*(400+300*float64(i)/float64(n))*float64(i)/8000))
		}
		return x
	}
	a, err := WordVector(wc, tone(4000))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := WordVector(wc, tone(8000)) // the same glide, twice as slow
	var na, dot float64
	for i := range a {
		na += float64(a[i]) * float64(a[i])
		dot += float64(a[i]) * float64(b[i])
	}
	if math.Abs(na-1) > 1e-5 || len(a) != wc.Dim() {
		t.Fatalf("word vector of length %d has squared norm %v", len(a), na)
	}
	if dot < 0.9 {
		t.Fatalf("a glide and its half-speed copy have cosine %.3f, want > 0.9", dot)
	}
	if _, err := WordVector(wc, nil); err == nil {
		t.Fatal("empty recording accepted")
	}
}
