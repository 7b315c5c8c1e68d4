// Package enrol is `rfstream enroll`: it takes a person's recordings of
// known words, prompted and recorded or listed in a manifest, checks that
// each is a word heard clearly, and teaches them to the voice's file of
// every model given (rfstream.VoiceSession.Teach), each file changed under
// its lock and replaced whole.
package enrol

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/streaming"
)

// A recording of a word to teach.
type Recording struct {
	Path, Label string
	Samples     []float32
	Rate        int
}

// Prompts are the words a person is asked to say: every digit once in an
// order drawn with seed, then "oh" when a model has it.
func Prompts(models []*rfstream.Model, seed uint64) []string {
	digits := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	rand.New(rand.NewPCG(seed, 0x5eed)).Shuffle(len(digits), func(i, j int) { digits[i], digits[j] = digits[j], digits[i] })
	for _, m := range models {
		if slices.Contains(m.Labels, engine.OhLabel) {
			return append(digits, engine.OhLabel)
		}
	}
	return digits
}

// FromManifest reads the recordings a manifest lists (path, a tab, the
// word; the format `rfstream train` reads). A label no model has is
// refused by name before anything is read; a recording that is not a word
// heard clearly (engine.CheckTeachable) is reported to log and left out.
func FromManifest(path string, models []*rfstream.Model, log io.Writer) ([]Recording, error) {
	recs, err := datasets.ReadManifest(path)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if !inSomeModel(models, r.Label) {
			return nil, fmt.Errorf("%s: %q is %w of any model taught (%s)", r.Path, r.Label, engine.ErrNotInVocabulary, strings.Join(vocabulary(models), " "))
		}
	}
	var out []Recording
	for _, r := range recs {
		samples, rate, err := rfstream.ReadAudio(r.Path)
		if err != nil {
			return nil, err
		}
		if err := engine.CheckTeachable(samples, rate); err != nil {
			fmt.Fprintf(log, "%s (%s): %v; not learnt\n", r.Path, r.Label, err)
			continue
		}
		out = append(out, Recording{Path: r.Path, Label: r.Label, Samples: samples, Rate: rate})
	}
	return out, nil
}

// RecordTries is how many times a prompt is asked before enrolment gives up.
const RecordTries = 3

// FromMicrophone prompts each word on out, waits for Enter on in, records
// it with record (Sox) into a file in dir, and asks again, saying why, when
// the recording is not a word heard clearly.
func FromMicrophone(prompts []string, dir string, record func(path string) error, in io.Reader, out io.Writer) ([]Recording, error) {
	var recs []Recording
	lines := bufio.NewReader(in)
	for i, word := range prompts {
		for try := 1; ; try++ {
			fmt.Fprintf(out, "(%d/%d) press Enter, then say %q", i+1, len(prompts), word)
			if word == "0" {
				fmt.Fprint(out, ` ("zero")`)
			}
			fmt.Fprintln(out)
			if _, err := lines.ReadString('\n'); err != nil {
				return nil, fmt.Errorf("waiting for Enter: %w", err)
			}
			path := filepath.Join(dir, fmt.Sprintf("%02d-%s.wav", i, word))
			if err := record(path); err != nil {
				return nil, err
			}
			samples, rate, err := rfstream.ReadAudio(path)
			if err == nil {
				err = engine.CheckTeachable(samples, rate)
			}
			if err == nil {
				recs = append(recs, Recording{Path: path, Label: word, Samples: samples, Rate: rate})
				break
			}
			if try == RecordTries {
				return nil, fmt.Errorf("%q, %d times: %w", word, try, err)
			}
			fmt.Fprintf(out, "  %v: again, please\n", err)
		}
	}
	return recs, nil
}

// RecordSeconds is how long each prompted word is recorded.
const RecordSeconds = 2.5

// Sox records RecordSeconds from the default sound device into path
// (`sox -d`), 16 kHz mono.
func Sox(path string) error {
	if _, err := exec.LookPath("sox"); err != nil {
		return errors.New("recording needs sox (apt-get install sox); or give --manifest")
	}
	cmd := exec.Command("sox", "-q", "-d", "-r", "16000", "-c", "1", "-b", "16", path, "trim", "0", fmt.Sprint(RecordSeconds))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("sox -d (no sound device? give --manifest): %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Taught is what teaching did to one model's voice file.
type Taught struct {
	Path          string
	Learnt, Holds int // words learnt now; words the voice holds in all
}

// Teach teaches the recordings to the voice named voice of each model, in
// the voice folder dir: under the file's lock (engine.LockVoice), the file
// is read (or the voice started), taught the recordings of the model's
// words and replaced whole, so an enrolment stopped halfway leaves it as it
// was and two at once both count. A model without one of the words is
// taught the others.
func Teach(models []*rfstream.Model, dir, voice string, recs []Recording) ([]Taught, error) {
	var out []Taught
	for _, m := range models {
		t, err := teachModel(m, dir, voice, recs)
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
	return out, nil
}

func teachModel(m *rfstream.Model, dir, voice string, recs []Recording) (Taught, error) {
	path, err := rfstream.VoicePath(m, dir, voice)
	if err != nil {
		return Taught{}, err
	}
	unlock, err := engine.LockVoice(path)
	if err != nil {
		return Taught{}, err
	}
	defer unlock()
	s, err := rfstream.LoadVoiceSession(m, path)
	if errors.Is(err, fs.ErrNotExist) {
		s, err = rfstream.NewVoiceSession(m)
	}
	if err != nil {
		return Taught{}, fmt.Errorf("voice %q: %w (rfstream forget %s --voices %s starts it afresh)", voice, err, voice, dir)
	}
	t := Taught{Path: path}
	for _, r := range recs {
		if !slices.Contains(m.Labels, r.Label) {
			continue
		}
		if err := s.Teach(r.Samples, r.Rate, r.Label); err != nil {
			return Taught{}, fmt.Errorf("%s: %w", r.Path, err)
		}
		t.Learnt++
	}
	t.Holds = s.Taught()
	if t.Learnt == 0 {
		return t, nil
	}
	return t, s.Save(path)
}

func inSomeModel(models []*rfstream.Model, label string) bool {
	return slices.Contains(vocabulary(models), label)
}

// vocabulary is the words any of the models can be taught, sorted.
func vocabulary(models []*rfstream.Model) []string {
	var out []string
	for _, m := range models {
		for _, l := range m.Labels {
			if l != engine.FillerLabel && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Options are `rfstream enroll`'s.
type Options struct {
	Voice, Dir string // the voice's name and its voice folder
	Manifest   string // the recordings to teach; "": prompt and record
	Seed       uint64 // the prompts' order
	Record     func(path string) error
	In         io.Reader // Enter, when prompting
	Out, Log   io.Writer
}

// Run teaches the voice to both default speech models (the connected
// model and the adaptable word model), from a manifest or prompted
// recordings, and says what each learnt.
func Run(o Options) error {
	if err := streaming.CheckName("voice", o.Voice); err != nil {
		return err
	}
	var models []*rfstream.Model
	for _, task := range []string{rfstream.TaskConnected, rfstream.TaskWords} {
		m, err := rfstream.DefaultModel(task)
		if err != nil {
			return err
		}
		models = append(models, m)
	}
	var recs []Recording
	var err error
	if o.Manifest != "" {
		recs, err = FromManifest(o.Manifest, models, o.Log)
	} else {
		dir, e := os.MkdirTemp("", "rfstream-enroll-")
		if e != nil {
			return e
		}
		defer os.RemoveAll(dir)
		recs, err = FromMicrophone(Prompts(models, o.Seed), dir, o.Record, o.In, o.Out)
	}
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return errors.New("no recording to learn from")
	}
	taught, err := Teach(models, o.Dir, o.Voice, recs)
	for i, t := range taught {
		fmt.Fprintf(o.Out, "%s model: learnt %d words of voice %q (it holds %d) in %s\n", models[i].Task, t.Learnt, o.Voice, t.Holds, t.Path)
	}
	return err
}

// PageTeacher is the web page's teaching (web.Config.Teach) for a serve
// whose connected model c runs in this process and keeps voices in dir: a
// recording heard clearly is taught to the voice's file of that model (as
// Teach does, under its lock), and the words the voice holds are
// returned. Nil when there is no connected model or no folder.
func PageTeacher(c *engine.Connected, dir string) func(voice, word string, samples []float32, rate int) (int, error) {
	if c == nil || dir == "" {
		return nil
	}
	m := c.Model
	return func(voice, word string, samples []float32, rate int) (int, error) {
		if !slices.Contains(vocabulary([]*rfstream.Model{m}), word) {
			return 0, fmt.Errorf("%q is %w (%s)", word, engine.ErrNotInVocabulary, strings.Join(vocabulary([]*rfstream.Model{m}), " "))
		}
		if err := engine.CheckTeachable(samples, rate); err != nil {
			return 0, err
		}
		t, err := teachModel(m, dir, voice, []Recording{{Path: "the page's recording", Label: word, Samples: samples, Rate: rate}})
		return t.Holds, err
	}
}
