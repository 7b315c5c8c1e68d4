package engine

import (
	"fmt"
	"strings"
)

// Stream is a live recogniser for one audio stream: Push takes samples as
// they arrive, in chunks of any size, and returns the results that became
// known (a final result each time an utterance or word closes, partial ones
// while it is open); Flush ends the stream and returns the rest, the last
// with EOS set. A stream's results depend only on its samples, never on how
// they were chunked, so a recording pushed whole gives what Recognize gives.
type Stream interface {
	Push(pcm []float32) []Result
	Flush() []Result
}

// NewStream starts a live recogniser for audio at rate Hz on a speech model:
// the streaming recogniser that `rfstream stream`, `serve` and the web page
// run (a connected-word or phone model's ConnectedStream, a word model's
// WordSpotter, each with the pipeline's default segmentation).
func NewStream(m *Model, rate int) (Stream, error) {
	start, err := NewStreamStarter(m)
	if err != nil {
		return nil, err
	}
	return start(rate)
}

// StreamStarter starts live recognisers (NewStream's) on one model.
type StreamStarter func(rate int) (Stream, error)

// NewStreamStarter builds a model's recogniser once and returns what starts
// a stream on it, so that a program hearing many recordings does not
// rebuild the model for each.
func NewStreamStarter(m *Model) (StreamStarter, error) { return newStreamStarter(m, false) }

// newStreamStarter is NewStreamStarter; with finalsOnly a connected-word or
// phone model's streams decode final results only (NewLiveRecognizer's).
// A word model's spotter always classifies its partial words: a word lasts
// at most MaxWordMs, so they cost a bounded multiple of the final ones.
func newStreamStarter(m *Model, finalsOnly bool) (StreamStarter, error) {
	switch m.Task {
	case TaskWords:
		c, err := NewWordClassifier(m)
		if err != nil {
			return nil, err
		}
		return func(rate int) (Stream, error) { return NewWordSpotter(c, DefaultSpotterConfig(), rate) }, nil
	case TaskConnected, TaskPhones:
		c, err := NewConnected(m)
		if err != nil {
			return nil, err
		}
		return connectedStarter(c, finalsOnly), nil
	}
	return nil, fmt.Errorf("model task %q cannot recognise audio (known: %s)", m.Task, strings.Join(recognizerTasks, ", "))
}

// connectedStarter starts streams of c with its default segmentation;
// finalsOnly as newStreamStarter.
func connectedStarter(c *Connected, finalsOnly bool) StreamStarter {
	return func(rate int) (Stream, error) {
		s, err := NewConnectedStream(c, c.StreamConfig(), rate)
		if err == nil && finalsOnly {
			s.seg.FinalsOnly()
		}
		return s, err
	}
}
