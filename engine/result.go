package engine

import (
	"math"
	"sort"
)

// Result is what a recogniser reports: a partial hypothesis while a word
// is being spoken, a final one when it is closed, and a last one with EOS
// set when the stream has ended. Text is all final words so far, space
// separated, plus the open word in a partial. A Recognizer, which hears a
// whole recording, reports only the last.
type Result struct {
	Text  string `json:"text"`
	Final bool   `json:"final"`
	EOS   bool   `json:"eos,omitempty"`
	// Words are the recognised words with their times. A whole-word
	// classifier (WordClassifier.Recognize) does not time its word and
	// leaves them empty.
	Words []Word `json:"words"`
	// Conf is a Recognizer's confidence in the whole result: the word's
	// for an isolated word, the least sure word's for a string. Stream
	// results leave it 0, their confidences are their words'.
	Conf float64 `json:"conf,omitempty"`
	// Alternatives are a whole-word classifier's best hypotheses, best
	// first (the first is Text).
	Alternatives []Hypothesis `json:"alternatives,omitempty"`
	// Error is set on an error result; the stream can go on.
	Error string `json:"error,omitempty"`
	// NoSpeech is set on the end-of-stream result (and a Recognizer's)
	// when nothing in the stream was heard as a word: the segmenter found
	// no word in it, or the decoder found only silence where it found
	// one. Text is then empty. It is the recogniser's own evidence, not a
	// threshold on confidences.
	NoSpeech bool `json:"no_speech,omitempty"`
	// Voice is set on the end-of-stream result of a voice-normalised
	// word model: what the stream's voice session has learnt so far.
	Voice *VoiceProgress `json:"voice,omitempty"`
	// Gaps are the stretches of a stream whose segments never reached the
	// decoder (lost between the stages): the words around them are kept,
	// and a result with a gap is never NoSpeech, since what the gap held is
	// unknown. Set on the error result that reports a gap and on the
	// end-of-stream result, which lists them all.
	Gaps []Gap `json:"gaps,omitempty"`
}

// Gap is a stretch of a stream, in seconds from its start, that a
// recogniser could not hear, and why. End is nil when nothing after the
// gap arrived and the stream's length is unknown either.
type Gap struct {
	Start  float64  `json:"start"`
	End    *float64 `json:"end,omitempty"`
	Reason string   `json:"reason"`
}

// Word is one recognised word with its times in seconds from the start of
// the stream.
type Word struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Conf  float64 `json:"conf"`
	// Spoken is how the word was said when the model knows more than one
	// way of saying it: a model with an "oh" unit (OhLabel) prints both
	// "oh" and "zero" as the digit 0 and says here which was heard ("oh"
	// or "zero"). Empty for every other word, and for every word of a model
	// with one spoken form per word.
	Spoken string `json:"spoken,omitempty"`
	// Rejected marks speech the recogniser heard as none of its words
	// (for the digit model: not a digit); Word is then RejectedWord, the
	// times are the rejected stretch's and Conf the filler's confidence.
	// Rejected words are not in Text.
	Rejected bool `json:"rejected,omitempty"`
}

// VoiceProgress is how far a voice session has come: the recordings it
// has committed (every stream's of a named voice) and how many of them
// the read-out in use was self-trained on (0: the model's own).
type VoiceProgress struct {
	Recordings int `json:"recordings"`
	AdaptedOn  int `json:"adapted_on"`
}

// Hypothesis is a recognised word with a confidence in [0, 1].
type Hypothesis struct {
	Label string  `json:"label"`
	Conf  float64 `json:"conf"`
}

// Confidence turns one row of one-vs-rest RLS scores into a number in
// [0, 1]: a softmax over the scores at a temperature that makes a margin of
// one target unit (the ±1 coding) worth a factor e⁴. It ranks hypotheses; it
// is not a calibrated probability.
func Confidence(scores []float32, best int) float64 {
	const temp = 0.25
	var sum float64
	for _, s := range scores {
		sum += math.Exp((float64(s) - float64(scores[best])) / temp)
	}
	return 1 / sum
}

// Tag is one label with its confidence.
type Tag struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// TopK returns the k best labels of one score row with confidences that
// sum to at most one (see Confidence).
func TopK(scores []float32, labels []string, k int) []Tag {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	k = min(max(k, 1), len(idx))
	tags := make([]Tag, k)
	for i := 0; i < k; i++ {
		tags[i] = Tag{Label: labels[idx[i]], Score: Confidence(scores, idx[i])}
	}
	return tags
}
