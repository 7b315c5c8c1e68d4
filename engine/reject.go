package engine

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/internal/linalg"
)

// WordEvidence is how well a decoded word's frames fit the word the
// decoder chose, measured against an unconstrained "filler" that may be in
// any state at every frame (the best class of each frame, an online
// garbage model). A word that was spoken follows its own states through
// them in order and stays close to the filler; speech that is no word of
// the vocabulary is forced through one word's chain of states and falls
// behind it.
type WordEvidence struct {
	Frames int
	// Gap is the mean over the word's frames of (the best class's scaled
	// log-likelihood − that of the state the decoder's path is in): ≥ 0,
	// 0 when the path is in the best class throughout.
	Gap float64
	// WordGap is Gap with the filler limited to word states (no silence).
	WordGap float64
	// PostGap is Gap with log posteriors (no prior divided out).
	PostGap float64
	// Conf is the decoder's confidence (the mean forward posterior of the
	// word's unit).
	Conf float64
}

// Evidence measures each decoded word of r (decoded from ll, with r.States
// set: batch decoding) against the filler.
func (c *Connected) Evidence(ll blas32.General, r *decode.Result) ([]WordEvidence, error) {
	if len(r.States) != ll.Rows {
		return nil, fmt.Errorf("rfstream: evidence needs the state path of every frame (%d states, %d frames)", len(r.States), ll.Rows)
	}
	wordClasses := len(c.Model.Labels) * c.Input.StatesPerWord
	out := make([]WordEvidence, len(r.Words))
	for i, w := range r.Words {
		e := WordEvidence{Frames: w.End - w.Start, Conf: w.Confidence}
		for t := w.Start; t < w.End; t++ {
			row := linalg.Row32(ll, t)
			k := c.graph.StateClass(r.States[t])
			best, bestWord, bestPost := math.Inf(-1), math.Inf(-1), math.Inf(-1)
			for j, v := range row {
				best = max(best, float64(v))
				bestPost = max(bestPost, float64(v+c.logPrior[j]))
				if j < wordClasses {
					bestWord = max(bestWord, float64(v))
				}
			}
			e.Gap += best - float64(row[k])
			e.WordGap += bestWord - float64(row[k])
			e.PostGap += bestPost - float64(row[k]+c.logPrior[k])
		}
		if e.Frames > 0 {
			n := float64(e.Frames)
			e.Gap, e.WordGap, e.PostGap = e.Gap/n, e.WordGap/n, e.PostGap/n
		}
		out[i] = e
	}
	return out, nil
}

// FillerLabel is the label of a connected model's filler unit: states
// trained on speech that is none of the model's words (for the digit model,
// English words that are not digits). Where the decoder's best path goes
// through it, the recogniser rejects what was said rather than name a
// word of its vocabulary.
const FillerLabel = "<filler>"

// RejectedWord is the Word of a rejected stretch of speech in results
// (Word.Rejected is set): a consumer that joins words prints no digit, and
// JSON needs no escape for it (as it would for "<unk>").
const RejectedWord = "?"

// HasFiller says whether the model rejects speech outside its vocabulary
// (it has a filler unit).
func (c *Connected) HasFiller() bool { return c.filler >= 0 }

// biasFiller adds bias to the filler unit's states' log-likelihoods in ll.
func (c *Connected) biasFiller(ll blas32.General, bias float64) blas32.General {
	if c.filler < 0 || bias == 0 {
		return ll
	}
	k := c.Input.StatesPerWord
	for t := 0; t < ll.Rows; t++ {
		row := linalg.Row32(ll, t)
		for j := c.filler * k; j < (c.filler+1)*k; j++ {
			row[j] += float32(bias)
		}
	}
	return ll
}

// wordText is the words' text: the accepted words, space separated.
func wordText(ws []Word) string {
	var parts []string
	for _, w := range ws {
		if !w.Rejected {
			parts = append(parts, w.Word)
		}
	}
	return strings.Join(parts, " ")
}
