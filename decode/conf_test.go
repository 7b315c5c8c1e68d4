package decode

import (
	"math/rand/v2"
	"testing"
)

// On noisy frames, correctly recognised words get a higher confidence on
// average than wrong ones (substitutions and insertions): the confidence
// carries information a caller can threshold on.
func TestConfidenceSeparatesErrors(t *testing.T) {
	g, words, sil := digitLoop(t, 5)
	var right, wrong []float64
	var counts ErrorCounts
	for seed := uint64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		m, ref := digitString(rng, g, words, sil, 5, 2.2)
		r, err := Viterbi(g, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := counts.Add(ref, Labels(r.Words))
		for _, op := range e.Ops {
			switch op.Kind {
			case Match:
				right = append(right, r.Words[op.Hyp].Confidence)
			case Substitution, Insertion:
				wrong = append(wrong, r.Words[op.Hyp].Confidence)
			}
		}
	}
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	t.Logf("WER %.3f; mean confidence %.3f on %d right words, %.3f on %d wrong ones", counts.ErrorRate(), mean(right), len(right), mean(wrong), len(wrong))
	if len(wrong) < 10 || len(right) < 10 {
		t.Fatalf("noise level gives %d right and %d wrong words; need both", len(right), len(wrong))
	}
	if mean(right) <= mean(wrong)+0.1 {
		t.Fatalf("confidence does not separate right (%.3f) from wrong (%.3f) words", mean(right), mean(wrong))
	}
}
