package decode

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"
)

// Options tune decoding; the zero value decodes exactly with a 10 ms hop.
type Options struct {
	// Hop is the frame hop in seconds, turning frame indices into times;
	// 0 means 0.01.
	Hop float64
	// AcousticScale multiplies every log-likelihood before decoding; 0 means 1.
	AcousticScale float64
	// Beam prunes, after each frame, every state scoring more than Beam below
	// the best one. 0 (or +Inf) keeps every state: decoding is then exact.
	Beam float64
	// EndpointSilence (seconds) makes Decoder.Endpoint report the end of an
	// utterance once the best path has spent this long in silence after at
	// least one word; 0 never endpoints.
	EndpointSilence float64
}

func (o Options) normalised() (Options, error) {
	if o.Hop == 0 {
		o.Hop = 0.01
	}
	if o.AcousticScale == 0 {
		o.AcousticScale = 1
	}
	if o.Beam == 0 {
		o.Beam = math.Inf(1)
	}
	if !(o.Hop > 0) || math.IsInf(o.Hop, 1) || !(o.AcousticScale > 0) || math.IsInf(o.AcousticScale, 1) ||
		!(o.Beam > 0) || !(o.EndpointSilence >= 0) {
		return o, fmt.Errorf("decode: options need hop > 0, finite acoustic scale > 0, beam > 0, endpoint silence ≥ 0 (got %+v)", o)
	}
	return o, nil
}

// Word is one unit instance on a decoded path: a word, a phone, or (in
// Result.Segments only) a silence.
type Word struct {
	Label string `json:"label"`
	// Unit indexes Graph.Units.
	Unit int `json:"unit"`
	// Start and End are frame indices, End exclusive; StartTime and EndTime
	// are the same in seconds (frame index × hop).
	Start     int     `json:"start_frame"`
	End       int     `json:"end_frame"`
	StartTime float64 `json:"start"`
	EndTime   float64 `json:"end"`
	// Confidence is the mean, over the frames of the segment, of the
	// posterior probability of being in this unit given the frames so far
	// (the normalised forward probability summed over the unit's states).
	// It lies in [0, 1] and needs no second pass, so the incremental
	// decoder computes exactly the same value as the batch one.
	Confidence float64 `json:"conf"`
	Silence    bool    `json:"silence,omitempty"`
}

// Result is a decoded utterance.
type Result struct {
	// Words are the non-silence segments in order.
	Words []Word `json:"words"`
	// Segments are all unit instances in order, silences included.
	Segments []Word `json:"segments"`
	// States is the best state path, one graph state per frame (batch
	// decoding only; the incremental decoder keeps no per-frame history).
	States []int `json:"states,omitempty"`
	// LogProb is the score of the best path: transitions, final weight and
	// acoustic-scaled log-likelihoods.
	LogProb float64 `json:"log_prob"`
	Frames  int     `json:"frames"`
}

// Labels returns the labels of words, for scoring.
func Labels(words []Word) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w.Label
	}
	return out
}

// ErrNoPath is returned when no path through the graph ends in a final
// state at the last frame: too few frames for the graph, or all pruned.
var ErrNoPath = errors.New("decode: no path reaches a final state")

// checkScores validates a frame-score matrix against the graph.
func checkScores(g *Graph, m blas32.General) error {
	if m.Rows < 0 || m.Cols < 0 || m.Stride < m.Cols || (m.Rows > 0 && len(m.Data) < (m.Rows-1)*m.Stride+m.Cols) {
		return fmt.Errorf("decode: malformed score matrix (%d×%d, stride %d, %d values)", m.Rows, m.Cols, m.Stride, len(m.Data))
	}
	if m.Rows > 0 && m.Cols < g.NumClasses() {
		return fmt.Errorf("decode: score matrix has %d columns, the graph reads %d classes", m.Cols, g.NumClasses())
	}
	for i := 0; i < m.Rows; i++ {
		for j, v := range m.Data[i*m.Stride : i*m.Stride+m.Cols] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 1) {
				return fmt.Errorf("decode: score of frame %d class %d is %v", i, j, v)
			}
		}
	}
	return nil
}

// search holds what one Viterbi step needs; the batch and the incremental
// decoder share it, so both make identical choices.
type search struct {
	g     *Graph
	opt   Options
	emis  []float64 // scaled log-likelihood per class, current frame
	score []float64 // Viterbi score per state, current frame
	prev  []float64
	bp    []int32 // arc chosen into each state, -1 for a start or a dead state
	// alpha is the forward probability per state given the frames so far,
	// normalised to sum to one (so it is the filtered state posterior).
	alpha, aprev []float64
	expEmis      []float64
	mass         []float64 // posterior per unit, current frame
	t            int       // frames consumed
}

func newSearch(g *Graph, opt Options) *search {
	n := g.NumStates()
	return &search{
		g: g, opt: opt,
		emis:  make([]float64, g.NumClasses()),
		score: make([]float64, n), prev: make([]float64, n),
		bp:    make([]int32, n),
		alpha: make([]float64, n), aprev: make([]float64, n),
		expEmis: make([]float64, g.NumClasses()),
		mass:    make([]float64, len(g.Units)),
	}
}

// advance consumes one frame of scores.
func (s *search) advance(row []float32) {
	g := s.g
	for c := range s.emis {
		s.emis[c] = s.opt.AcousticScale * float64(row[c])
	}
	s.prev, s.score = s.score, s.prev
	s.aprev, s.alpha = s.alpha, s.aprev
	negInf := math.Inf(-1)
	best := negInf
	if s.t == 0 {
		for st := range s.score {
			s.score[st] = g.start[st] + s.emis[g.class[st]]
			s.bp[st] = -1
			best = max(best, s.score[st])
		}
	} else {
		j := g.junction
		// The best way out of any unit, and out of a non-silence one.
		jAll, jWord, uAll, uWord := negInf, negInf, -1, -1
		if j != nil {
			for u, last := range j.last {
				x := s.prev[last] + j.exit[u]
				if x > jAll {
					jAll, uAll = x, u
				}
				if !j.silence[u] && x > jWord {
					jWord, uWord = x, u
				}
			}
		}
		for st := range s.score {
			v, arc := negInf, int32(-1)
			for a := g.inStart[st]; a < g.localEnd[st]; a++ {
				if x := s.prev[g.arcFrom[a]] + g.arcLogP[a]; x > v {
					v, arc = x, a
				}
			}
			if j != nil {
				if e := j.entryOf[st]; e >= 0 {
					jv, u := jAll, uAll
					if j.silence[e] {
						jv, u = jWord, uWord
					}
					if x := jv + j.entry[e]; u >= 0 && x > v {
						v, arc = x, j.arc[u*len(j.last)+int(e)]
					}
				}
			}
			s.bp[st] = arc
			if arc < 0 {
				s.score[st] = negInf
				continue
			}
			s.score[st] = v + s.emis[g.class[st]]
			best = max(best, s.score[st])
		}
	}
	if thr := best - s.opt.Beam; !math.IsInf(thr, -1) {
		for st, v := range s.score {
			if v < thr {
				s.score[st], s.bp[st] = negInf, -1
			}
		}
	}
	s.forward()
	s.t++
}

// forward advances the normalised forward probabilities over the states
// Viterbi keeps alive (all of them without a beam) and sums them per unit.
// It works in the linear domain, with the emissions taken relative to the
// best live one so the sums stay in range; should they still underflow it
// redoes the frame in the log domain.
func (s *search) forward() {
	g := s.g
	emax := math.Inf(-1)
	for st, v := range s.score {
		if !math.IsInf(v, -1) {
			emax = max(emax, s.emis[g.class[st]])
		}
	}
	total := 0.0
	if s.t > 0 && !math.IsInf(emax, -1) {
		for c, e := range s.emis {
			s.expEmis[c] = math.Exp(e - emax)
		}
		j := g.junction
		sAll, sWord := 0.0, 0.0
		if j != nil {
			for u, last := range j.last {
				x := s.aprev[last] * j.exitP[u]
				sAll += x
				if !j.silence[u] {
					sWord += x
				}
			}
		}
		for st, v := range s.score {
			if math.IsInf(v, -1) {
				s.alpha[st] = 0
				continue
			}
			sum := 0.0
			for a := g.inStart[st]; a < g.localEnd[st]; a++ {
				sum += s.aprev[g.arcFrom[a]] * g.arcProb[a]
			}
			if j != nil {
				if e := j.entryOf[st]; e >= 0 {
					if j.silence[e] {
						sum += sWord * j.entryP[e]
					} else {
						sum += sAll * j.entryP[e]
					}
				}
			}
			s.alpha[st] = sum * s.expEmis[g.class[st]]
			total += s.alpha[st]
		}
	}
	// 1e-250 leaves room for every live term to stay a normal number.
	if !(total > 1e-250) || math.IsInf(total, 1) {
		total = s.logForward()
	}
	clear(s.mass)
	if total > 0 {
		inv := 1 / total
		for st := range s.alpha {
			s.alpha[st] *= inv
			s.mass[g.unitOf[st]] += s.alpha[st]
		}
	}
	for u, v := range s.mass {
		s.mass[u] = min(v, 1)
	}
}

// logForward computes the unnormalised alpha of the current frame in the
// log domain (for the first frame and underflow) and returns its sum.
func (s *search) logForward() float64 {
	g := s.g
	negInf := math.Inf(-1)
	m := negInf
	for st, v := range s.score {
		la := negInf
		if !math.IsInf(v, -1) {
			if s.t == 0 {
				la = g.start[st] + s.emis[g.class[st]]
			} else {
				top := negInf
				for a := g.inStart[st]; a < g.inStart[st+1]; a++ {
					top = max(top, math.Log(s.aprev[g.arcFrom[a]])+g.arcLogP[a])
				}
				if !math.IsInf(top, -1) {
					sum := 0.0
					for a := g.inStart[st]; a < g.inStart[st+1]; a++ {
						sum += math.Exp(math.Log(s.aprev[g.arcFrom[a]]) + g.arcLogP[a] - top)
					}
					la = top + math.Log(sum) + s.emis[g.class[st]]
				}
			}
		}
		s.alpha[st] = la // a log for now
		m = max(m, la)
	}
	total := 0.0
	for st, la := range s.alpha {
		if math.IsInf(m, -1) {
			s.alpha[st] = 0
			continue
		}
		s.alpha[st] = math.Exp(la - m)
		total += s.alpha[st]
	}
	return total
}

// bestFinal picks the best state to end in (lowest index on ties).
func (s *search) bestFinal() (int, float64) {
	bs, bv := -1, math.Inf(-1)
	for st, v := range s.score {
		if x := v + s.g.final[st]; x > bv {
			bs, bv = st, x
		}
	}
	return bs, bv
}

// bestState picks the best state regardless of finality.
func (s *search) bestState() int {
	bs, bv := -1, math.Inf(-1)
	for st, v := range s.score {
		if v > bv {
			bs, bv = st, v
		}
	}
	return bs
}

// segment is a unit instance under construction or finished.
type segment struct {
	unit       int32
	start, end int32
	confSum    float64
}

func (g *Graph) word(sg segment, hop float64) Word {
	u := g.Units[sg.unit]
	n := float64(sg.end - sg.start)
	conf := 0.0
	if n > 0 {
		conf = min(max(sg.confSum/n, 0), 1)
	}
	return Word{
		Label: u.Name, Unit: int(sg.unit), Start: int(sg.start), End: int(sg.end),
		StartTime: float64(sg.start) * hop, EndTime: float64(sg.end) * hop,
		Confidence: conf, Silence: u.Silence,
	}
}

func (g *Graph) result(segs []segment, hop float64) *Result {
	// Non-nil slices, so JSON shows [] rather than null.
	r := &Result{Segments: make([]Word, len(segs)), Words: []Word{}}
	for i, sg := range segs {
		r.Segments[i] = g.word(sg, hop)
		if !r.Segments[i].Silence {
			r.Words = append(r.Words, r.Segments[i])
		}
	}
	return r
}

// Viterbi finds the best path through g for the frame log-likelihoods
// (rows: frames, columns: classes), keeping one backpointer per state and
// frame.
func Viterbi(g *Graph, loglik blas32.General, opt Options) (*Result, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	if err := checkScores(g, loglik); err != nil {
		return nil, err
	}
	n, ns, nu := loglik.Rows, g.NumStates(), len(g.Units)
	if n == 0 {
		return nil, fmt.Errorf("decode: no frames")
	}
	s := newSearch(g, opt)
	bp := make([]int32, n*ns)
	mass := make([]float64, n*nu)
	for t := 0; t < n; t++ {
		s.advance(loglik.Data[t*loglik.Stride : t*loglik.Stride+loglik.Cols])
		copy(bp[t*ns:], s.bp)
		copy(mass[t*nu:], s.mass)
	}
	st, lp := s.bestFinal()
	if st < 0 {
		return nil, ErrNoPath
	}
	states := make([]int, n)
	enters := make([]bool, n)
	enters[0] = true
	for t := n - 1; t >= 0; t-- {
		states[t] = st
		if t > 0 {
			a := bp[t*ns+st]
			enters[t] = g.arcEnter[a]
			st = int(g.arcFrom[a])
		}
	}
	var segs []segment
	for t := 0; t < n; t++ {
		u := g.unitOf[states[t]]
		if enters[t] {
			if len(segs) > 0 {
				segs[len(segs)-1].end = int32(t)
			}
			segs = append(segs, segment{unit: u, start: int32(t)})
		}
		segs[len(segs)-1].confSum += mass[t*nu+int(u)]
	}
	segs[len(segs)-1].end = int32(n)
	r := g.result(segs, opt.Hop)
	r.States, r.LogProb, r.Frames = states, lp, n
	return r, nil
}
