package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/vosk"
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

// voskPrinter prints one stream's results as Vosk prints a recognition:
// one result object per utterance, each word once (vosk.Transcript), and
// an empty result for a stream in which no utterance held a word, so every
// recording prints at least one line.
type voskPrinter struct {
	w       io.Writer
	file    string // names the recording when recognize prints several
	tr      vosk.Transcript
	printed int
}

// add takes the stream's next result; a final one prints the utterance it
// closed, when it holds words.
func (p *voskPrinter) add(r engine.Result) {
	p.tr.Add(r)
	if !r.Final && !r.EOS {
		return
	}
	if res, ok := p.tr.Take(); ok {
		p.print(res)
	}
}

// end prints the empty result when nothing was printed.
func (p *voskPrinter) end() {
	if p.printed == 0 {
		p.print(p.tr.Final())
	}
}

func (p *voskPrinter) print(res vosk.Result) {
	res.File = p.file
	b, _ := json.Marshal(res)
	fmt.Fprintln(p.w, string(b))
	p.printed++
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
	}, nil
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
