package decode

import (
	"fmt"
	"math"
)

// Bigram is a unit bigram model in log probabilities: Next[i][j] is
// log P(unit j | unit i) and Start[j] is log P(unit j first, or first
// after a silence). Rows need not be normalised; they are weights.
type Bigram struct {
	Start []float64
	Next  [][]float64
}

// EstimateBigram counts unit bigrams in training transcripts (sequences of
// unit indices in [0, n)) with add-k smoothing, so every transition keeps
// a finite weight. The start row counts first units.
func EstimateBigram(seqs [][]int, n int, k float64) (Bigram, error) {
	if n < 1 || !(k > 0) || math.IsInf(k, 1) {
		return Bigram{}, fmt.Errorf("decode: bigram over %d units with smoothing %v", n, k)
	}
	start := make([]float64, n)
	next := make([][]float64, n)
	for i := range next {
		next[i] = make([]float64, n)
	}
	for si, s := range seqs {
		for t, u := range s {
			if u < 0 || u >= n {
				return Bigram{}, fmt.Errorf("decode: sequence %d has unit %d outside [0, %d)", si, u, n)
			}
			if t == 0 {
				start[u]++
			} else {
				next[s[t-1]][u]++
			}
		}
	}
	norm := func(row []float64) {
		total := 0.0
		for _, c := range row {
			total += c + k
		}
		for j, c := range row {
			row[j] = math.Log((c + k) / total)
		}
	}
	norm(start)
	for _, row := range next {
		norm(row)
	}
	return Bigram{Start: start, Next: next}, nil
}

// BigramLoop builds a loop like WordLoop whose choice of the next unit
// follows a bigram: after unit i, silence comes with probability
// SilenceProb and unit j with (1 − SilenceProb)·P(j|i); at the start and
// after a silence, unit j comes with (1 − SilenceProb)·P(j first) (after a
// silence another silence is not allowed, exactly as in WordLoop, so with
// a uniform bigram the two graphs score every path the same). LMScale scales these choices and
// WordPenalty is added at each unit start, as in WordLoop. Units of the
// graph are the words followed by silence (when sil is not nil).
func BigramLoop(words []Unit, sil *Unit, lm Bigram, cfg LoopConfig) (*Graph, error) {
	n := len(words)
	if n == 0 {
		return nil, fmt.Errorf("decode: bigram loop without words")
	}
	if len(lm.Start) != n || len(lm.Next) != n {
		return nil, fmt.Errorf("decode: bigram over %d start and %d history rows for %d words", len(lm.Start), len(lm.Next), n)
	}
	for i, row := range append([][]float64{lm.Start}, lm.Next...) {
		if len(row) != n {
			return nil, fmt.Errorf("decode: bigram row %d has %d entries for %d words", i, len(row), n)
		}
		for _, v := range row {
			if badWeight(v) {
				return nil, fmt.Errorf("decode: bigram row %d has log probability %v", i, v)
			}
		}
	}
	units, ps, scale, err := loopUnits(words, sil, cfg)
	if err != nil {
		return nil, err
	}
	b := NewBuilder(units)
	spans := make([]Span, len(units))
	for u := range units {
		spans[u] = b.AddUnit(u)
	}
	word := func(logP float64) float64 { return scale*logP + cfg.WordPenalty }
	for v := 0; v < n; v++ {
		b.SetStart(spans[v].First, word(math.Log(1-ps)+lm.Start[v]))
	}
	if sil != nil {
		s := spans[n]
		b.SetStart(s.First, scale*math.Log(ps))
		b.SetFinal(s.Last, s.Exit)
		for v := 0; v < n; v++ {
			b.AddArc(s.Last, spans[v].First, s.Exit+word(math.Log(1-ps)+lm.Start[v]), true)
		}
	}
	for u := 0; u < n; u++ {
		b.SetFinal(spans[u].Last, spans[u].Exit)
		for v := 0; v < n; v++ {
			b.AddArc(spans[u].Last, spans[v].First, spans[u].Exit+word(math.Log(1-ps)+lm.Next[u][v]), true)
		}
		if sil != nil {
			b.AddArc(spans[u].Last, spans[n].First, spans[u].Exit+scale*math.Log(ps), true)
		}
	}
	return b.Build()
}
