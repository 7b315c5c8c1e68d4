package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
)

func init() {
	register(&command{name: "recognize", summary: "recognise the word(s) in recordings (WAV files, or raw PCM on stdin with --rate)", run: runRecognize})
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
	// File names the recording when one call recognises several.
	File string `json:"file,omitempty"`
}

// recognizer prepares a model of one task for recognising recordings:
// whatever the model needs built (its feature map, its decoder) is built
// once, and the function it returns is called for every recording.
type recognizer func(m *rfstream.Model) (func(a *frontend.Audio) (recognition, error), error)

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
func recognizeWord(m *rfstream.Model) (func(a *frontend.Audio) (recognition, error), error) {
	wc, err := rfstream.NewWordClassifier(m)
	if err != nil {
		return nil, err
	}
	return func(a *frontend.Audio) (recognition, error) {
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
	}, nil
}

func runRecognize(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("recognize", "FILE.wav… | - [flags]", stderr)
	rate := fs.Int("rate", 0, "the input is raw signed 16-bit little-endian mono PCM at this rate (Hz)")
	modelPath := fs.String("model", "", "model file (default: the digit model in the data cache, trained on FSDD when missing)")
	asJSON := fs.Bool("json", false, "print one JSON object with text, conf and alternatives (one line per recording; with several, each names its file)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		fs.Usage()
		return errUsage
	}
	if len(files) > 1 && slices.Contains(files, "-") {
		return errors.New("recognize: - (standard input) must be the only recording")
	}
	// The model is loaded (or the default one trained) on the first
	// recording that decodes, so a mistyped path or a malformed file costs
	// no training.
	var recognize func(*frontend.Audio) (recognition, error)
	var task string
	prepare := func() error {
		var m *rfstream.Model
		var err error
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
		task = m.Task
		recognize, err = fn(m)
		return err
	}
	batch := len(files) > 1
	failed := 0
	for _, path := range files {
		a, err := readAudio(path, *rate, stdin)
		if err == nil && len(a.Samples) == 0 {
			err = fmt.Errorf("%s: the recording holds no samples", path)
		}
		var rec recognition
		if err == nil {
			if recognize == nil {
				if err := prepare(); err != nil {
					return err // the model, not this recording: nothing else can be recognised
				}
			}
			if rec, err = recognize(a); err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
		if err != nil {
			if !batch {
				return err
			}
			// One bad recording must not cost the others their results.
			fmt.Fprintf(stderr, "rfstream recognize: %v\n", err)
			failed++
			continue
		}
		rec.Task, rec.Seconds = task, a.Duration()
		if batch {
			rec.File = path
		}
		switch {
		case *asJSON:
			b, _ := json.Marshal(rec)
			fmt.Fprintln(stdout, string(b))
		case batch:
			fmt.Fprintf(stdout, "%s\t%s\t%.0f%%\n", path, rec.Text, 100*rec.Conf)
		default:
			fmt.Fprintf(stdout, "%s\t%.0f%%\n", rec.Text, 100*rec.Conf)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d recordings could not be recognised (named above)", failed, len(files))
	}
	return nil
}
