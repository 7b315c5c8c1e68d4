package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// TestSpeakerWarpFindsTheShift builds voices whose spectra are one spectrum
// shifted along the frequency axis by known amounts: the chosen warps undo
// the shifts (relative to each other, within one grid step), for training
// voices and for a voice seen only at test.
func TestSpeakerWarpFindsTheShift(t *testing.T) {
	const frames, mels = 8, 40
	g, err := transforms.NewSpectroGroup(transforms.SpectroParams{Frames: frames, Mels: mels, LowHz: 20, HighHz: 4000, Cents: 400, Tempo: 1})
	if err != nil {
		t.Fatal(err)
	}
	base := make([]float32, frames*mels)
	for f := 0; f < frames; f++ {
		for k := 0; k < mels; k++ {
			// Two formant-like bumps on a falling slope.
			x := float64(k)
			base[f*mels+k] = float32(math.Exp(-(x-12)*(x-12)/8) + 0.7*math.Exp(-(x-25)*(x-25)/10) - x/80)
		}
	}
	voice := func(cents float64) []float32 {
		v := make([]float32, len(base))
		g.Apply(v, base, transforms.Warp{Cents: cents, Tempo: 1})
		frontend.UnitWordVector(v)
		return v
	}
	shifts := map[string]float64{"a": 0, "b": 200, "c": -150}
	var train []datasets.Recording
	x := linalg.NewGeneral32(9, frames*mels)
	for i, spk := range []string{"a", "b", "c", "a", "b", "c", "a", "b", "c"} {
		train = append(train, datasets.Recording{Speaker: spk})
		copy(linalg.Row32(x, i), voice(shifts[spk]))
	}
	w, err := newSpeakerWarp(g, mels, 400, 25)
	if err != nil {
		t.Fatal(err)
	}
	w.fit(x, train)
	for spk, s := range shifts {
		// Warp plus shift is the same for every voice: all land on one
		// canonical voice.
		if d := w.cents[spk] + s - (w.cents["a"] + shifts["a"]); math.Abs(d) > 25 {
			t.Errorf("voice %s shifted %+g got warp %+g (voice a: %+g)", spk, s, w.cents[spk], w.cents["a"])
		}
	}
	test := []datasets.Recording{{Speaker: "new"}, {Speaker: "new"}}
	xt := linalg.NewGeneral32(2, frames*mels)
	copy(linalg.Row32(xt, 0), voice(100))
	copy(linalg.Row32(xt, 1), voice(100))
	unseen := w.apply(xt, test)
	if d := unseen["new"] + 100 - (w.cents["a"] + shifts["a"]); math.Abs(d) > 25 {
		t.Errorf("unseen voice shifted +100 got warp %+g (voice a: %+g)", unseen["new"], w.cents["a"])
	}
	if _, err := newSpeakerWarp(g, mels, 0, 25); err == nil {
		t.Error("a zero range: want an error")
	}
}

// TestCombineScores: each row is standardised per recogniser before the
// weighted sum, and a word without a path takes the row's lowest score.
func TestCombineScores(t *testing.T) {
	a := linalg.NewGeneral32(1, 3)
	b := linalg.NewGeneral32(1, 3)
	copy(a.Data, []float32{1, 2, 3})
	copy(b.Data, []float32{10, float32(math.Inf(-1)), 0}) // → 10, 0, 0
	got := combineScores(a, b, 2)
	sa := math.Sqrt(2.0 / 3)             // sd of 1,2,3
	mb, sb := 10.0/3, math.Sqrt(200.0/9) // mean and sd of 10,0,0
	want := []float64{-1/sa + 2*(10-mb)/sb, 0 + 2*(0-mb)/sb, 1/sa + 2*(0-mb)/sb}
	for k, w := range want {
		if math.Abs(float64(got.Data[k])-w) > 1e-5 {
			t.Errorf("combined score %d = %v, want %v", k, got.Data[k], w)
		}
	}
}

// Each recogniser decides by its own scores: the word model by the first,
// the HMM by the second, the combination by their weighted standardised sum.
func TestRecognizerPredict(t *testing.T) {
	words := linalg.NewGeneral32(1, 3)
	hmm := linalg.NewGeneral32(1, 3)
	copy(words.Data, []float32{0, 1, 0.9}) // word model: 1, narrowly over 2
	copy(hmm.Data, []float32{5, 0, 10})    // HMM: 2, then 0
	for _, c := range []struct {
		recognizer string
		weight     float64
		want       int
	}{{"words", 0, 1}, {"hmm", 0, 2}, {"combo", 1, 2}, {"combo", 0.01, 1}} {
		h := hmmFlags{recognizer: c.recognizer, weight: c.weight}
		if got := h.predict(words, hmm); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s w=%g: %v, want [%d]", c.recognizer, c.weight, got, c.want)
		}
	}
}

// TestDigitsHMMRecognizer runs eval digits with the HMM isolated-word
// recogniser on toy chirps: it trains one connected model, caches it, and
// reports the whole-word model, the HMM and their combinations; both
// recognisers tell rising from falling chirps.
func TestDigitsHMMRecognizer(t *testing.T) {
	fsdd := toyFSDD(t)
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	args := []string{"eval", "digits", "--fsdd", fsdd, "--m", "64", "--frames", "16", "--recognizer", "combo", "--hmm-weights", "0.5,2",
		"--hmm-m", "64", "--hmm-passes", "1", "--hmm-states", "3", "--json"}
	for round := 0; round < 2; round++ {
		var out, errb bytes.Buffer
		want := []string{"words", "hmm", "combo w=0.5", "combo w=2"}
		if round == 1 {
			// The second run sums two seeds' maps; the HMM is the same.
			args = append(args, "--seeds", "2", "--ensemble")
			want = append(want, "words ensemble", "ensemble+hmm w=0.5", "ensemble+hmm w=2")
		}
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		trained := strings.Contains(errb.String(), "hmm: training on")
		if trained != (round == 0) {
			t.Errorf("round %d: trained %v (the second run should load the cached model)", round, trained)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var r digitsResult
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			t.Fatal(err)
		}
		for _, k := range want {
			if v, ok := r.Components[k]; !ok || v < 0.8 {
				t.Errorf("component %q: accuracy %v (present %v)", k, v, ok)
			}
		}
		if r.Recognizer != "combo" {
			t.Errorf("recognizer %q", r.Recognizer)
		}
	}
	var errb bytes.Buffer
	if code := run([]string{"eval", "digits", "--fsdd", fsdd, "--recognizer", "nope"}, &bytes.Buffer{}, &errb); code == 0 {
		t.Error("unknown recognizer: want a failure")
	}
}

// TestConfidenceWarpUndoesAShift: with a "model" whose margin is the
// correlation with one canonical voice, a voice shifted by +100 cents gets
// the warp −100, its rows are scored under that warp, and a voice seen in
// training is left alone.
func TestConfidenceWarpUndoesAShift(t *testing.T) {
	const frames, mels = 8, 40
	g, err := transforms.NewSpectroGroup(transforms.SpectroParams{Frames: frames, Mels: mels, LowHz: 20, HighHz: 4000, Cents: 400, Tempo: 1})
	if err != nil {
		t.Fatal(err)
	}
	canon := make([]float32, frames*mels)
	for i := range canon {
		x := float64(i % mels)
		canon[i] = float32(math.Exp(-(x-15)*(x-15)/6) + 0.5*math.Exp(-(x-28)*(x-28)/6))
	}
	frontend.UnitWordVector(canon)
	shifted := make([]float32, len(canon))
	g.Apply(shifted, canon, transforms.Warp{Cents: 100, Tempo: 1})
	frontend.UnitWordVector(shifted)
	raw := linalg.NewGeneral32(3, len(canon))
	copy(linalg.Row32(raw, 0), shifted)
	copy(linalg.Row32(raw, 1), shifted)
	copy(linalg.Row32(raw, 2), shifted)
	test := []datasets.Recording{{Speaker: "new"}, {Speaker: "new"}, {Speaker: "old"}}
	score := func(x blas32.General) blas32.General {
		out := linalg.NewGeneral32(x.Rows, 2)
		for i := 0; i < x.Rows; i++ {
			var dot float32
			for k, v := range linalg.Row32(x, i) {
				dot += v * canon[k]
			}
			out.Data[i*2] = dot
		}
		return out
	}
	prepped := 0
	grid := []float64{-200, -150, -100, -50, 0, 50, 100, 150, 200}
	s, chosen := confidenceWarp(raw, test, map[string]bool{"old": true}, g, grid, func(blas32.General) { prepped++ }, score)
	if chosen["new"] != -100 || len(chosen) != 1 {
		t.Fatalf("chosen warps %v, want new: −100 only", chosen)
	}
	if prepped != 1+len(grid) {
		t.Errorf("prep ran %d times, want once per grid warp and once unwarped", prepped)
	}
	unwarped := score(raw)
	if s.Data[2*2] != unwarped.Data[2*2] {
		t.Errorf("the trained voice was re-scored: %v, unwarped %v", s.Data[4], unwarped.Data[4])
	}
	if !(s.Data[0] > unwarped.Data[0]+0.01) {
		t.Errorf("the new voice's score %v is not above its unwarped %v", s.Data[0], unwarped.Data[0])
	}
	if m := classifier.Margin([]float32{1, 5, 3}); m != 2 {
		t.Errorf("margin %v, want 2", m)
	}
}
