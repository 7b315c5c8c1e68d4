package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/rfstream/rfstream/engine"
)

// The output formats of recognize and stream (--format).
const (
	formatText = "text"
	formatJSON = "json" // also --json
	formatVosk = "vosk" // the Vosk speech server's result JSON
)

// registerFormat adds --format to a command that already has --json.
func registerFormat(fs *flag.FlagSet) *string {
	return fs.String("format", formatText, `output: "text", "json" (as --json) or "vosk": the Vosk speech server's JSON, one {"result": [{"conf", "end", "start", "word"}…], "text"} line per utterance, so tools written for Vosk read it (docs/commands.md)`)
}

// outputFormat reconciles --format and --json.
func outputFormat(format string, asJSON bool) (string, error) {
	switch {
	case format != formatText && format != formatJSON && format != formatVosk:
		return "", fmt.Errorf("--format %q: want text, json or vosk", format)
	case asJSON && format == formatVosk:
		return "", errors.New("--json and --format vosk: give one")
	case asJSON:
		return formatJSON, nil
	}
	return format, nil
}

// streamRecognizer hears a recording as the live pipeline hears a stream
// and returns every result, so the utterances the endpointer cut can be
// printed one by one; it is engine.NewLiveRecognizer's recogniser,
// which returns only the last result.
type streamRecognizer func(samples []float32, rate int) ([]engine.Result, error)

// newStreamRecognizer is the streamRecognizer of a connected-word or
// phone model; nil for a word model, which recognize hears as one word
// (newRecognizer), not as a stream.
func newStreamRecognizer(m *engine.Model) (streamRecognizer, error) {
	if m.Task != engine.TaskConnected && m.Task != engine.TaskPhones {
		return nil, nil
	}
	start, err := engine.NewStreamStarter(m)
	if err != nil {
		return nil, err
	}
	return streamsOf(start), nil
}

// streamsOf is the streamRecognizer of streams start starts.
func streamsOf(start engine.StreamStarter) streamRecognizer {
	return func(samples []float32, rate int) ([]engine.Result, error) {
		s, err := start(rate)
		if err != nil {
			return nil, err
		}
		out := append(s.Push(samples), s.Flush()...)
		for _, r := range out {
			if r.Error != "" {
				return nil, errors.New(r.Error)
			}
		}
		return out, nil
	}
}

// voskResults are the results printVosk prints for a recognition: the
// stream's, when it was heard as one, else its one result, a word model's
// single untimed word spanning the recording.
func voskResults(rec recognition) []engine.Result {
	if rec.results != nil {
		return rec.results
	}
	words := rec.Words
	if len(words) == 0 && rec.Text != "" && !rec.NoSpeech {
		words = []engine.Word{{Word: rec.Text, Start: 0, End: rec.Seconds, Conf: rec.Conf}}
	}
	return []engine.Result{{Text: rec.Text, Final: true, EOS: true, Words: words}}
}
