package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
)

func init() {
	register(&command{name: "recognize", summary: "recognise the word(s) in one recording (WAV, or raw PCM with --rate)", run: runRecognize})
	registerRecognizer(rfstream.TaskWords, recognizeWord)
}

// recognition is what `rfstream recognize` prints for one recording.
type recognition struct {
	Text string  `json:"text"`
	Conf float64 `json:"conf"`
	// Alternatives are the best hypotheses, best first (the first is Text).
	Alternatives []rfstream.Hypothesis `json:"alternatives,omitempty"`
	// Words are the recognised words with their times and confidences,
	// from models that decode word sequences.
	Words   []rfstream.Word `json:"words,omitempty"`
	Task    string          `json:"task"`
	Seconds float64         `json:"seconds"` // duration of the recording
}

// recognizer recognises one recording with a model of one task.
type recognizer func(m *rfstream.Model, a *frontend.Audio) (recognition, error)

// recognizers maps a Model.Task to its recognizer. Each kind of model (an
// isolated-word model here; a connected-digit or phone model elsewhere)
// registers its own from its own file, so `recognize` needs no edit.
var recognizers = map[string]recognizer{}

func registerRecognizer(task string, fn recognizer) {
	if _, dup := recognizers[task]; dup {
		panic("rfstream: recognizer registered twice for task " + task)
	}
	recognizers[task] = fn
}

func recognizerTasks() []string {
	var out []string
	for t := range recognizers {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// recognizeWord classifies the whole recording as one word.
func recognizeWord(m *rfstream.Model, a *frontend.Audio) (recognition, error) {
	wc, err := rfstream.NewWordClassifier(m)
	if err != nil {
		return recognition{}, err
	}
	h, scores, err := wc.Classify(a)
	if err != nil {
		return recognition{}, err
	}
	rec := recognition{Text: h.Label, Conf: h.Conf}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	for _, i := range order[:min(3, len(order))] {
		rec.Alternatives = append(rec.Alternatives, rfstream.Hypothesis{Label: m.Labels[i], Conf: rfstream.Confidence(scores, i)})
	}
	return rec, nil
}

func runRecognize(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("recognize", "FILE.wav|- [flags]", stderr)
	rate := fs.Int("rate", 0, "the input is raw signed 16-bit little-endian mono PCM at this rate (Hz)")
	modelPath := fs.String("model", "", "model file (default: the digit model in the data cache, trained on FSDD when missing)")
	asJSON := fs.Bool("json", false, "print one JSON object with text, conf and alternatives")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	a, err := readAudio(fs.Arg(0), *rate, stdin)
	if err != nil {
		return err
	}
	if len(a.Samples) == 0 {
		return fmt.Errorf("%s: the recording holds no samples", fs.Arg(0))
	}
	var m *rfstream.Model
	if *modelPath != "" {
		m, err = rfstream.LoadModel(*modelPath)
	} else {
		m, err = defaultDigitWordModel(stderr)
	}
	if err != nil {
		return err
	}
	fn, ok := recognizers[m.Task]
	if !ok {
		return fmt.Errorf("model task %q cannot recognise recordings (known: %s)", m.Task, strings.Join(recognizerTasks(), ", "))
	}
	rec, err := fn(m, a)
	if err != nil {
		return err
	}
	rec.Task, rec.Seconds = m.Task, a.Duration()
	if *asJSON {
		b, _ := json.Marshal(rec)
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	fmt.Fprintf(stdout, "%s\t%.0f%%\n", rec.Text, 100*rec.Conf)
	return nil
}
