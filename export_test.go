package rfstream

import "gonum.org/v1/gonum/blas/blas32"

// AdaptToVoiceRefittingFully is AdaptToVoice with every round refitted by
// FitRLS from the rows, the reference for its cached refits.
func (c *WordClassifier) AdaptToVoiceRefittingFully(raw blas32.General) (*VoiceAdaptation, error) {
	return c.adaptToVoice(raw, true)
}
