package decode

import (
	"math/rand/v2"
	"testing"
)

// How long after a word ends does it become stable? On noisy synthetic digit
// strings the traceback should converge within a fraction of a second,
// otherwise the stable partial would be of little use to a listener.
func TestStableLag(t *testing.T) {
	g, words, sil := digitLoop(t, 5)
	for _, beam := range []float64{0, 10} {
		var lagSum, count, worst int
		for seed := uint64(0); seed < 20; seed++ {
			rng := rand.New(rand.NewPCG(seed, 12))
			m, _ := digitString(rng, g, words, sil, 6, 1)
			d, _ := NewDecoder(g, Options{Beam: beam})
			seen := 0
			for i := 0; i < m.Rows; i++ {
				if err := d.Push(rows(m, i, i+1)); err != nil {
					t.Fatal(err)
				}
				p := d.Partial()
				for _, w := range p.Stable[seen:] {
					lag := i + 1 - w.End
					lagSum += lag
					worst = max(worst, lag)
					count++
				}
				seen = len(p.Stable)
			}
		}
		if count == 0 {
			t.Fatal("no word became stable mid-stream")
		}
		mean := float64(lagSum) / float64(count)
		t.Logf("beam %v: %d words stable mid-stream, lag after word end: mean %.1f frames, worst %d", beam, count, mean, worst)
		if mean > 40 {
			t.Fatalf("mean stable lag %.1f frames", mean)
		}
	}
}
