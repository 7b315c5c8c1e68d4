package decode

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"
)

// Decoder is the frame-synchronous Viterbi decoder of one stream. It keeps,
// per live state, a token: the open segment (unit instance) the path is in
// and a link to the segments it closed before. Segments shared by every
// live token can never change again; they form the stable prefix, are moved
// to a plain list and cut from the link chain, so memory stays bounded by
// the live tokens and the unstable links plus the words already decided.
//
// Its final result equals Viterbi's for the same frames (the same search
// step makes the same choices); States is left empty.
type Decoder struct {
	g   *Graph
	opt Options
	s   *search

	cur, next tokens
	closed    []*link // per state: the link closed this frame when leaving it, or nil
	stable    []segment
	stableEnd *link // deepest harvested link, a common ancestor of all tokens
	done      bool
}

type tokens struct {
	link  []*link
	start []int32
	conf  []float64
	words []int32 // non-silence segments on the path, the open one included
}

func newTokens(n int) tokens {
	return tokens{make([]*link, n), make([]int32, n), make([]float64, n), make([]int32, n)}
}

type link struct {
	prev      *link
	seg       segment
	depth     int32
	harvested bool
}

func (l *link) level() int32 {
	if l == nil {
		return 0
	}
	return l.depth
}

const harvestEvery = 64

// NewDecoder starts decoding a stream over g.
func NewDecoder(g *Graph, opt Options) (*Decoder, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	n := g.NumStates()
	d := &Decoder{g: g, opt: opt, cur: newTokens(n), next: newTokens(n), closed: make([]*link, n)}
	d.Reset()
	return d, nil
}

// Reset forgets the stream and starts a new utterance.
func (d *Decoder) Reset() {
	d.s = newSearch(d.g, d.opt)
	clear(d.cur.link)
	clear(d.next.link)
	d.stable, d.stableEnd, d.done = nil, nil, false
}

// Frames is the number of frames pushed since the last Reset.
func (d *Decoder) Frames() int { return d.s.t }

// Push consumes frames of log-likelihoods (rows: frames, columns: classes).
func (d *Decoder) Push(loglik blas32.General) error {
	if d.done {
		return errors.New("decode: Push after Final; call Reset first")
	}
	if err := checkScores(d.g, loglik); err != nil {
		return err
	}
	for i := 0; i < loglik.Rows; i++ {
		d.advance(loglik.Data[i*loglik.Stride : i*loglik.Stride+loglik.Cols])
		// Harvest at the end of the chunk, and every harvestEvery frames
		// within a long one, so a whole file pushed at once stays bounded too.
		if i == loglik.Rows-1 || (i+1)%harvestEvery == 0 {
			d.harvest()
		}
	}
	return nil
}

func (d *Decoder) advance(row []float32) {
	s, g := d.s, d.g
	s.advance(row)
	t := int32(s.t - 1)
	nx, cu := &d.next, &d.cur
	clear(d.closed)
	for st, v := range s.score {
		if math.IsInf(v, -1) {
			nx.link[st] = nil // let dead paths be collected
			continue
		}
		u := g.unitOf[st]
		word := int32(0)
		if !g.Units[u].Silence {
			word = 1
		}
		if t == 0 {
			nx.link[st], nx.start[st], nx.conf[st], nx.words[st] = nil, 0, 0, word
		} else {
			a := s.bp[st]
			from := g.arcFrom[a]
			if g.arcEnter[a] {
				l := d.closed[from]
				if l == nil {
					prev := cu.link[from]
					l = &link{prev: prev, depth: prev.level() + 1,
						seg: segment{unit: g.unitOf[from], start: cu.start[from], end: t, confSum: cu.conf[from]}}
					d.closed[from] = l
				}
				nx.link[st], nx.start[st], nx.conf[st], nx.words[st] = l, t, 0, cu.words[from]+word
			} else {
				nx.link[st], nx.start[st], nx.conf[st], nx.words[st] = cu.link[from], cu.start[from], cu.conf[from], cu.words[from]
			}
		}
		nx.conf[st] += s.mass[u]
	}
	d.cur, d.next = d.next, d.cur
}

// commonAncestor is the deepest link every live token descends from (nil if
// some live token has closed no segment beyond the harvested ones).
func (d *Decoder) commonAncestor() *link {
	var cand *link
	first := true
	for st, v := range d.s.score {
		if math.IsInf(v, -1) {
			continue
		}
		l := d.cur.link[st]
		if first {
			cand, first = l, false
			continue
		}
		for l.level() > cand.level() {
			l = l.prev
		}
		for cand.level() > l.level() {
			cand = cand.prev
		}
		for l != cand {
			l, cand = l.prev, cand.prev
		}
		if cand == nil || cand == d.stableEnd {
			return cand
		}
	}
	return cand
}

// harvest moves the segments all live paths agree on to the stable list
// and cuts them from the chain.
func (d *Decoder) harvest() {
	lca := d.commonAncestor()
	if lca == nil || lca.harvested {
		return
	}
	var fresh []*link
	for l := lca; l != nil && !l.harvested; l = l.prev {
		fresh = append(fresh, l)
	}
	for i := len(fresh) - 1; i >= 0; i-- {
		d.stable = append(d.stable, fresh[i].seg)
		fresh[i].harvested = true
	}
	lca.prev = nil
	d.stableEnd = lca
}

// path returns the segments of the token in state st: the stable ones, the
// unstable closed ones, and its open segment ended at the current frame.
func (d *Decoder) path(st int) (stable, tail []segment) {
	var chain []segment
	for l := d.cur.link[st]; l != nil && !l.harvested; l = l.prev {
		chain = append(chain, l.seg)
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	chain = append(chain, segment{unit: d.g.unitOf[st], start: d.cur.start[st], end: int32(d.s.t), confSum: d.cur.conf[st]})
	return d.stable, chain
}

// Partial is a hypothesis in the middle of a stream.
type Partial struct {
	// Stable words are agreed on by every surviving path: later frames
	// cannot change them, and the final result starts with them.
	Stable []Word `json:"stable"`
	// Tail is the rest of the current best path; later frames may revise
	// it. Its last word may still be growing (End is the current frame).
	Tail   []Word `json:"tail"`
	Frames int    `json:"frames"`
}

// Words is the whole current hypothesis, Stable then Tail.
func (p Partial) Words() []Word { return append(append([]Word(nil), p.Stable...), p.Tail...) }

// Partial reports the current best hypothesis (the best live state, final or
// not) split into its stable prefix and its unstable tail.
func (d *Decoder) Partial() Partial {
	p := Partial{Frames: d.s.t, Stable: []Word{}, Tail: []Word{}}
	for _, sg := range d.stable {
		if w := d.g.word(sg, d.opt.Hop); !w.Silence {
			p.Stable = append(p.Stable, w)
		}
	}
	if d.s.t == 0 {
		return p
	}
	st := d.s.bestState()
	if st < 0 {
		return p
	}
	_, tail := d.path(st)
	for _, sg := range tail {
		if w := d.g.word(sg, d.opt.Hop); !w.Silence {
			p.Tail = append(p.Tail, w)
		}
	}
	return p
}

// Endpoint reports whether the best path has been in silence for at least
// Options.EndpointSilence after at least one word.
func (d *Decoder) Endpoint() bool {
	if d.opt.EndpointSilence == 0 || d.s.t == 0 {
		return false
	}
	st := d.s.bestState()
	if st < 0 || !d.g.Units[d.g.unitOf[st]].Silence || d.cur.words[st] == 0 {
		return false
	}
	dur := float64(int32(d.s.t)-d.cur.start[st]) * d.opt.Hop
	return dur >= d.opt.EndpointSilence-1e-9
}

// Final ends the utterance and returns the best complete path; it equals
// Viterbi on the same frames (without States). Call Reset to decode another.
func (d *Decoder) Final() (*Result, error) {
	if d.s.t == 0 {
		return nil, fmt.Errorf("decode: no frames")
	}
	d.done = true
	st, lp := d.s.bestFinal()
	if st < 0 {
		return nil, ErrNoPath
	}
	stable, tail := d.path(st)
	r := d.g.result(append(append([]segment(nil), stable...), tail...), d.opt.Hop)
	r.LogProb, r.Frames = lp, d.s.t
	return r, nil
}
