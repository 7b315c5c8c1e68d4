package rfstream

import "github.com/rfstream/rfstream/engine"

// Result is what a recogniser reports: the text (words separated by
// spaces), the words with their times and confidences, and whether
// nothing was heard as a word (NoSpeech) or speech was rejected as none of
// the model's words (a Word with Rejected set, not in Text). A Stream's
// results are partial while a word is open, final when it closes, and the
// last has EOS set.
type Result = engine.Result

// Word is one recognised word with its times in seconds from the start of
// the recording or stream.
type Word = engine.Word

// Recognizer hears whole recordings with one model. It gives exactly what
// `rfstream recognize` prints for the same recording and model: a string
// model (TaskConnected, TaskPhones) hears the recording as the live
// pipeline hears a stream of it, so Stream's last result has the same
// text; an isolated-word model (TaskWords) classifies the recording as one
// word, or says there was no speech when the live segmenter finds none. A
// Recognizer may be used for many recordings, one at a time.
type Recognizer struct {
	r engine.Recognizer
}

// NewRecognizer prepares a speech model for recognising recordings. It
// builds what the model needs (its feature map, its decoder) once.
func NewRecognizer(m *Model) (*Recognizer, error) {
	r, err := engine.NewRecognizer(m)
	if err != nil {
		return nil, err
	}
	return &Recognizer{r}, nil
}

// Recognize hears samples (mono, in [-1, 1]) taken at rate Hz, resampled
// to the model's rate when it differs. The result is the recording's last:
// Final and EOS are set, and Conf is the least sure word's confidence.
func (r *Recognizer) Recognize(samples []float32, rate int) (Result, error) {
	return r.r.Recognize(samples, rate)
}
