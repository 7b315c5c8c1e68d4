package decode

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestEstimateBigramByHand(t *testing.T) {
	b, err := EstimateBigram([][]int{{0, 1}, {0, 0, 1}}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Start: 2 × unit 0 → (2+1)/(2+2), (0+1)/4. After 0: 0 once, 1 twice →
	// 2/5, 3/5. After 1: nothing seen → 1/2, 1/2.
	want := [][]float64{{3. / 4, 1. / 4}, {2. / 5, 3. / 5}, {1. / 2, 1. / 2}}
	got := append([][]float64{b.Start}, b.Next...)
	for i := range want {
		for j := range want[i] {
			if math.Abs(math.Exp(got[i][j])-want[i][j]) > 1e-12 {
				t.Fatalf("row %d: %v, want %v", i, got[i], want[i])
			}
		}
	}
	if _, err := EstimateBigram([][]int{{0, 2}}, 2, 1); err == nil {
		t.Fatal("unit outside the set accepted")
	}
	if _, err := EstimateBigram(nil, 2, 0); err == nil {
		t.Fatal("zero smoothing accepted")
	}
}

// With a uniform bigram the loop is WordLoop: same best score and units.
func TestUniformBigramLoopIsWordLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	words, err := Chains([]string{"a", "b", "c"}, 2, 0.6, 0)
	if err != nil {
		t.Fatal(err)
	}
	sil, err := SilenceUnit("sil", 1, 0.6, 6)
	if err != nil {
		t.Fatal(err)
	}
	uni := math.Log(1.0 / 3)
	lm := Bigram{Start: []float64{uni, uni, uni}, Next: [][]float64{{uni, uni, uni}, {uni, uni, uni}, {uni, uni, uni}}}
	for _, cfg := range []LoopConfig{{}, {SilenceProb: 0.3, WordPenalty: -2, LMScale: 2}} {
		wl, err := WordLoop(words, &sil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		bl, err := BigramLoop(words, &sil, lm, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 20; trial++ {
			m := randScores(rng, 5+rng.IntN(30), 7)
			a, err1 := Viterbi(wl, m, Options{})
			b, err2 := Viterbi(bl, m, Options{})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if math.Abs(a.LogProb-b.LogProb) > 1e-9 || !slices.Equal(Labels(a.Words), Labels(b.Words)) {
				t.Fatalf("word loop %v %v, bigram loop %v %v", a.LogProb, Labels(a.Words), b.LogProb, Labels(b.Words))
			}
		}
		// Tiny cases against brute force.
		for trial := 0; trial < 5; trial++ {
			m := randScores(rng, 4, 7)
			r, err := Viterbi(bl, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if bb := bruteBest(bl, m); math.Abs(bb-r.LogProb) > 1e-9 {
				t.Fatalf("Viterbi %v, brute force %v", r.LogProb, bb)
			}
		}
	}
}

// Frames that cannot tell two units apart: the bigram decides.
func TestBigramDecidesAmbiguousFrames(t *testing.T) {
	words, _ := Chains([]string{"a", "b", "c"}, 1, 0.5, 0)
	// Frame 0 clearly "a"; frames 1–2 equally "b" or "c".
	m := randScores(rand.New(rand.NewPCG(1, 1)), 3, 3)
	for i := range m.Data {
		m.Data[i] = -10
	}
	m.Data[0] = 0
	m.Data[3+1], m.Data[3+2], m.Data[6+1], m.Data[6+2] = -1, -1, -1, -1
	for _, after := range []int{1, 2} {
		next := [][]float64{{-5, -5, -5}, {-1, -1, -1}, {-1, -1, -1}}
		next[0][after] = -0.01
		lm := Bigram{Start: []float64{-1, -1, -1}, Next: next}
		g, err := BigramLoop(words, nil, lm, LoopConfig{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Viterbi(g, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := Labels(r.Words); !slices.Equal(got, []string{"a", words[after].Name}) {
			t.Fatalf("bigram favouring %s after a: decoded %v", words[after].Name, got)
		}
	}
	if _, err := BigramLoop(words, nil, Bigram{Start: []float64{0}, Next: nil}, LoopConfig{}); err == nil {
		t.Fatal("bigram of the wrong size accepted")
	}
}
