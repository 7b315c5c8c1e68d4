package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"slices"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/vosk"
	"github.com/rfstream/rfstream/streaming"
	"github.com/rfstream/rfstream/train"
)

func init() {
	register(&command{name: "recognize", summary: "recognise the word(s) in recordings (WAV, FLAC, Ogg, MP3, SPHERE files, or raw PCM on stdin with --rate)", run: runRecognize})
}

// recognition is what `rfstream recognize` prints for one recording.
type recognition struct {
	Text string  `json:"text"`
	Conf float64 `json:"conf"`
	// Alternatives are the best hypotheses, best first (the first is Text).
	Alternatives []engine.Hypothesis `json:"alternatives,omitempty"`
	// Words are the recognised words with their times and confidences,
	// from models that decode word sequences.
	Words []engine.Word `json:"words,omitempty"`
	// NoSpeech: the recogniser heard no word at all (silence, noise, a
	// few samples); Text is empty.
	NoSpeech bool    `json:"no_speech,omitempty"`
	Task     string  `json:"task"`
	Seconds  float64 `json:"seconds"` // duration of the recording
	// File names the recording when one call recognises several.
	File string `json:"file,omitempty"`
	// PhoneWords are --words' best-matching words of each stretch of phones.
	PhoneWords [][]string `json:"phone_words,omitempty"`
	// results are every result of the stream the recording was heard as,
	// for --format vosk's utterances; nil when it was not heard as one.
	results []engine.Result
}

// newRecognizer prepares a model for recognising recordings: the public
// package's Recognizer, so a Go program and this command give one answer.
// A test puts a recogniser of its own in its place.
var newRecognizer = func(m *engine.Model) (engine.Recognizer, error) {
	r, err := rfstream.NewRecognizer(m)
	if err != nil {
		return nil, err // not r: a nil *Recognizer is a non-nil interface
	}
	return r, nil
}

// recognitionOf is what recognize prints for a recogniser's result.
func recognitionOf(res engine.Result) recognition {
	return recognition{Text: res.Text, Conf: res.Conf, Alternatives: res.Alternatives, Words: res.Words, NoSpeech: res.NoSpeech}
}

func runRecognize(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("recognize", "FILE.wav… | - [flags]", stderr)
	rate := fs.Int("rate", 0, "the input is raw signed 16-bit little-endian mono PCM at this rate (Hz)")
	maxSeconds := fs.Float64("max-seconds", 600, "refuse a recording longer than this many seconds (raw PCM is read no further), so an endless input such as /dev/zero stops with an error instead of filling memory")
	modelPath := fs.String("model", "", "model file: a word, connected-word or phone model (default: the connected digit model in the data cache, as stream and serve use; trained on FSDD and espeak-ng voices when missing: minutes, 18 on a busy 2-core host)")
	asJSON := fs.Bool("json", false, "print one JSON object with text, conf, words (start, end, conf), no_speech or a word model's alternatives (one line per recording; with several, each names its file)")
	format := registerFormat(fs)
	adapt := fs.Bool("adapt", false, "the recordings are all one voice: adapt to it over all of them (its mean spectrum removed, then self-training) before deciding any; needs a word model trained with --self-train (default: the adaptable digit model in the data cache, trained on FSDD and synthetic voices when missing)")
	session := fs.Bool("session", false, "the recordings are one voice heard in this order: each is decided as it comes, normalised with the voice's mean spectrum estimated from it and those before it, and self-training at checkpoints (see --session-self-train) when the model can adapt (a live session); needs a model trained with --speaker-norm mean (default: the adaptable digit model)")
	sessionSelfTrain := fs.Bool("session-self-train", true, "with --session and a model that can adapt: once n = 10, 20, 40, … recordings have been heard, self-train on them as --adapt does, and decide from the (n + n/2)-th on with the result")
	voice := fs.String("voice", "", "the voice's name: a connected model hears it with what enroll taught it; with --session a word model's session goes on from what that voice's earlier recordings taught it (by enroll, this command or a serve --voices on the same folder) and is kept for the next")
	voices := fs.String("voices", "", "with --voice: the folder voices are kept in (as serve --voices; default: enroll's)")
	vocab := fs.String("words", "", `phone models: under the phones, the best-matching words of each stretch of speech among this word list's (one a line) or "all" (every word of --lexicon)`)
	lexicon := fs.String("lexicon", "", "with --words: the pronouncing dictionary (default: "+datasets.DefaultLexiconPath+", Debian's pocketsphinx-en-us)")
	wordCost := fs.Float64("word-cost", 0, "with --words: the cost of each word found, against 1 a phone left unexplained (0: 2, chosen on real words said alone; lower keeps the short words of sentences)")
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
	f, err := outputFormat(*format, *asJSON)
	if err != nil {
		return err
	}
	out := recognitionPrinter{w: stdout, format: f, batch: len(files) > 1}
	if *adapt && *session {
		return errors.New("recognize: --adapt or --session, not both")
	}
	if *voices != "" && *voice == "" {
		return errors.New("recognize: --voices names the folder of the --voice given")
	}
	if *voice != "" {
		if err := streaming.CheckName("voice", *voice); err != nil {
			return err
		}
		*voices = cmp.Or(*voices, defaults.TaughtVoicesDir())
	}
	if *maxSeconds <= 0 {
		return fmt.Errorf("recognize: --max-seconds %g: want a positive length", *maxSeconds)
	}
	in := input{rate: *rate, maxSeconds: *maxSeconds}
	if *adapt {
		return recognizeAdapted(files, in, *modelPath, out, stderr)
	}
	if *session {
		return recognizeSession(files, in, *modelPath, *sessionSelfTrain, storedVoice{*voices, *voice}, out, stderr)
	}
	var recognizer engine.Recognizer
	var streams streamRecognizer // for --format vosk: the utterances of a stream
	var task string
	var finder *decode.PhoneWords
	prepare := func() error {
		m, err := modelOr(*modelPath, stderr, defaults.Speech)
		if err != nil {
			return err
		}
		task = m.Task
		if finder, err = train.RecognizeWordFinder(task, *lexicon, *vocab, *wordCost, stderr); err != nil {
			return err
		}
		if *voice != "" {
			cv, err := engine.LoadTaughtVoice(m, *voices, *voice)
			if err != nil {
				return err
			}
			if recognizer = cv.Recognizer(); f == formatVosk {
				streams = streamsOf(cv.NewStream)
			}
			return nil
		}
		if f == formatVosk {
			if streams, err = newStreamRecognizer(m); err != nil || streams != nil {
				return err
			}
		}
		recognizer, err = newRecognizer(m)
		return err
	}
	failed, err := eachRecording(files, in, out.batch, stderr, prepare, func(path string, a *frontend.Audio) error {
		var results []engine.Result
		var res engine.Result
		var err error
		if streams != nil {
			if results, err = streams(a.Samples, a.Rate); err == nil {
				res = results[len(results)-1]
			}
		} else {
			res, err = recognizer.Recognize(a.Samples, a.Rate)
		}
		if err != nil {
			return err
		}
		rec := recognitionOf(res)
		rec.Task, rec.Seconds, rec.results = task, a.Duration(), results
		if finder != nil {
			rec.PhoneWords = train.PhoneStretchWords(finder, res.Words)
		}
		out.print(path, rec)
		if finder != nil && f == formatText {
			fmt.Fprintf(stdout, "words:\t%s\n", train.StretchText(rec.PhoneWords))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return failedError(failed, len(files))
}

// eachRecording reads the files in turn and hands each to use, calling
// prepare (the model) before the first that decodes, so a mistyped path
// or a malformed file costs no training. With several files, one that
// cannot be read or used is named on stderr and the rest go on (one bad
// recording must not cost the others their results); a single file's
// error, or prepare's, is returned. It returns how many files failed.
func eachRecording(files []string, in input, batch bool, stderr io.Writer, prepare func() error, use func(path string, a *frontend.Audio) error) (int, error) {
	prepared, failed := false, 0
	for _, path := range files {
		a, err := readRecording(path, in)
		if err == nil {
			if !prepared {
				if err := prepare(); err != nil {
					return failed, err // the model, not this recording: nothing else can be recognised
				}
				prepared = true
			}
			if err = use(path, a); err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
		if err != nil {
			if !batch {
				return failed, err
			}
			fmt.Fprintf(stderr, "rfstream recognize: %v\n", err)
			failed++
		}
	}
	return failed, nil
}

// input says how recordings are read: raw PCM at rate (0: WAV), and
// refused beyond maxSeconds.
type input struct {
	rate       int
	maxSeconds float64
}

// readRecording reads one recording and refuses an empty one.
func readRecording(path string, in input) (*frontend.Audio, error) {
	a, err := readAudioUpTo(path, in.rate, in.maxSeconds, stdin)
	if err == nil && len(a.Samples) == 0 {
		err = fmt.Errorf("%s: the recording holds no samples", path)
	}
	return a, err
}

func failedError(failed, total int) error {
	if failed > 0 {
		return fmt.Errorf("%d of %d recordings could not be recognised (named above)", failed, total)
	}
	return nil
}

// recognitionPrinter prints one recognition per line: the text and
// confidence, prefixed by the file when a call has several, or JSON (one
// line per utterance in Vosk's).
type recognitionPrinter struct {
	w      io.Writer
	format string // formatText, formatJSON or formatVosk
	batch  bool
}

func (p recognitionPrinter) print(path string, rec recognition) {
	if p.batch {
		rec.File = path
	}
	switch {
	case p.format == formatVosk:
		vp := vosk.Printer{W: p.w, File: rec.File}
		for _, r := range voskResults(rec) {
			vp.Add(r)
		}
		vp.End()
	case p.format == formatJSON:
		b, _ := json.Marshal(rec)
		fmt.Fprintln(p.w, string(b))
	case p.batch:
		fmt.Fprintf(p.w, "%s\t%s\t%s\n", path, rec.Text, rec.confidence())
	default:
		fmt.Fprintf(p.w, "%s\t%s\n", rec.Text, rec.confidence())
	}
}

// confidence is the plain output's last column: the confidence, or "no
// speech" or "not a digit" (speech rejected as no word of the model's)
// after the empty text.
func (rec recognition) confidence() string {
	if rec.NoSpeech {
		return "no speech"
	}
	if rec.Text == "" && slices.ContainsFunc(rec.Words, func(w engine.Word) bool { return w.Rejected }) {
		return "not a digit"
	}
	return fmt.Sprintf("%.0f%%", 100*rec.Conf)
}

// adaptableWordModel loads the model at path (default: the adaptable
// digit model) as an isolated-word classifier for flag.
func adaptableWordModel(path, flag string, stderr io.Writer) (*engine.WordClassifier, error) {
	m, err := modelOr(path, stderr, defaults.Adaptable)
	if err != nil {
		return nil, err
	}
	if m.Task != engine.TaskWords {
		return nil, fmt.Errorf("recognize %s: model task %q; it needs an isolated-word model (%q)", flag, m.Task, engine.TaskWords)
	}
	return engine.NewWordClassifier(m)
}

// storedVoice names a voice kept in a folder (recognize --voices, --voice);
// the zero value is none.
type storedVoice struct{ dir, name string }

// recognizeSession recognises recordings of one voice in order, each with
// the voice estimated from it and the ones before (rfstream.VoiceSession),
// self-training at the session's checkpoints unless selfTrain is false.
// With a stored voice the session starts from its file, when there is one,
// and is written back at the end.
func recognizeSession(files []string, in input, modelPath string, selfTrain bool, stored storedVoice, out recognitionPrinter, stderr io.Writer) error {
	var session *rfstream.VoiceSession
	var voicePath string
	prepare := func() error {
		m, err := modelOr(modelPath, stderr, defaults.Adaptable)
		if err != nil {
			return err
		}
		if m.Task != engine.TaskWords {
			return fmt.Errorf("recognize --session: model task %q; it needs an isolated-word model (%q)", m.Task, engine.TaskWords)
		}
		if m.Adapt == nil || !m.Adapt.VoiceNorm {
			return errors.New("recognize --session: the model does not normalise voices (train one with rfstream train digits --speaker-norm mean)")
		}
		if session, err = rfstream.NewVoiceSession(m); err != nil {
			return err
		}
		if stored.name != "" {
			if voicePath, err = rfstream.VoicePath(m, stored.dir, stored.name); err != nil {
				return err
			}
			switch kept, err := rfstream.LoadVoiceSession(m, voicePath); {
			case err == nil:
				session = kept
				fmt.Fprintf(stderr, "voice %q: going on from %d recordings (read-out self-trained on %d)\n", stored.name, session.Recordings(), session.AdaptedOn())
			case !errors.Is(err, iofs.ErrNotExist):
				return fmt.Errorf("voice %q: %w (move the file away to start the voice afresh)", stored.name, err)
			}
		}
		if !selfTrain {
			session.SetSelfTraining(false)
		}
		return nil
	}
	failed, err := eachRecording(files, in, out.batch, stderr, prepare, func(path string, a *frontend.Audio) error {
		adaptedOn := session.AdaptedOn()
		res, err := session.Recognize(a.Samples, a.Rate)
		if errors.Is(err, rfstream.ErrSelfTraining) {
			fmt.Fprintf(stderr, "rfstream recognize: %s: %v; the session goes on with its read-out\n", path, err)
		} else if err != nil {
			return err
		}
		if n := session.AdaptedOn(); n != adaptedOn {
			fmt.Fprintf(stderr, "session: from %s on, decided with the self-training on the first %d recordings\n", path, n)
		}
		rec := recognitionOf(res)
		rec.Task, rec.Seconds = engine.TaskWords, a.Duration()
		out.print(path, rec)
		return nil
	})
	if err != nil {
		return err
	}
	if voicePath != "" {
		if err := session.Save(voicePath); err != nil {
			return fmt.Errorf("voice %q: %w", stored.name, err)
		}
	}
	return failedError(failed, len(files))
}

// recognizeAdapted recognises recordings of one voice together: every
// recording is read first, then the word model adapts to the voice over
// all of them (engine.WordClassifier.AdaptToVoice) and decides each. A
// recording that cannot be read is named and left out; the others are
// adapted to and recognised without it.
func recognizeAdapted(files []string, in input, modelPath string, out recognitionPrinter, stderr io.Writer) error {
	var wc *engine.WordClassifier
	prepare := func() error {
		var err error
		if wc, err = adaptableWordModel(modelPath, "--adapt", stderr); err != nil {
			return err
		}
		if !wc.CanAdapt() {
			return errors.New("recognize --adapt: the model cannot adapt (train one with rfstream train digits --speaker-norm mean --self-train FRACTIONS)")
		}
		return nil
	}
	var paths []string
	var seconds []float64
	var rows [][]float32
	failed, err := eachRecording(files, in, out.batch, stderr, prepare, func(path string, a *frontend.Audio) error {
		v, err := wc.RawVector(a)
		if err != nil {
			return err
		}
		paths, seconds, rows = append(paths, path), append(seconds, a.Duration()), append(rows, v)
		return nil
	})
	if err != nil {
		return err
	}
	if n := len(rows); n > 0 && n < len(wc.Model.Labels) {
		// The voice is estimated from these recordings alone; from one, its
		// mean spectrum is mostly its word's (experiments/journal/audio.md: 66.7 % against
		// 79.1 % one at a time on FSDD's held-out voices).
		fmt.Fprintf(stderr, "rfstream recognize: adapting to %d recording(s) of the voice; it was measured from %d (one per word) up, and --session suits a few\n", n, len(wc.Model.Labels))
	}
	if len(rows) > 0 {
		x := linalg.NewGeneral32(len(rows), len(rows[0]))
		for i, v := range rows {
			copy(linalg.Row32(x, i), v)
		}
		res, err := wc.AdaptToVoice(x)
		if err != nil {
			return err
		}
		for i, r := range res.Rounds {
			fmt.Fprintf(stderr, "adaptation round %d: %d of %d recordings (%.0f%% per class) as training, %d decisions changed\n",
				i+1, r.Picked, len(rows), 100*r.Fraction, r.Changed)
		}
		for i, path := range paths {
			rec := recognitionOf(wc.ResultOf(linalg.Row32(res.Scores, i)))
			rec.Task, rec.Seconds = engine.TaskWords, seconds[i]
			out.print(path, rec)
		}
	}
	return failedError(failed, len(files))
}
