package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

func writeWAV(t *testing.T, path string, x []float32) {
	t.Helper()
	var b bytes.Buffer
	if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: 8000, Samples: x}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// upWord and downWord are the toy word model's two words with silence around.
func upWord(seed uint32) []float32 {
	return append(append(toymodels.Noise(800, seed), toymodels.Glide(400, 1500, 0.35, seed)...), toymodels.Noise(800, seed+1)...)
}

func downWord(seed uint32) []float32 {
	return append(append(toymodels.Noise(800, seed), toymodels.Glide(1500, 400, 0.35, seed)...), toymodels.Noise(800, seed+1)...)
}

func recognizeJSON(t *testing.T, args ...string) recognition {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"recognize", "--json"}, args...), &out, &errb); code != 0 {
		t.Fatalf("recognize %v: exit %d: %s", args, code, errb.String())
	}
	var r recognition
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("recognize %v printed %q: %v", args, out.String(), err)
	}
	return r
}

// toyWordModelFile saves the toy up/down word model in a fresh folder and
// returns the folder and the model's path.
func toyWordModelFile(t *testing.T) (dir, model string) {
	t.Helper()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	model = filepath.Join(dir, "updown.rfm")
	if err := engine.SaveModel(model, words.Model); err != nil {
		t.Fatal(err)
	}
	return dir, model
}

func TestRecognizeWAVAndRawPCM(t *testing.T) {
	dir, model := toyWordModelFile(t)
	for i, c := range []struct {
		want string
		x    []float32
	}{{"up", upWord(501)}, {"down", downWord(502)}} {
		wav := filepath.Join(dir, fmt.Sprintf("w%d.wav", i))
		writeWAV(t, wav, c.x)
		r := recognizeJSON(t, wav, "--model", model)
		if r.Text != c.want || r.Task != engine.TaskWords || r.Conf <= 0.5 || r.Conf > 1 {
			t.Fatalf("%s: %+v, want text %q with confidence above one half", wav, r, c.want)
		}
		if len(r.Alternatives) != 2 || r.Alternatives[0].Label != c.want || r.Alternatives[0].Conf != r.Conf {
			t.Fatalf("%s: alternatives %+v do not start with the answer", wav, r.Alternatives)
		}
		// The same samples as raw s16le PCM on standard input.
		pcm := make([]byte, 2*len(c.x))
		for j, v := range c.x {
			binary.LittleEndian.PutUint16(pcm[2*j:], uint16(int16(v*32767)))
		}
		stdin = bytes.NewReader(pcm)
		raw := recognizeJSON(t, "-", "--rate", "8000", "--model", model)
		stdin = os.Stdin
		if raw.Text != c.want || raw.Seconds != float64(len(c.x))/8000 {
			t.Fatalf("raw PCM: %+v, want %q over %.3f s", raw, c.want, float64(len(c.x))/8000)
		}
	}
	// Plain output: the word and its confidence.
	var out, errb bytes.Buffer
	if code := run([]string{"recognize", "--model", model, filepath.Join(dir, "w1.wav")}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "down\t") {
		t.Fatalf("plain output %q (exit %d, %s)", out.String(), code, errb.String())
	}
}

// Several recordings in one call: the model is prepared once, each
// recording gets the result it gets alone, named by its file, and a bad
// one is reported without costing the others theirs.
func TestRecognizeSeveralFiles(t *testing.T) {
	dir, model := toyWordModelFile(t)
	up, down, bad := filepath.Join(dir, "up.wav"), filepath.Join(dir, "down.wav"), filepath.Join(dir, "bad.wav")
	writeWAV(t, up, upWord(601))
	writeWAV(t, down, downWord(602))
	os.WriteFile(bad, []byte("RIFF but nothing else"), 0o644)
	alone := map[string]recognition{up: recognizeJSON(t, up, "--model", model), down: recognizeJSON(t, down, "--model", model)}

	var out, errb bytes.Buffer
	code := run([]string{"recognize", "--json", "--model", model, down, bad, up}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), bad) || !strings.Contains(errb.String(), "1 of 3 recordings") {
		t.Fatalf("a bad file among three: exit %d, stderr %q", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want the two good recordings' lines in order, got %q", out.String())
	}
	for i, path := range []string{down, up} {
		var r recognition
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		want := alone[path]
		want.File = path
		if r.File != path || r.Text != want.Text || r.Conf != want.Conf || r.Seconds != want.Seconds {
			t.Fatalf("line %d: %+v, want %+v as recognised alone", i, r, want)
		}
	}

	out.Reset()
	errb.Reset()
	if code := run([]string{"recognize", "--model", model, up, down}, &out, &errb); code != 0 {
		t.Fatalf("plain: exit %d, %s", code, errb.String())
	}
	if want := fmt.Sprintf("%s\tup\t%.0f%%\n%s\tdown\t%.0f%%\n", up, 100*alone[up].Conf, down, 100*alone[down].Conf); out.String() != want {
		t.Fatalf("plain output %q, want %q", out.String(), want)
	}

	// Standard input cannot be one of several; a model that cannot be
	// loaded stops the batch at once rather than failing every file.
	errb.Reset()
	if code := run([]string{"recognize", "--model", model, up, "-"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "only recording") {
		t.Fatalf("- among files: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"recognize", "--model", filepath.Join(dir, "missing.rfm"), up, down}, &out, &errb); code != 1 || strings.Count(errb.String(), "missing.rfm") != 1 {
		t.Fatalf("missing model: exit %d, stderr %q", code, errb.String())
	}
}

// labelRecognizer is a recogniser of a task of the test's own: it answers
// with the model's first label and the number of samples it heard.
type labelRecognizer struct{ label string }

func (r labelRecognizer) Recognize(samples []float32, rate int) (engine.Result, error) {
	return engine.Result{Text: fmt.Sprintf("%s of %d samples", r.label, len(samples)), Conf: 0.5}, nil
}

func TestRecognizeDispatchesOnModelTask(t *testing.T) {
	const task = "test-connected-digits"
	saved := newRecognizer
	newRecognizer = func(m *engine.Model) (engine.Recognizer, error) {
		if m.Task == task {
			return labelRecognizer{m.Labels[0]}, nil
		}
		return saved(m)
	}
	defer func() { newRecognizer = saved }()
	dir := t.TempDir()
	model := filepath.Join(dir, "other.rfm")
	if err := engine.SaveModel(model, &engine.Model{Task: task, Labels: []string{"seven"}}); err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(dir, "x.wav")
	writeWAV(t, wav, upWord(9))
	r := recognizeJSON(t, wav, "--model", model)
	if want := fmt.Sprintf("seven of %d samples", len(upWord(9))); r.Text != want || r.Task != task {
		t.Fatalf("dispatch gave %+v, want text %q", r, want)
	}

	// A task no recogniser serves is a clear error naming it.
	if err := engine.SaveModel(model, &engine.Model{Task: "no-such-task", Labels: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"recognize", "--model", model, wav}, &out, &errb); code != 1 || !strings.Contains(errb.String(), `task "no-such-task"`) {
		t.Fatalf("unknown task: exit %d, stderr %q", code, errb.String())
	}
}

func TestRecognizeBadInputs(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.wav")
	os.WriteFile(garbage, []byte("definitely not a WAV file"), 0o644)
	empty := filepath.Join(dir, "empty.wav")
	writeWAV(t, empty, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{garbage}, "raw 16-bit PCM needs --rate"},
		{[]string{empty}, "no samples"},
		{[]string{filepath.Join(dir, "missing.wav")}, "no such file"},
		{[]string{"-", "--rate", "10"}, "sample rate"},
	} {
		stdin = bytes.NewReader([]byte{1, 2, 3, 4})
		var out, errb bytes.Buffer
		code := run(append([]string{"recognize", "--model", filepath.Join(dir, "unused.rfm")}, c.args...), &out, &errb)
		stdin = os.Stdin
		if code != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("recognize %v: exit %d, stderr %q, want it to mention %q", c.args, code, errb.String(), c.want)
		}
	}
}

// On a fresh machine, with no data cache and no FSDD, recognize answers at
// once with the model that ships with rfstream: nothing is trained, and
// nothing is written to the data cache.
func TestRecognizeAnswersWithTheShippedModel(t *testing.T) {
	recording := filepath.Join("..", "..", "..", "shared", "fsdd", "recordings", "7_george_0.wav")
	if _, err := os.Stat(recording); err != nil {
		t.Skipf("no FSDD recording to hear: %v", err)
	}
	cache := t.TempDir()
	t.Setenv("RFSTREAM_FSDD", t.TempDir())
	t.Setenv("RFSTREAM_DATA", cache)
	var out, errb bytes.Buffer
	if code := run([]string{"recognize", "--json", recording}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r recognition
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Text != "7" || r.Task != engine.TaskConnected || errb.Len() != 0 {
		t.Fatalf("heard %q (%v), stderr %q; want 7 and nothing on stderr", out.String(), err, errb.String())
	}
	// Nothing trained or fetched: the cache holds only the shipped model's
	// projections, kept for the next process (features.Load).
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 || entries[0].Name() != "draws" {
		t.Fatalf("the data cache holds %v after recognising with the shipped model, want draws/ alone", entries)
	}
	if draws, _ := filepath.Glob(filepath.Join(cache, "draws", "normal32-*")); len(draws) != 1 {
		t.Fatalf("draws kept: %v, want the connected model's one", draws)
	}
}

// toyFSDD writes a folder named like FSDD: digit 0 is a rising glide,
// digit 1 a falling one, two speakers, takes 0-9.
func toyFSDD(t *testing.T) string { t.Helper(); return toyFSDDTakes(t, 10) }

// toyFSDDTakes is toyFSDD with takes 0 to takes-1.
func toyFSDDTakes(t *testing.T, takes int) string {
	t.Helper()
	dir := t.TempDir()
	for take := 0; take < takes; take++ {
		for si, speaker := range []string{"ann", "bob"} {
			seed := uint32(100*take + 10*si)
			writeWAV(t, filepath.Join(dir, fmt.Sprintf("0_%s_%d.wav", speaker, take)), upWord(seed))
			writeWAV(t, filepath.Join(dir, fmt.Sprintf("1_%s_%d.wav", speaker, take)), downWord(seed+5))
		}
	}
	return dir
}

// zeros is an endless input, like /dev/zero, that counts what was read.
type zeros struct{ read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += int64(len(p))
	return len(p), nil
}

// An endless raw input stops at --max-seconds with an error, having read
// no more than the bound and one sample, whatever the input holds.
func TestRecognizeRefusesInputBeyondMaxSeconds(t *testing.T) {
	_, model := toyWordModelFile(t)
	z := &zeros{}
	stdin = z
	defer func() { stdin = os.Stdin }()
	var out, errb bytes.Buffer
	code := run([]string{"recognize", "--rate", "8000", "--max-seconds", "3", "--model", model, "-"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "longer than the 3 s --max-seconds allows") {
		t.Fatalf("endless input: exit %d, stderr %q", code, errb.String())
	}
	if bound := int64(3*8000*2 + 2); z.read > bound {
		t.Fatalf("read %d bytes of an endless input, want at most %d (3 s of 8 kHz s16le and one sample)", z.read, bound)
	}
	// Within the bound the same input is recognised as before.
	stdin = bytes.NewReader(make([]byte, 2*8000))
	if code := run([]string{"recognize", "--rate", "8000", "--max-seconds", "3", "--model", model, "-"}, &out, &errb); code != 0 {
		t.Fatalf("a second of silence within the bound: exit %d, %s", code, errb.String())
	}
}
