package engine

import (
	"math"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/frontend"
)

// partialDecoder gives an open utterance's partial results at a cost
// linear in its length. Decoding the audio so far afresh for every partial,
// as the final result is decoded, cost time quadratic in the utterance's
// length (a 20 s utterance was decoded 66 times over). Here every frame is
// analysed, scored and pushed through the frame-synchronous Viterbi search
// (decode.Decoder) once, when it arrives, normalised with the mean and
// variance of the utterance's frames up to then: utterance CMVN needs the
// utterance's end, which only the final result has. So a partial result
// is an estimate the final one may revise, as partial results are; the
// final result is decoded from the whole utterance, as offline.
type partialDecoder struct {
	c      *Connected
	static *frontend.Extractor // the utterance's static frames (before CMVN)
	dyn    *frontend.Dynamics  // deltas and splicing of the normalised frames
	dec    *decode.Decoder
	pushed int // samples of the utterance's audio given to static
	// The running sums of the static frames, for their mean and variance.
	frames     int
	sum, sumSq []float64
	norm       []float32
	// scored counts the frames scored, for tests of the cost.
	scored int
}

func newPartialDecoder(c *Connected) (*partialDecoder, error) {
	st := c.Input.Audio
	st.Deltas, st.Splice, st.CMVN = 0, 0, "none"
	static, err := frontend.NewExtractor(st)
	if err != nil {
		return nil, err
	}
	dyn, err := frontend.NewDynamics(c.Input.Audio)
	if err != nil {
		return nil, err
	}
	dec, err := decode.NewDecoder(c.graph, c.options())
	if err != nil {
		return nil, err
	}
	dim := st.StaticDim()
	return &partialDecoder{c: c, static: static, dyn: dyn, dec: dec,
		sum: make([]float64, dim), sumSq: make([]float64, dim), norm: make([]float32, dim)}, nil
}

// partialCMVNFloor keeps the variance division finite, as the frontend's
// utterance CMVN does.
const partialCMVNFloor = 1e-8

// words takes the partial segment sg of the open utterance, whose audio
// extends the audio of the utterance's earlier partial segments (the
// segmenter cuts them all from one start), and returns the best path's
// words so far, timed from the start of the segment's audio.
func (p *partialDecoder) words(sg Segment) ([]Word, error) {
	if s := sg.Audio.Samples; p.pushed < len(s) {
		p.static.Push(s[p.pushed:])
		p.pushed = len(s)
	}
	static := p.static.Pop()
	dim := static.Cols
	for i := 0; i < static.Rows; i++ {
		for j, v := range static.Data[i*static.Stride : i*static.Stride+dim] {
			p.sum[j] += float64(v)
			p.sumSq[j] += float64(v) * float64(v)
		}
	}
	p.frames += static.Rows
	n := float64(p.frames)
	for i := 0; i < static.Rows; i++ {
		for j, v := range static.Data[i*static.Stride : i*static.Stride+dim] {
			mean := p.sum[j] / n
			variance := max(p.sumSq[j]/n-mean*mean, 0)
			p.norm[j] = float32((float64(v) - mean) / math.Sqrt(variance+partialCMVNFloor))
		}
		p.dyn.Push(p.norm)
	}
	if x := p.dyn.Pop(); x.Rows > 0 {
		p.scored += x.Rows
		if err := p.dec.Push(p.c.LogLikelihoods(x)); err != nil {
			return nil, err
		}
	}
	return spokenResultOf(p.dec.Partial().Words(), false, p.c.forms).Words, nil
}
