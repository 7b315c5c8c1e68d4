package engine

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/frontend"
)

// IsolatedWord is a connected-word model used as an isolated-word
// recogniser: every recording holds exactly one word, so instead of the
// word loop each word gets its own one-word grammar (optional silence,
// the word's HMM, optional silence) and the recording is scored against
// each of them. Comparing whole-path scores of competing one-word graphs
// is the classic isolated-word HMM decision; it never has to choose how
// many words there are, which is where a word loop errs on isolated words.
type IsolatedWord struct {
	c      *Connected
	graphs []*decode.Graph
}

// NewIsolatedWord prepares the one-word grammars of a connected model.
func NewIsolatedWord(m *Model) (*IsolatedWord, error) {
	c, err := NewConnected(m)
	if err != nil {
		return nil, err
	}
	iw := &IsolatedWord{c: c, graphs: make([]*decode.Graph, len(c.words))}
	for w := range c.words {
		if iw.graphs[w], err = decode.Linear(c.words[w:w+1], &c.sil, decode.LinearConfig{SilenceProb: c.Decoder.SilenceProb}); err != nil {
			return nil, err
		}
	}
	return iw, nil
}

// Labels are the words in score order.
func (iw *IsolatedWord) Labels() []string { return iw.c.Model.Labels }

// Scores returns, for every word, the best-path log probability of the
// recording under that word's grammar divided by the number of frames
// (per-frame scores make recordings of different lengths comparable when
// they are combined with other classifiers; the arg-max is unchanged).
// A word whose HMM cannot fit in the recording scores −Inf.
func (iw *IsolatedWord) Scores(a *frontend.Audio) ([]float64, error) {
	x, err := iw.c.Frames(a)
	if err != nil {
		return nil, err
	}
	return iw.FrameScores(iw.c.LogLikelihoods(x))
}

// FrameScores is Scores on the decoder's scaled log-likelihoods.
func (iw *IsolatedWord) FrameScores(ll blas32.General) ([]float64, error) {
	if ll.Rows == 0 {
		return nil, fmt.Errorf("rfstream: no frames to score")
	}
	out := make([]float64, len(iw.graphs))
	found := false
	for w, g := range iw.graphs {
		r, err := decode.Viterbi(g, ll, iw.c.options())
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

// Recognize gives the best-scoring word and its posterior among the
// words (a softmax of the whole-path log probabilities).
func (iw *IsolatedWord) Recognize(a *frontend.Audio) (word string, conf float64, err error) {
	x, err := iw.c.Frames(a)
	if err != nil {
		return "", 0, err
	}
	s, err := iw.FrameScores(iw.c.LogLikelihoods(x))
	if err != nil {
		return "", 0, err
	}
	best := 0
	for i, v := range s {
		if v > s[best] {
			best = i
		}
	}
	var z float64
	for _, v := range s {
		z += math.Exp((v - s[best]) * float64(x.Rows))
	}
	return iw.Labels()[best], 1 / z, nil
}
