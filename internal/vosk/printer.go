package vosk

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rfstream/rfstream/engine"
)

// Printer prints one stream's results as Vosk prints a recognition
// (`recognize` and `stream --format vosk`): one result object per
// utterance, each word once (Transcript), and an empty result for a stream
// in which no utterance held a word, so every recording prints at least
// one line.
type Printer struct {
	W       io.Writer
	File    string // names the recording when recognize prints several
	tr      Transcript
	printed int
}

// Add takes the stream's next result; a final one prints the utterance it
// closed, when it holds words.
func (p *Printer) Add(r engine.Result) {
	p.tr.Add(r)
	if !r.Final && !r.EOS {
		return
	}
	if res, ok := p.tr.Take(); ok {
		p.print(res)
	}
}

// End prints the empty result when nothing was printed.
func (p *Printer) End() {
	if p.printed == 0 {
		p.print(p.tr.Final())
	}
}

func (p *Printer) print(res Result) {
	res.File = p.File
	b, _ := json.Marshal(res)
	fmt.Fprintln(p.W, string(b))
	p.printed++
}
