package rfstream

import (
	"fmt"
	"math"
	"strings"

	"github.com/rfstream/rfstream/frontend"
)

// DefaultConnectedStreamConfig endpoints utterances of connected words: an
// utterance ends after 700 ms without speech (longer than the pauses
// between the words of one string), may last 20 s, and a partial result is
// decoded every 300 ms while one is open.
func DefaultConnectedStreamConfig() SpotterConfig {
	c := DefaultSpotterConfig()
	c.TrailingSilenceMs, c.MaxWordMs, c.PadMs, c.PartialEveryMs = 700, 20000, 300, 300
	return c
}

// ConnectedStream recognises connected words in a live stream: push PCM
// chunks of any size, collect results.
//
// The model normalises each utterance by its own mean and variance (CMVN
// over the utterance, as it was trained), which needs the utterance's end,
// so decoding is utterance-synchronous rather than frame-synchronous: an
// energy endpointer (the Segmenter) cuts utterances at long pauses, each
// closed utterance is decoded whole into a final result, and while one is
// open its audio so far is decoded into a partial result every
// PartialEveryMs. Results depend only on the samples, never on the chunking.
type ConnectedStream struct {
	seg   *Segmenter
	rec   *Connected
	padS  float64
	words []Word // final words so far
}

// NewConnectedStream starts a recogniser for input at rate Hz.
func NewConnectedStream(c *Connected, cfg SpotterConfig, rate int) (*ConnectedStream, error) {
	wc := frontend.WordConfig{Audio: c.Input.Audio}
	seg, err := NewSegmenter(wc, cfg, rate)
	if err != nil {
		return nil, err
	}
	padFrames := math.Ceil(cfg.PadMs / c.Input.Audio.HopMs)
	return &ConnectedStream{seg: seg, rec: c, padS: padFrames * c.Input.Audio.HopMs / 1000}, nil
}

// Push adds samples and returns the results they complete.
func (s *ConnectedStream) Push(pcm []float32) []Result { return s.results(s.seg.Push(pcm), false) }

// Flush ends the stream; the last result has EOS set.
func (s *ConnectedStream) Flush() []Result { return s.results(s.seg.Flush(), true) }

func (s *ConnectedStream) results(segs []Segment, end bool) []Result {
	var out []Result
	for _, sg := range segs {
		r, err := s.rec.Recognize(sg.Audio)
		if err != nil {
			out = append(out, Result{Text: s.text(nil), Final: sg.Final, Words: s.snapshot(nil),
				Error: fmt.Sprintf("utterance at %.2fs: %v", sg.Start, err)})
			continue
		}
		// The segment's audio starts PadMs before its first speech frame
		// (less at the very start of the stream).
		off := math.Max(sg.Start-s.padS, 0)
		ws := make([]Word, len(r.Words))
		for i, w := range r.Words {
			w.Start += off
			w.End += off
			ws[i] = w
		}
		if sg.Final {
			s.words = append(s.words, ws...)
			out = append(out, Result{Text: s.text(nil), Final: true, Words: s.snapshot(nil)})
			continue
		}
		out = append(out, Result{Text: s.text(ws), Words: s.snapshot(ws)})
	}
	if end {
		out = append(out, Result{Text: s.text(nil), Final: true, EOS: true, Words: s.snapshot(nil)})
	}
	return out
}

func (s *ConnectedStream) snapshot(extra []Word) []Word {
	return append(append([]Word{}, s.words...), extra...)
}

func (s *ConnectedStream) text(extra []Word) string {
	var parts []string
	for _, w := range s.snapshot(extra) {
		parts = append(parts, w.Word)
	}
	return strings.Join(parts, " ")
}
