package engine

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/decode"
)

// OneWordScores scores frames as recordings of exactly one word: every word
// gets its own one-word grammar (optional silence, the word's HMM, optional
// silence) instead of the word loop, and the result is, for every word, the
// best-path log probability of ll (the decoder's scaled log-likelihoods,
// LogLikelihoods) under that word's grammar divided by the number of frames.
// Comparing whole-path scores of competing one-word graphs is the classic
// isolated-word HMM decision; it never has to choose how many words there
// are, which is where a word loop errs on isolated words. Per-frame scores
// make recordings of different lengths comparable when they are combined
// with other classifiers; the arg-max is unchanged. A word whose HMM cannot
// fit in the recording scores −Inf.
func (c *Connected) OneWordScores(ll blas32.General) ([]float64, error) {
	if ll.Rows == 0 {
		return nil, fmt.Errorf("rfstream: no frames to score")
	}
	out := make([]float64, len(c.words))
	found := false
	for w := range c.words {
		g, err := decode.Linear(c.words[w:w+1], &c.sil, decode.LinearConfig{SilenceProb: c.Decoder.SilenceProb})
		if err != nil {
			return nil, err
		}
		r, err := decode.Viterbi(g, ll, c.options())
		switch {
		case errors.Is(err, decode.ErrNoPath):
			out[w] = math.Inf(-1)
			continue
		case err != nil:
			return nil, err
		}
		out[w], found = r.LogProb/float64(ll.Rows), true
	}
	if !found {
		return nil, fmt.Errorf("rfstream: %d frames are too few for any word's HMM", ll.Rows)
	}
	return out, nil
}
