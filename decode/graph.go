package decode

import (
	"fmt"
	"math"
	"sort"
)

// Graph is a compiled decoding graph: every state emits (there are no
// epsilon states), so one Viterbi step is one pass over the incoming arcs of
// every state. An arc marked "enter" starts a new unit instance (a new word
// or silence segment); arcs inside a unit never do. States and the arcs into
// each state keep the order they were added in, which fixes how ties break.
type Graph struct {
	// Units lists the units states belong to; a state's unit indexes it.
	Units []Unit

	unitOf   []int32
	class    []int32
	inStart  []int32 // arcs into state s are inStart[s] … inStart[s+1]-1
	arcFrom  []int32
	arcLogP  []float64
	arcEnter []bool
	arcProb  []float64 // exp(arcLogP), for the forward pass
	start    []float64 // log weight of starting in a state, -Inf if it cannot
	final    []float64 // log weight of ending in a state, -Inf if it cannot
	classes  int

	// junction, set by WordLoop, lets a search step pass the all-to-all
	// arcs from unit ends to unit starts through one shared maximum (and
	// sum): O(units) per frame instead of O(units²). Those arcs stay in the
	// arc arrays for traceback and reference; localEnd[s] is where they
	// begin among the arcs into s (inStart[s+1] when there are none).
	junction *junction
	localEnd []int32
}

// junction describes a word loop: leaving unit u's last state (log weight
// exit[u]) and entering unit v's first state (entry[v]) is the arc
// arc[u·U+v]; a silence unit is entered from non-silence units only.
type junction struct {
	last          []int32
	exit, exitP   []float64
	entry, entryP []float64
	silence       []bool
	entryOf       []int32 // per state: the unit it is the first state of, or -1
	arc           []int32
}

// NumStates is the number of emitting states.
func (g *Graph) NumStates() int { return len(g.class) }

// NumArcs is the number of transitions (start and final weights excluded).
func (g *Graph) NumArcs() int { return len(g.arcFrom) }

// NumClasses is the number of classifier outputs the graph reads: one more
// than the largest class of any state. Score matrices need at least this
// many columns.
func (g *Graph) NumClasses() int { return g.classes }

// StateClass is the emission class of state s.
func (g *Graph) StateClass(s int) int { return int(g.class[s]) }

// StateUnit is the index in Units of the unit state s belongs to.
func (g *Graph) StateUnit(s int) int { return int(g.unitOf[s]) }

// Span is where Builder.AddUnit put a unit's states.
type Span struct {
	First, Last int
	// Exit is the log probability of leaving the last state.
	Exit float64
}

// Builder assembles a Graph state by state. WordLoop and Linear cover the
// usual grammars; use a Builder directly for anything else.
type Builder struct {
	units  []Unit
	states []builderState
	arcs   []builderArc
	start  map[int]float64
	final  map[int]float64
	err    error
}

type builderState struct{ unit, class int }

type builderArc struct {
	from, to int
	logP     float64
	enter    bool
}

// NewBuilder starts a graph over the given unit table.
func NewBuilder(units []Unit) *Builder {
	return &Builder{units: units, start: map[int]float64{}, final: map[int]float64{}}
}

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("decode: "+format, args...)
	}
}

// AddState adds a state of unit u emitting class c and returns its index.
func (b *Builder) AddState(u, c int) int {
	if u < 0 || u >= len(b.units) {
		b.fail("state of unit %d, but there are %d units", u, len(b.units))
	}
	if c < 0 {
		b.fail("state with negative class %d", c)
	}
	b.states = append(b.states, builderState{u, c})
	return len(b.states) - 1
}

// AddUnit adds the states of unit u as a left-to-right chain with its
// self-loops and forward transitions, and returns where they are.
func (b *Builder) AddUnit(u int) Span {
	if u < 0 || u >= len(b.units) {
		b.fail("unit %d, but there are %d units", u, len(b.units))
		return Span{}
	}
	unit := b.units[u]
	if err := unit.validate(); err != nil {
		if b.err == nil {
			b.err = err
		}
		return Span{}
	}
	first := len(b.states)
	for i, c := range unit.Classes {
		s := b.AddState(u, c)
		p := unit.selfLoop(i)
		b.AddArc(s, s, math.Log(p), false)
		if i > 0 {
			b.AddArc(s-1, s, math.Log(1-unit.selfLoop(i-1)), false)
		}
	}
	last := len(b.states) - 1
	return Span{First: first, Last: last, Exit: math.Log(1 - unit.selfLoop(len(unit.Classes)-1))}
}

// AddArc adds a transition with log weight logP. enter marks an arc that
// starts a new unit instance; every arc between states of different units
// must be one.
func (b *Builder) AddArc(from, to int, logP float64, enter bool) {
	b.arcs = append(b.arcs, builderArc{from, to, logP, enter})
}

// SetStart lets a path begin in state s with log weight logP (a start
// always begins a unit instance).
func (b *Builder) SetStart(s int, logP float64) { b.start[s] = logP }

// SetFinal lets a path end in state s with log weight logP.
func (b *Builder) SetFinal(s int, logP float64) { b.final[s] = logP }

func badWeight(w float64) bool { return math.IsNaN(w) || math.IsInf(w, 1) }

// Build checks the graph and compiles it.
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := len(b.states)
	if n == 0 {
		return nil, fmt.Errorf("decode: graph has no states")
	}
	g := &Graph{
		Units:   b.units,
		unitOf:  make([]int32, n),
		class:   make([]int32, n),
		inStart: make([]int32, n+1),
		start:   make([]float64, n),
		final:   make([]float64, n),
	}
	for s, st := range b.states {
		g.unitOf[s] = int32(st.unit)
		g.class[s] = int32(st.class)
		g.classes = max(g.classes, st.class+1)
		g.start[s] = math.Inf(-1)
		g.final[s] = math.Inf(-1)
	}
	for _, a := range b.arcs {
		if a.from < 0 || a.from >= n || a.to < 0 || a.to >= n {
			return nil, fmt.Errorf("decode: arc %d→%d outside the %d states", a.from, a.to, n)
		}
		if badWeight(a.logP) {
			return nil, fmt.Errorf("decode: arc %d→%d has log weight %v", a.from, a.to, a.logP)
		}
		if !a.enter && g.unitOf[a.from] != g.unitOf[a.to] {
			return nil, fmt.Errorf("decode: arc %d→%d crosses from unit %d to unit %d without starting a new instance", a.from, a.to, g.unitOf[a.from], g.unitOf[a.to])
		}
	}
	starts, finals := 0, 0
	for s, w := range b.start {
		if s < 0 || s >= n || badWeight(w) {
			return nil, fmt.Errorf("decode: start state %d with log weight %v", s, w)
		}
		g.start[s] = w
		if !math.IsInf(w, -1) {
			starts++
		}
	}
	for s, w := range b.final {
		if s < 0 || s >= n || badWeight(w) {
			return nil, fmt.Errorf("decode: final state %d with log weight %v", s, w)
		}
		g.final[s] = w
		if !math.IsInf(w, -1) {
			finals++
		}
	}
	if starts == 0 || finals == 0 {
		return nil, fmt.Errorf("decode: graph needs a start and a final state (has %d and %d)", starts, finals)
	}
	arcs := append([]builderArc(nil), b.arcs...)
	sort.SliceStable(arcs, func(i, j int) bool { return arcs[i].to < arcs[j].to })
	g.arcFrom = make([]int32, len(arcs))
	g.arcLogP = make([]float64, len(arcs))
	g.arcEnter = make([]bool, len(arcs))
	g.arcProb = make([]float64, len(arcs))
	for i, a := range arcs {
		g.arcFrom[i] = int32(a.from)
		g.arcLogP[i] = a.logP
		g.arcEnter[i] = a.enter
		g.arcProb[i] = math.Exp(a.logP)
		g.inStart[a.to+1]++
	}
	for s := 0; s < n; s++ {
		g.inStart[s+1] += g.inStart[s]
	}
	g.localEnd = append([]int32(nil), g.inStart[1:]...)
	return g, nil
}

// LoopConfig weighs a word loop.
type LoopConfig struct {
	// SilenceProb is the probability of a silence (rather than a word) at
	// the start and after each word; 0 means 0.5. Ignored without silence.
	SilenceProb float64
	// WordPenalty is added (in the log domain) each time a word starts; a
	// negative value discourages insertions.
	WordPenalty float64
	// LMScale multiplies the log probabilities of choosing a word or a
	// silence (not the HMM transitions inside units); 0 means 1.
	LMScale float64
}

// WordLoop builds a grammar accepting any non-empty sequence of words with
// optional silence before, between and after them (silence alone is
// accepted too). Every word is equally likely. Units of the graph are the
// words followed by the silence unit (if sil is not nil).
func WordLoop(words []Unit, sil *Unit, cfg LoopConfig) (*Graph, error) {
	if len(words) == 0 {
		return nil, fmt.Errorf("decode: word loop without words")
	}
	units, ps, scale, err := loopUnits(words, sil, cfg)
	if err != nil {
		return nil, err
	}
	b := NewBuilder(units)
	spans := make([]Span, len(units))
	entry := make([]float64, len(units))
	for u := range units {
		spans[u] = b.AddUnit(u)
		if units[u].Silence {
			entry[u] = scale * math.Log(ps)
		} else {
			entry[u] = scale*math.Log((1-ps)/float64(len(words))) + cfg.WordPenalty
		}
	}
	for u := range units {
		b.SetStart(spans[u].First, entry[u])
		b.SetFinal(spans[u].Last, spans[u].Exit)
		for v := range units {
			if units[u].Silence && units[v].Silence {
				continue // one silence is as good as two
			}
			b.AddArc(spans[u].Last, spans[v].First, spans[u].Exit+entry[v], true)
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, err
	}
	nu := len(units)
	j := &junction{
		last: make([]int32, nu), exit: make([]float64, nu), exitP: make([]float64, nu),
		entry: entry, entryP: make([]float64, nu), silence: make([]bool, nu),
		entryOf: make([]int32, g.NumStates()), arc: make([]int32, nu*nu),
	}
	for s := range j.entryOf {
		j.entryOf[s] = -1
	}
	for i := range j.arc {
		j.arc[i] = -1
	}
	for u, sp := range spans {
		j.last[u], j.exit[u], j.exitP[u] = int32(sp.Last), sp.Exit, math.Exp(sp.Exit)
		j.entryP[u], j.silence[u] = math.Exp(entry[u]), units[u].Silence
		j.entryOf[sp.First] = int32(u)
	}
	// The loop arcs into a unit's first state come after its self-loop (they
	// were added later and Build keeps the order): they are its enter arcs.
	for v, sp := range spans {
		s := sp.First
		g.localEnd[s] = g.inStart[s+1]
		for a := g.inStart[s+1] - 1; a >= g.inStart[s] && g.arcEnter[a]; a-- {
			g.localEnd[s] = a
			j.arc[int(g.unitOf[g.arcFrom[a]])*nu+v] = a
		}
	}
	g.junction = j
	return g, nil
}

// LinearConfig shapes a forced-alignment graph.
type LinearConfig struct {
	// SilenceProb is the probability of the optional silence at each place
	// one is allowed; 0 means 0.5.
	SilenceProb float64
	// NoEdgeSilence forbids silence before the first and after the last unit;
	// NoInnerSilence forbids it between units.
	NoEdgeSilence, NoInnerSilence bool
}

// Linear builds the graph of one known unit sequence, each unit exactly
// once and in order, with optional silence at the ends and between units
// (when sil is not nil). Each occurrence gets its own entry in Units, in
// path order, so a segment's unit says which occurrence it is.
func Linear(seq []Unit, sil *Unit, cfg LinearConfig) (*Graph, error) {
	if len(seq) == 0 {
		return nil, fmt.Errorf("decode: empty unit sequence")
	}
	ps := cfg.SilenceProb
	if ps == 0 {
		ps = 0.5
	}
	if !(ps > 0 && ps < 1) {
		return nil, fmt.Errorf("decode: silence probability %v, want 0 < p < 1", cfg.SilenceProb)
	}
	var units []Unit
	var isSil []bool
	addSil := func() {
		s := *sil
		s.Silence = true
		units = append(units, s)
		isSil = append(isSil, true)
	}
	for i, u := range seq {
		if u.Silence {
			return nil, fmt.Errorf("decode: unit %d (%q) of the sequence is silence; pass silence separately", i, u.Name)
		}
		if sil != nil && ((i == 0 && !cfg.NoEdgeSilence) || (i > 0 && !cfg.NoInnerSilence)) {
			addSil()
		}
		units = append(units, u)
		isSil = append(isSil, false)
	}
	if sil != nil && !cfg.NoEdgeSilence {
		addSil()
	}
	b := NewBuilder(units)
	spans := make([]Span, len(units))
	for i := range units {
		spans[i] = b.AddUnit(i)
	}
	logS, logW := math.Log(ps), math.Log(1-ps)
	// Walk the positions keeping the ways into the next one: each is a
	// state to leave (or the start, -1) and the log weight of doing so.
	type way struct {
		from int
		w    float64
	}
	ways := []way{{-1, 0}}
	enter := func(i int, ws []way, extra float64) {
		for _, wy := range ws {
			if wy.from < 0 {
				b.SetStart(spans[i].First, wy.w+extra)
			} else {
				b.AddArc(wy.from, spans[i].First, wy.w+extra, true)
			}
		}
	}
	for i := range units {
		if isSil[i] {
			// The silence is taken (logS) or skipped (logW).
			enter(i, ways, logS)
			skip := make([]way, len(ways))
			for k, wy := range ways {
				skip[k] = way{wy.from, wy.w + logW}
			}
			ways = append(skip, way{spans[i].Last, spans[i].Exit})
			continue
		}
		enter(i, ways, 0)
		ways = []way{{spans[i].Last, spans[i].Exit}}
	}
	for _, wy := range ways {
		b.SetFinal(wy.from, wy.w)
	}
	return b.Build()
}

// loopUnits lays out a loop's units (the words, then the silence unit when
// sil is given) and checks cfg: it returns the silence probability at
// each choice and the LM scale, with their defaults applied.
func loopUnits(words []Unit, sil *Unit, cfg LoopConfig) (units []Unit, ps, scale float64, err error) {
	units = append([]Unit(nil), words...)
	for i := range units {
		if units[i].Silence {
			return nil, 0, 0, fmt.Errorf("decode: word %q is marked as silence; pass silence separately", units[i].Name)
		}
	}
	if sil != nil {
		s := *sil
		s.Silence = true
		units = append(units, s)
		ps = cfg.SilenceProb
		if ps == 0 {
			ps = 0.5
		}
		if !(ps > 0 && ps < 1) {
			return nil, 0, 0, fmt.Errorf("decode: silence probability %v, want 0 < p < 1", cfg.SilenceProb)
		}
	}
	scale = cfg.LMScale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0) || math.IsInf(scale, 1) || badWeight(cfg.WordPenalty) || math.IsInf(cfg.WordPenalty, -1) {
		return nil, 0, 0, fmt.Errorf("decode: LM scale %v and word penalty %v must be finite (scale > 0)", cfg.LMScale, cfg.WordPenalty)
	}
	return units, ps, scale, nil
}
