package engine

import (
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/frontend"
)

// AdaptToVoiceRefittingFully is AdaptToVoice with every round refitted by
// classifier.FitRLS from the rows, the reference for its cached refits.
func (c *WordClassifier) AdaptToVoiceRefittingFully(raw blas32.General) (*VoiceAdaptation, error) {
	return c.adaptToVoice(raw, true)
}

// NewSegmenterSortingEveryFrame is NewSegmenter with the floor window
// sorted afresh for every frame, the reference the sliding window must
// equal.
func NewSegmenterSortingEveryFrame(wc frontend.WordConfig, cfg SpotterConfig, rate int) (*Segmenter, error) {
	s, err := NewSegmenter(wc, cfg, rate)
	if err == nil {
		s.sortEveryFrame = true
	}
	return s, err
}

// RecognizeFinalsOnly is what NewLiveRecognizer does with a connected
// model, with the endpointer configured by cfg.
func RecognizeFinalsOnly(c *Connected, cfg SpotterConfig, samples []float32, rate int) (Result, error) {
	s, err := NewConnectedStream(c, cfg, rate)
	if err != nil {
		return Result{}, err
	}
	s.seg.FinalsOnly()
	return endOfStream(s, samples)
}

// PartialFramesScored is how many frames the stream's partial results
// have scored so far, the open utterance's included.
func (s *ConnectedStream) PartialFramesScored() int {
	n := s.partialsScored
	if s.part != nil {
		n += s.part.scored
	}
	return n
}
