package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
)

// OneWordScores recognises single synthetic words with one-word grammars
// (the best score is the word said), and each word's score is a forced
// alignment of the recording to that word (the same search by another
// route).
func TestOneWordScoresOfTones(t *testing.T) {
	m := toneModel(t, "rls")
	c, err := NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 8; i++ {
		w := []string{"lo", "hi"}[i%2]
		s := append(datasets.Silence(int(8000*(0.05+0.2*rng.Float64())), fixtures.ToneFloor, rng), fixtures.ToneWord(w, 0.2+0.2*rng.Float64(), 0.1, 8000)...)
		s = append(s, datasets.Silence(int(8000*0.1*rng.Float64()), fixtures.ToneFloor, rng)...)
		a := &frontend.Audio{Samples: s, Rate: 8000}
		x, err := c.Frames(a)
		if err != nil {
			t.Fatal(err)
		}
		ll := c.LogLikelihoods(x)
		scores, err := c.OneWordScores(ll)
		if err != nil {
			t.Fatal(err)
		}
		if best := slices.Index(scores, slices.Max(scores)); m.Labels[best] != w {
			t.Errorf("recording %d (%s): best %q, scores %v", i, w, m.Labels[best], scores)
		}
		for k := range c.words {
			al, err := decode.Align(c.words[k:k+1], &c.sil, ll, decode.LinearConfig{SilenceProb: c.Decoder.SilenceProb}, c.options())
			if err != nil {
				t.Fatal(err)
			}
			if want := al.LogProb / float64(ll.Rows); math.Abs(scores[k]-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("recording %d, word %s: score %v, forced alignment %v", i, m.Labels[k], scores[k], want)
			}
		}
	}
	if _, err := c.OneWordScores(ll0()); err == nil {
		t.Error("no frames: want an error")
	}
}

func ll0() blas32.General { return blas32.General{} }
