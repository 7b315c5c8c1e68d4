package engine

import (
	"fmt"
	"math"

	"github.com/rfstream/rfstream/frontend"
)

// DefaultConnectedStreamConfig endpoints utterances of connected words: an
// utterance ends after 700 ms without speech (longer than the pauses
// between the words of one string), may last 20 s, and a partial result is
// decoded every 300 ms while one is open. Speech is anything 6 dB above the
// floor, not 15 as for isolated words: the decoder models silence itself,
// so an utterance too long costs little, while a soft word taken for a
// pause splits the string and is lost. On 100 strings joined from held-out
// training recordings (takes 5-9), the stream's WER was 12.06 % at 15 dB,
// 3.48 % at 10 dB and 1.39 % at 6 dB, the same as decoding each file whole
// (measured before the segmenter stopped assuming silence before a long
// stream's start; docs/streaming.md). An utterance that starts within
// PadMs of the stream's start gets 200 ms of the stream's background before
// it (EdgeFillMs): without it a recording that begins at its word's first
// sample was often decoded as silence alone (FSDD's held-out takes 5-9:
// 33 of 300 heard as no speech, 2 with it; experiments/journal/reject.md
// section 3).
func DefaultConnectedStreamConfig() SpotterConfig {
	c := DefaultSpotterConfig()
	c.ThresholdDB, c.TrailingSilenceMs, c.MaxWordMs, c.PadMs, c.PartialEveryMs = 6, 700, 20000, 300, 300
	c.EdgeFillMs = 200
	return c
}

// StreamConfig is the endpointer a live stream on c uses:
// DefaultConnectedStreamConfig for digit models, and the same without the
// edge fill for phone models, because the fill's length was chosen on digit
// models and a phone loop decodes phones in it (a tight TIMIT-shaped
// fixture gained two phones before its first).
func (c *Connected) StreamConfig() SpotterConfig {
	cfg := DefaultConnectedStreamConfig()
	if c.Model.Task == TaskPhones {
		cfg.EdgeFillMs = 0
	}
	return cfg
}

// ConnectedStream recognises connected words in a live stream: push PCM
// chunks of any size, collect results.
//
// The model normalises each utterance by its own mean and variance (CMVN
// over the utterance, as it was trained), which needs the utterance's end,
// so final results are utterance-synchronous: an energy endpointer (the
// Segmenter) cuts utterances at long pauses and each closed utterance is
// decoded whole into a final result. While one is open, a partial result
// every PartialEveryMs comes from a frame-synchronous search over its
// frames normalised as they arrive (partialDecoder), which scores each
// frame once. Results depend only on the samples, never on the chunking.
type ConnectedStream struct {
	seg *Segmenter
	rec *Connected
	tr  *ConnectedTranscript
	// part decodes the open utterance's partial results; nil until its
	// first partial segment, and again after its final one.
	part *partialDecoder
	// partialsScored counts the frames part has scored, over the stream.
	partialsScored int
	// warp is the vocal-tract warp the stream chose on its first utterance
	// with a word, when the decoder searches warps (ConnectedDecoder.Warps);
	// later utterances are heard through it alone. Partial results are
	// decoded unwarped.
	warp       float64
	warpChosen bool
}

// NewConnectedStream starts a recogniser for input at rate Hz.
func NewConnectedStream(c *Connected, cfg SpotterConfig, rate int) (*ConnectedStream, error) {
	seg, err := NewConnectedSegmenter(c, cfg, rate)
	if err != nil {
		return nil, err
	}
	return &ConnectedStream{seg: seg, rec: c, tr: NewConnectedTranscript(c, cfg)}, nil
}

// NewConnectedSegmenter cuts a stream at rate Hz into the utterances a
// connected model decodes, at the model's rate.
func NewConnectedSegmenter(c *Connected, cfg SpotterConfig, rate int) (*Segmenter, error) {
	return NewSegmenter(frontend.WordConfig{Audio: c.Input.Audio}, cfg, rate)
}

// Push adds samples and returns the results they complete.
func (s *ConnectedStream) Push(pcm []float32) []Result { return s.results(s.seg.Push(pcm), false) }

// Flush ends the stream; the last result has EOS set.
func (s *ConnectedStream) Flush() []Result { return s.results(s.seg.Flush(), true) }

func (s *ConnectedStream) results(segs []Segment, end bool) []Result {
	var out []Result
	for _, sg := range segs {
		words, err := s.words(sg)
		if err != nil {
			out = append(out, s.tr.Error(sg, err))
			continue
		}
		out = append(out, s.tr.Add(sg, words))
	}
	if end {
		out = append(out, s.tr.End())
	}
	return out
}

// words decodes segment sg: a final one whole, a partial one by extending
// the open utterance's frame-synchronous search.
func (s *ConnectedStream) words(sg Segment) ([]Word, error) {
	if sg.Final {
		if s.part != nil {
			s.partialsScored += s.part.scored
			s.part = nil
		}
		warps := s.rec.Decoder.Warps
		if s.warpChosen {
			warps = []float64{s.warp}
		}
		r, w, err := s.rec.recognizeWarped(sg.Audio, warps)
		if err == nil && len(warps) > 1 && len(r.Words) > 0 {
			s.warp, s.warpChosen = w, true
		}
		return r.Words, err
	}
	if s.part == nil {
		var err error
		if s.part, err = newPartialDecoder(s.rec); err != nil {
			return nil, err
		}
	}
	return s.part.words(sg)
}

// ConnectedTranscript turns the decoded utterances of one stream, taken in
// segment order, into its results: a final result carries every word of the
// closed utterances so far, a partial one adds the open utterance's words.
// The streaming decoder stage keeps one per stream, so results over NATS are
// built by the same code as ConnectedStream's.
type ConnectedTranscript struct {
	padS float64
	// fillS is how far before the stream's start the audio of a segment
	// starting within padS of it starts (SpotterConfig.EdgeFillMs, in
	// whole samples).
	fillS  float64
	words  []Word // words of the closed utterances
	failed bool   // an utterance could not be decoded: its words are unknown, not absent
}

// NewConnectedTranscript starts the transcript of a stream segmented with
// cfg for model c.
func NewConnectedTranscript(c *Connected, cfg SpotterConfig) *ConnectedTranscript {
	padFrames := math.Ceil(cfg.PadMs / c.Input.Audio.HopMs)
	rate := c.Input.Audio.SampleRate
	return &ConnectedTranscript{padS: padFrames * c.Input.Audio.HopMs / 1000, fillS: float64(cfg.EdgeFillSamples(rate)) / float64(rate)}
}

// Add takes the words decoded from segment sg, timed from the start of the
// segment's audio, and returns the stream's result after it.
func (t *ConnectedTranscript) Add(sg Segment, words []Word) Result {
	// The segment's audio starts PadMs before its first speech frame, or,
	// when the stream's start is nearer, the segmenter's edge fill before
	// the stream's start. Words are timed in the stream: one the decoder
	// began in the fill begins at 0. The sums are rounded to the
	// microsecond, far under a frame, so that their float error does not
	// show (0.42 − 0.2 is 0.21999999999999997 in floats).
	off := sg.Start - t.padS
	if off < 0 {
		off = -t.fillS
	}
	ws := make([]Word, len(words))
	for i, w := range words {
		w.Start = toMicrosecond(max(w.Start+off, 0))
		w.End = toMicrosecond(max(w.End+off, 0))
		ws[i] = w
	}
	if sg.Final {
		t.words = append(t.words, ws...)
		return Result{Text: t.text(nil), Final: true, Words: t.snapshot(nil)}
	}
	return Result{Text: t.text(ws), Words: t.snapshot(ws)}
}

func toMicrosecond(sec float64) float64 { return math.Round(sec*1e6) / 1e6 }

// Error is the result for a segment that could not be decoded; the
// stream goes on with the words it has.
func (t *ConnectedTranscript) Error(sg Segment, err error) Result {
	t.failed = true
	return Result{Text: t.text(nil), Final: sg.Final, Words: t.snapshot(nil),
		Error: fmt.Sprintf("utterance at %.2fs: %v", sg.Start, err)}
}

// End is the stream's last result; when no utterance was found, or the
// decoder heard only silence in those that were (and none failed), it
// says there was no speech.
func (t *ConnectedTranscript) End() Result {
	return Result{Text: t.text(nil), Final: true, EOS: true, Words: t.snapshot(nil), NoSpeech: len(t.words) == 0 && !t.failed}
}

func (t *ConnectedTranscript) snapshot(extra []Word) []Word {
	return append(append([]Word{}, t.words...), extra...)
}

func (t *ConnectedTranscript) text(extra []Word) string { return wordText(t.snapshot(extra)) }
