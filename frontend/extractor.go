package frontend

import (
	"math"

	"gonum.org/v1/gonum/blas/blas32"
)

// Extractor is the incremental audio frontend: push samples in chunks of
// any size, pop the frames that are complete. Offline use is the same code
// fed a whole signal and flushed, so both paths give identical frames.
//
// Stages: pre-emphasis → 25 ms Hamming frames every 10 ms → power spectrum
// → log-mel (→ MFCC) → CMVN → deltas → ±k splicing. Deltas and splicing
// replicate the first and last frame at the edges, so they delay output by
// their context width; utterance CMVN holds everything until Flush.
type Extractor struct {
	cfg     AudioConfig
	an      *analyser
	flen    int
	hop     int
	prev    float32   // last raw sample, for pre-emphasis across chunks
	pending []float32 // pre-emphasised samples not yet framed
	nFrames int
	static  []float32
	stages  []frameStage
	out     []float32 // ready frames, row-major
	energy  []float64 // log energy of every static frame not yet popped
	popped  []float64 // energies of the frames returned by the last Pop
	flushed bool
	// energyOnly skips the spectra (NewEnergyMeter): Pop returns no
	// frames, only their energies through PopEnergy.
	energyOnly bool
}

// frameStage is one step of the frame pipeline.
type frameStage interface {
	push(f []float32, emit func([]float32))
	flush(emit func([]float32))
	outDim() int
}

// NewExtractor returns a frontend for cfg.
func NewExtractor(cfg AudioConfig) (*Extractor, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	e := &Extractor{cfg: cfg, an: newAnalyser(cfg), flen: cfg.FrameLen(), hop: cfg.Hop()}
	e.static = make([]float32, cfg.StaticDim())
	dim := cfg.StaticDim()
	switch cfg.CMVN {
	case "utterance":
		e.stages = append(e.stages, &utteranceCMVN{dim: dim})
	case "sliding":
		e.stages = append(e.stages, newSlidingCMVN(dim, cfg.CMVNWindow))
	}
	e.stages = append(e.stages, dynamicStages(cfg)...)
	return e, nil
}

// dynamicStages are the stages after CMVN: deltas, then splicing.
func dynamicStages(cfg AudioConfig) []frameStage {
	var stages []frameStage
	dim := cfg.StaticDim()
	for d := 1; d <= cfg.Deltas; d++ {
		in := dim * d
		stages = append(stages, newContext(in, 2, in+dim, deltaOf(in-dim, dim)))
	}
	if cfg.Splice > 0 {
		in := dim * (1 + cfg.Deltas)
		stages = append(stages, newContext(in, cfg.Splice, in*(2*cfg.Splice+1), splice(in, cfg.Splice)))
	}
	return stages
}

// Dynamics is the frontend after CMVN, deltas then ±k splicing, for static
// frames normalised by the caller: a live decoder that normalises each
// frame with the statistics known when it arrives (utterance CMVN needs
// the utterance's end) extends its frames with these stages as the
// Extractor does, edges replicated the same way. Push normalised static
// frames (cfg.StaticDim() values each); Pop returns the frames whose
// context has arrived (each waits for 2·Deltas + Splice later ones).
type Dynamics struct {
	stages []frameStage
	dim    int
	out    []float32
}

// NewDynamics returns the post-CMVN stages of cfg's frontend.
func NewDynamics(cfg AudioConfig) (*Dynamics, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	return &Dynamics{stages: dynamicStages(cfg), dim: cfg.Dim()}, nil
}

// Push adds one normalised static frame.
func (d *Dynamics) Push(f []float32) { d.feed(0, f) }

func (d *Dynamics) feed(i int, f []float32) {
	if i == len(d.stages) {
		d.out = append(d.out, f...)
		return
	}
	d.stages[i].push(f, func(g []float32) { d.feed(i+1, g) })
}

// Flush ends the frames: the last ones are completed with the final frame
// repeated, as at the end of an Extractor's input.
func (d *Dynamics) Flush() {
	for i := range d.stages {
		d.stages[i].flush(func(g []float32) { d.feed(i+1, g) })
	}
}

// Pop returns the frames completed since the last Pop (n×Dim).
func (d *Dynamics) Pop() blas32.General {
	n := len(d.out) / d.dim
	g := blas32.General{Rows: n, Cols: d.dim, Stride: d.dim, Data: d.out[: n*d.dim : n*d.dim]}
	d.out = nil
	return g
}

// withDefaults fills in what an empty field of cfg means and checks it.
func withDefaults(cfg AudioConfig) (AudioConfig, error) {
	if cfg.CMVN == "" {
		cfg.CMVN = "none"
	}
	return cfg, cfg.Validate()
}

// NewEnergyMeter returns an Extractor that frames the signal as one for
// cfg does and computes each frame's log energy, the same values to the
// bit, but no spectra: Pop returns no frames, and PopEnergy the energies
// of every frame since the last Pop. Speech detection needs nothing else,
// and skips the FFT and filterbank that cost most of a frame.
func NewEnergyMeter(cfg AudioConfig) (*Extractor, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	// Only the window: no FFT plan or filterbank is built for a meter
	// (one per live stream).
	n := cfg.FrameLen()
	an := &analyser{cfg: cfg, hamming: hammingWindow(n), in: make([]float64, n)}
	return &Extractor{cfg: cfg, an: an, flen: n, hop: cfg.Hop(), energyOnly: true}, nil
}

// Config returns the extractor's configuration.
func (e *Extractor) Config() AudioConfig { return e.cfg }

// Dim is the length of an output frame.
func (e *Extractor) Dim() int { return e.cfg.Dim() }

// Push adds samples at cfg.SampleRate.
func (e *Extractor) Push(samples []float32) {
	if e.flushed {
		panic("frontend: Push after Flush on an Extractor")
	}
	// A piece of the input at a time, so that the buffer holds at most a
	// frame and a piece whatever one Push brings (seconds of audio at
	// once used to grow it, copying, to the whole input's size).
	piece := 8 * e.flen
	for len(samples) > 0 {
		n := min(len(samples), piece)
		e.pushPiece(samples[:n])
		samples = samples[n:]
	}
	// A buffer grown by a big input (past what a piece needs, and past
	// what a live stream's 100 ms chunks need) is let go, so that a stream
	// gone idle keeps little.
	if cap(e.pending) > 10*e.flen {
		e.pending = append(make([]float32, 0, 2*e.flen), e.pending...)
	}
}

func (e *Extractor) pushPiece(samples []float32) {
	a := float32(e.cfg.PreEmph)
	for _, s := range samples {
		e.pending = append(e.pending, s-a*e.prev)
		e.prev = s
	}
	start := 0
	for len(e.pending)-start >= e.flen {
		e.analyse(e.pending[start : start+e.flen])
		start += e.hop
	}
	// What is left moves to the front, so the buffer is reused in place.
	e.pending = e.pending[:copy(e.pending, e.pending[start:])]
}

// Flush ends the input: a signal too short for one frame yields one
// zero-padded frame, and every stage releases what it holds.
func (e *Extractor) Flush() {
	if e.flushed {
		return
	}
	e.flushed = true
	if e.nFrames == 0 && len(e.pending) > 0 {
		pad := make([]float32, e.flen)
		copy(pad, e.pending)
		e.analyse(pad)
	}
	e.pending = nil
	e.flushStage(0)
}

func (e *Extractor) analyse(x []float32) {
	e.nFrames++
	if e.energyOnly {
		e.energy = append(e.energy, logEnergy(e.an.window(x)))
		return
	}
	e.energy = append(e.energy, e.an.frame(e.static, x))
	e.feed(0, e.static)
}

// feed passes f to stage i, or to the output after the last stage.
func (e *Extractor) feed(i int, f []float32) {
	if i == len(e.stages) {
		e.out = append(e.out, f...)
		return
	}
	e.stages[i].push(f, func(g []float32) { e.feed(i+1, g) })
}

func (e *Extractor) flushStage(i int) {
	if i == len(e.stages) {
		return
	}
	e.stages[i].flush(func(g []float32) { e.feed(i+1, g) })
	e.flushStage(i + 1)
}

// Pop returns the frames completed since the last Pop (n×Dim).
func (e *Extractor) Pop() blas32.General {
	d := e.Dim()
	n := len(e.out) / d
	g := blas32.General{Rows: n, Cols: d, Stride: d, Data: e.out[: n*d : n*d]}
	e.out = nil
	if e.energyOnly {
		n = len(e.energy) // no frames, every energy
	}
	e.popped = append(e.popped[:0], e.energy[:n]...)
	e.energy = append(e.energy[:0], e.energy[n:]...)
	return g
}

// PopEnergy returns the log energies of the frames the last Pop returned.
func (e *Extractor) PopEnergy() []float64 { return append([]float64(nil), e.popped...) }

// Frames is the number of static frames analysed so far.
func (e *Extractor) Frames() int { return e.nFrames }

// ExtractFrames runs the frontend over a whole signal.
func ExtractFrames(cfg AudioConfig, samples []float32) (blas32.General, error) {
	e, err := NewExtractor(cfg)
	if err != nil {
		return blas32.General{}, err
	}
	e.Push(samples)
	e.Flush()
	return e.Pop(), nil
}

// context hands each frame, with k neighbours on each side (edges
// replicated), to a combining function.
type context struct {
	k, in, out int
	ring       [][]float32
	n, emitted int
	combine    func(dst []float32, at func(offset int) []float32)
	buf        []float32
}

func newContext(in, k, out int, combine func([]float32, func(int) []float32)) *context {
	c := &context{k: k, in: in, out: out, combine: combine, ring: make([][]float32, 2*k+1), buf: make([]float32, out)}
	for i := range c.ring {
		c.ring[i] = make([]float32, in)
	}
	return c
}

func (c *context) outDim() int { return c.out }

func (c *context) push(f []float32, emit func([]float32)) {
	copy(c.ring[c.n%len(c.ring)], f)
	c.n++
	for c.emitted+c.k < c.n {
		c.emitOne(emit)
	}
}

func (c *context) flush(emit func([]float32)) {
	for c.emitted < c.n {
		c.emitOne(emit)
	}
}

func (c *context) emitOne(emit func([]float32)) {
	t := c.emitted
	c.combine(c.buf, func(o int) []float32 {
		i := min(max(t+o, 0), c.n-1)
		return c.ring[i%len(c.ring)]
	})
	c.emitted++
	emit(c.buf)
}

// deltaOf appends the regression delta (window ±2) of the dim values
// starting at off to the whole input frame.
func deltaOf(off, dim int) func([]float32, func(int) []float32) {
	return func(dst []float32, at func(int) []float32) {
		cur := at(0)
		copy(dst, cur)
		p1, m1, p2, m2 := at(1), at(-1), at(2), at(-2)
		d := dst[len(cur):]
		for j := 0; j < dim; j++ {
			i := off + j
			d[j] = ((p1[i] - m1[i]) + 2*(p2[i]-m2[i])) / 10
		}
	}
}

// splice concatenates frames -k..k.
func splice(in, k int) func([]float32, func(int) []float32) {
	return func(dst []float32, at func(int) []float32) { spliceFrame(dst, in, k, at) }
}

// spliceFrame writes the in-long frames at(−k) … at(k) one after another
// into dst: the one definition of a spliced frame, streamed or batched.
func spliceFrame(dst []float32, in, k int, at func(int) []float32) {
	for o := -k; o <= k; o++ {
		copy(dst[(o+k)*in:], at(o))
	}
}

// Splice writes rows t0 … t1−1 of frames, each spliced with its k
// neighbours on either side, into rows 0 … t1−t0−1 of dst. Frames beyond
// either end repeat the end frame, as the Extractor's context does at the
// edges of a stream, so a whole utterance spliced here equals the
// Extractor's output for it.
func Splice(dst, frames blas32.General, t0, t1, k int) {
	in, n := frames.Cols, frames.Rows
	for t := t0; t < t1; t++ {
		at := func(o int) []float32 {
			s := min(max(t+o, 0), n-1)
			return frames.Data[s*frames.Stride : s*frames.Stride+in]
		}
		spliceFrame(dst.Data[(t-t0)*dst.Stride:], in, k, at)
	}
}

// cmvnFloor keeps the variance division finite on constant coefficients.
const cmvnFloor = 1e-8

// utteranceCMVN normalises with the statistics of the whole input, so it
// emits nothing until flush.
type utteranceCMVN struct {
	dim    int
	frames []float32
}

func (u *utteranceCMVN) outDim() int                         { return u.dim }
func (u *utteranceCMVN) push(f []float32, _ func([]float32)) { u.frames = append(u.frames, f...) }

func (u *utteranceCMVN) flush(emit func([]float32)) {
	n := len(u.frames) / u.dim
	if n == 0 {
		return
	}
	mean, inv := make([]float64, u.dim), make([]float64, u.dim)
	for i := 0; i < n; i++ {
		for j, v := range u.frames[i*u.dim : (i+1)*u.dim] {
			mean[j] += float64(v)
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		for j, v := range u.frames[i*u.dim : (i+1)*u.dim] {
			d := float64(v) - mean[j]
			inv[j] += d * d
		}
	}
	for j := range inv {
		inv[j] = 1 / math.Sqrt(inv[j]/float64(n)+cmvnFloor)
	}
	out := make([]float32, u.dim)
	for i := 0; i < n; i++ {
		for j, v := range u.frames[i*u.dim : (i+1)*u.dim] {
			out[j] = float32((float64(v) - mean[j]) * inv[j])
		}
		emit(out)
	}
	u.frames = nil
}

// slidingCMVN normalises each frame with the mean and variance of the last
// window frames up to and including it: causal, so it adds no delay.
type slidingCMVN struct {
	dim, window int
	ring        [][]float32
	n           int
	sum, sumSq  []float64
	out         []float32
}

func newSlidingCMVN(dim, window int) *slidingCMVN {
	s := &slidingCMVN{dim: dim, window: window, ring: make([][]float32, window),
		sum: make([]float64, dim), sumSq: make([]float64, dim), out: make([]float32, dim)}
	for i := range s.ring {
		s.ring[i] = make([]float32, dim)
	}
	return s
}

func (s *slidingCMVN) outDim() int { return s.dim }

func (s *slidingCMVN) push(f []float32, emit func([]float32)) {
	slot := s.ring[s.n%s.window]
	if s.n >= s.window {
		for j, v := range slot {
			s.sum[j] -= float64(v)
			s.sumSq[j] -= float64(v) * float64(v)
		}
	}
	copy(slot, f)
	for j, v := range f {
		s.sum[j] += float64(v)
		s.sumSq[j] += float64(v) * float64(v)
	}
	s.n++
	cnt := float64(min(s.n, s.window))
	for j, v := range f {
		mean := s.sum[j] / cnt
		variance := math.Max(s.sumSq[j]/cnt-mean*mean, 0)
		s.out[j] = float32((float64(v) - mean) / math.Sqrt(variance+1e-2))
	}
	emit(s.out)
}

func (s *slidingCMVN) flush(func([]float32)) {}
