// Package vosk speaks the JSON of the Vosk speech server (alphacep's
// vosk-server and the Vosk API's recognisers), so clients written for
// Vosk read rfstream's results unchanged: a partial hypothesis is
// {"partial": "..."}, a closed utterance {"result": [{"conf", "end",
// "start", "word"}, ...], "text": "..."}. It also reads the text messages
// a Vosk WebSocket client sends (Control).
//
// rfstream's results carry every word of the stream so far; Vosk's carry
// one utterance each. Transcript turns the first into the second.
package vosk

import (
	"strings"

	"github.com/rfstream/rfstream/engine"
)

// Word is one word of a result, with its times in seconds from the start
// of the stream and its confidence in [0, 1].
type Word struct {
	Conf  float64 `json:"conf"`
	End   float64 `json:"end"`
	Start float64 `json:"start"`
	Word  string  `json:"word"`
}

// Result is a closed utterance. Words is nil when the client asked for no
// word list ({"config": {"words": false}}), and the key is then left out,
// as Vosk does; otherwise it is present, empty for an empty utterance.
type Result struct {
	Words []Word `json:"result,omitzero"`
	Text  string `json:"text"`
	// File names the recording when `rfstream recognize` prints several
	// (not a Vosk key; Vosk clients ignore keys they do not know).
	File string `json:"file,omitempty"`
}

// Partial is the open utterance's hypothesis so far.
type Partial struct {
	Partial string `json:"partial"`
}

// Transcript follows one stream's rfstream results (each with all words
// so far) and hands out Vosk messages that give each word once: a Result
// with the words closed since the last one, or a Partial with the words
// of the utterance still open.
type Transcript struct {
	// NoWords leaves the word list out of Results (Vosk's "words": false).
	NoWords bool
	closed  []engine.Word // words of the closed utterances
	open    []engine.Word // the open utterance's words, from the latest partial
	given   int           // how many of closed have been handed out
}

// Add takes the stream's next result. Results must come in the stream's
// order (the pipeline publishes them so); an error result is taken like
// any other, its words being the stream's so far.
func (t *Transcript) Add(r engine.Result) {
	if r.Final || r.EOS {
		if len(r.Words) >= len(t.closed) {
			t.closed = append(t.closed[:0], r.Words...)
		}
		t.open = nil
		return
	}
	if len(r.Words) >= len(t.closed) {
		t.open = append(t.open[:0], r.Words[len(t.closed):]...)
	}
}

// Take returns the words closed since the last Take as one Result, and
// false when there are none.
func (t *Transcript) Take() (Result, bool) {
	if t.given >= len(t.closed) {
		return Result{}, false
	}
	res := t.result(t.closed[t.given:])
	t.given = len(t.closed)
	return res, true
}

// Next is the answer to one chunk of audio, as Vosk answers every chunk:
// the words closed since the last answer, or else the open utterance's
// partial hypothesis (empty when none is open).
func (t *Transcript) Next() any {
	if res, ok := t.Take(); ok {
		return res
	}
	return Partial{Partial: text(t.open)}
}

// Final is the answer to the end of the stream: every word not yet handed
// out, the open utterance's among them once the stream's end-of-stream
// result closed it; possibly empty.
func (t *Transcript) Final() Result {
	if res, ok := t.Take(); ok {
		return res
	}
	return t.result(nil)
}

func (t *Transcript) result(words []engine.Word) Result {
	res := Result{Text: text(words)}
	if !t.NoWords {
		res.Words = make([]Word, len(words))
		for i, w := range words {
			res.Words[i] = Word{Conf: w.Conf, End: w.End, Start: w.Start, Word: w.Word}
		}
	}
	return res
}

// text joins words with spaces, as rfstream's own results do.
func text(words []engine.Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Word
	}
	return strings.Join(parts, " ")
}
