package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Recognizer recognises what one whole recording says. Its result is the
// recording's last: Final and EOS are set.
type Recognizer interface {
	// Recognize hears samples (mono, in [-1, 1]) taken at rate Hz; they
	// are resampled to the model's rate when it differs.
	Recognize(samples []float32, rate int) (Result, error)
}

// recognizerTasks are the model tasks NewRecognizer serves, sorted. An
// image model (TaskImages) is not among them: it tags pixels
// (ImageTagger), it hears no recordings.
var recognizerTasks = []string{TaskConnected, TaskPhones, TaskWords}

// NewRecognizer prepares a model for recognising whole recordings: the one
// answer that `rfstream recognize`, the public package's Recognizer and,
// for string models, every live entry point give. A connected-word or
// phone model hears the recording as the live pipeline hears a stream
// (NewLiveRecognizer). An isolated-word model classifies the recording as
// one word, as it was trained to, when the live segmenter finds a word in
// it at all, and otherwise says there was no speech: the classifier alone
// names a word for silence too. Whatever the model needs built, its feature
// map and its decoder, is built here, once, not for each recording.
func NewRecognizer(m *Model) (Recognizer, error) {
	switch m.Task {
	case TaskWords:
		c, err := NewWordClassifier(m)
		if err != nil {
			return nil, err // not c: a nil *WordClassifier is a non-nil Recognizer
		}
		return heardWordRecognizer{c}, nil
	case TaskConnected, TaskPhones:
		return NewLiveRecognizer(m)
	}
	// No "rfstream:" prefix: `rfstream recognize` prints this as its own
	// error.
	return nil, fmt.Errorf("model task %q cannot recognise recordings (known: %s)", m.Task, strings.Join(recognizerTasks, ", "))
}

// heardWordRecognizer is an isolated-word model's Recognizer: the
// recording as one word when the live segmenter hears one in it.
type heardWordRecognizer struct{ c *WordClassifier }

func (r heardWordRecognizer) Recognize(samples []float32, rate int) (Result, error) {
	heard, err := HeardWord(r.c.Config, DefaultSpotterConfig(), samples, rate)
	if err != nil || !heard {
		return Result{Final: true, EOS: true, NoSpeech: true}, err
	}
	return r.c.Recognize(samples, rate)
}

// NewLiveRecognizer prepares a model for recognising whole recordings the
// way the live pipeline hears a stream, so a recording gets the answer
// `rfstream stream` and `serve` give it: the recording goes through the
// model's streaming recogniser (a connected-word or phone model's
// ConnectedStream, a word model's WordSpotter, each with the pipeline's
// default segmentation) and its end-of-stream result is returned, with
// Conf the least sure word's. A word model then hears every word the
// segmenter finds, not the recording as one word (NewRecognizer).
//
// Only the end-of-stream result is read, so a connected-word or phone
// model's stream decodes no partial results: they would re-decode the open
// utterance from its start every PartialEveryMs (CMVN over the utterance
// needs its end), which made a long recording cost time quadratic in its
// length. The final results are the same, since partials change nothing
// the endpointer or the transcript keeps.
func NewLiveRecognizer(m *Model) (Recognizer, error) {
	start, err := newStreamStarter(m, true)
	if err != nil {
		return nil, err
	}
	return liveRecognizer{start: start}, nil
}

// liveRecognizer runs a fresh stream over each recording. The whole
// recording goes in one push: a stream's results depend only on its
// samples, never on how they were chunked.
type liveRecognizer struct {
	start StreamStarter
}

func (r liveRecognizer) Recognize(samples []float32, rate int) (Result, error) {
	s, err := r.start(rate)
	if err != nil {
		return Result{}, err
	}
	return endOfStream(s, samples)
}

// endOfStream pushes a whole recording through a fresh stream and returns
// its last result, with the string's confidence.
func endOfStream(s Stream, samples []float32) (Result, error) {
	out := append(s.Push(samples), s.Flush()...)
	res := out[len(out)-1]
	for _, e := range out {
		if e.Error != "" {
			return Result{}, errors.New(e.Error)
		}
	}
	res.Conf = leastSure(res.Words)
	return res, nil
}

// leastSure is a string's confidence: a string is only as sure as its
// least sure word. A rejected stretch is not part of the string; when all
// of it was rejected, the confidence is the least sure rejection's.
func leastSure(ws []Word) float64 {
	conf, found := 0.0, false
	for _, accepted := range []bool{true, false} {
		for _, w := range ws {
			if w.Rejected != accepted && (!found || w.Conf < conf) {
				conf, found = w.Conf, true
			}
		}
		if found {
			break
		}
	}
	return conf
}
