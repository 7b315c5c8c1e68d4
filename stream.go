package rfstream

import "github.com/rfstream/rfstream/engine"

// Stream is a live recogniser for one audio stream, the one `rfstream
// stream`, `serve` and the web page run. Push takes samples as they
// arrive, in chunks of any size, and returns the results that became known:
// partial ones while a word is open, a final one each time a word or
// utterance closes. Flush ends the stream and returns the rest, the last
// with EOS set. The results depend only on the samples, never on how they
// were chunked.
type Stream struct {
	s engine.Stream
}

// NewStream starts a live recogniser for audio at rate Hz on a speech
// model.
func NewStream(m *Model, rate int) (*Stream, error) {
	s, err := engine.NewStream(m, rate)
	if err != nil {
		return nil, err
	}
	return &Stream{s}, nil
}

// Push hears the next samples (mono, in [-1, 1]).
func (s *Stream) Push(samples []float32) []Result { return s.s.Push(samples) }

// Flush ends the stream.
func (s *Stream) Flush() []Result { return s.s.Flush() }
