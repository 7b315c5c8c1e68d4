package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// adaptArgs are the settings the equality test gives both eval digits and
// train digits: speaker CMVN and two self-training rounds, without the
// default recipe's synthetic voices (the toy set's labels are 0 and 1).
var adaptArgs = []string{"--m", "40", "--frames", "16", "--speaker-norm", "mean", "--self-train", "0.5,1", "--synth-voices", "0", "--engine-voices", ""}

// recognize --adapt with a model trained on two voices, over the third
// voice's recordings, decides every recording as eval digits' leave-one-
// speaker-out fold for that voice does, with the same score margin: the
// product path is the evaluated one (rows, λ, normalisation, refits).
func TestRecognizeAdaptEqualsEvalFold(t *testing.T) {
	fsdd := toyFSDD3(t)
	dir := t.TempDir()
	preds := filepath.Join(dir, "pred.tsv")
	var out, errb bytes.Buffer
	if code := run(append([]string{"eval", "digits", "--fsdd", fsdd, "--split", "speaker", "--predictions", preds}, adaptArgs...), &out, &errb); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errb.String())
	}
	all, err := readPredictions(preds)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]prediction{} // the fold that holds cy out
	for p, w := range all {
		if strings.Contains(filepath.Base(p), "_cy_") {
			want[p] = w
		}
	}
	model := filepath.Join(dir, "adapt.rfm")
	errb.Reset()
	if code := run(append([]string{"train", "digits", "--fsdd", fsdd, "--split", "all", "--exclude-speakers", "cy", "--out", model}, adaptArgs...), &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	var files []string
	for p := range want {
		files = append(files, p)
	}
	sort.Strings(files)
	out.Reset()
	errb.Reset()
	if code := run(append([]string{"recognize", "--adapt", "--json", "--model", model}, files...), &out, &errb); code != 0 {
		t.Fatalf("recognize --adapt: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "adaptation round 2:") {
		t.Errorf("stderr does not report both rounds: %q", errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d results for %d recordings", len(lines), len(files))
	}
	for _, line := range lines {
		var r recognition
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		w, ok := want[r.File]
		if !ok {
			t.Fatalf("result for %q, which was not asked for", r.File)
		}
		if r.Text != w.Predicted {
			t.Errorf("%s: recognised %q, the evaluation decided %q", r.File, r.Text, w.Predicted)
		}
		// The margin between the two labels' scores, from the confidences
		// (a softmax at temperature 1/4).
		if len(r.Alternatives) != 2 {
			t.Fatalf("%s: alternatives %+v", r.File, r.Alternatives)
		}
		m := 0.25 * math.Log(r.Alternatives[0].Conf/r.Alternatives[1].Conf)
		if math.Abs(m-w.Margin) > 1e-5*math.Abs(w.Margin) {
			t.Errorf("%s: margin %.7g, the evaluation's %.6g", r.File, m, w.Margin)
		}
	}
}

// A model without adaptation is refused by --adapt with what to do; a bad
// recording in an adapted batch is named and the rest are still decided.
func TestRecognizeAdaptRefusesAndSkips(t *testing.T) {
	dir, plain := toyWordModelFile(t)
	good := filepath.Join(dir, "up.wav")
	writeWAV(t, good, upWord(77))
	var out, errb bytes.Buffer
	if code := run([]string{"recognize", "--adapt", "--model", plain, good}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--self-train") {
		t.Fatalf("plain model: exit %d, stderr %q", code, errb.String())
	}

	fsdd := toyFSDD3(t)
	model := filepath.Join(dir, "adapt.rfm")
	errb.Reset()
	if code := run(append([]string{"train", "digits", "--fsdd", fsdd, "--split", "all", "--out", model}, adaptArgs...), &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	bad := filepath.Join(dir, "bad.wav")
	if err := os.WriteFile(bad, []byte("RIFF not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	down := filepath.Join(dir, "down.wav")
	writeWAV(t, down, downWord(78))
	out.Reset()
	errb.Reset()
	code := run([]string{"recognize", "--adapt", "--model", model, good, bad, down}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "bad.wav") || !strings.Contains(errb.String(), "1 of 3 recordings") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != 2 || !strings.HasPrefix(got[0], good+"\t0\t") || !strings.HasPrefix(got[1], down+"\t1\t") {
		t.Fatalf("results %q, want the rising glide as 0 and the falling one as 1", got)
	}
}

// Without --model, --adapt adapts with the shipped adaptable digit model,
// trained on nothing at first use: a voice's ten digits are heard.
func TestRecognizeAdaptUsesTheShippedModel(t *testing.T) {
	fsdd := filepath.Join("..", "..", "..", "shared", "fsdd", "recordings")
	if _, err := os.Stat(fsdd); err != nil {
		t.Skipf("no FSDD recordings to hear: %v", err)
	}
	t.Setenv("RFSTREAM_FSDD", t.TempDir())
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	var files []string
	for d := range 10 {
		files = append(files, filepath.Join(fsdd, fmt.Sprintf("%d_jackson_1.wav", d)))
	}
	var out, errb bytes.Buffer
	if code := run(append([]string{"recognize", "--adapt"}, files...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(errb.String(), "is missing") {
		t.Fatalf("first use trained: %q", errb.String())
	}
	right := 0
	for i, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Split(line, "\t"); len(f) > 1 && f[1] == strconv.Itoa(i) {
			right++
		}
	}
	if right < 9 {
		t.Fatalf("%d of 10 digits right:\n%s", right, out.String())
	}
}

// --session decides recordings in order with the voice estimated as it
// goes; it needs a voice-normalised model and excludes --adapt.
func TestRecognizeSession(t *testing.T) {
	dir, plain := toyWordModelFile(t)
	var files []string
	for i, sig := range [][]float32{upWord(31), downWord(32), downWord(33), upWord(34)} {
		files = append(files, filepath.Join(dir, strconv.Itoa(i)+".wav"))
		writeWAV(t, files[i], sig)
	}
	var out, errb bytes.Buffer
	if code := run(append([]string{"recognize", "--session", "--model", plain}, files...), &out, &errb); code != 1 || !strings.Contains(errb.String(), "--speaker-norm mean") {
		t.Fatalf("plain model: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run(append([]string{"recognize", "--session", "--adapt", "--model", plain}, files...), &out, &errb); code != 1 || !strings.Contains(errb.String(), "not both") {
		t.Fatalf("--session --adapt: exit %d, stderr %q", code, errb.String())
	}
	model := filepath.Join(dir, "voice.rfm")
	errb.Reset()
	if code := run([]string{"train", "digits", "--fsdd", toyFSDD3(t), "--split", "all", "--m", "40", "--frames", "16", "--speaker-norm", "mean", "--synth-voices", "0", "--engine-voices", "", "--out", model}, &out, &errb); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(append([]string{"recognize", "--session", "--model", model}, files...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		got = append(got, strings.Split(line, "\t")[1])
	}
	if strings.Join(got, ",") != "0,1,1,0" {
		t.Fatalf("heard %v, want 0,1,1,0", got)
	}
}

// --session with --voice and --voices keeps the voice between runs: six
// recordings in two runs of three are decided as in one run of six (the
// same JSON lines, confidences included), and the voice file is what a
// serve --voices on that folder would read. A damaged file stops the run
// and is left where it is.
func TestRecognizeSessionKeepsAVoice(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "toy.rfm")
	if err := engine.SaveModel(model, words.Model); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, sig := range [][]float32{upWord(41), downWord(42), downWord(43), upWord(44), upWord(45), downWord(46)} {
		files = append(files, filepath.Join(dir, strconv.Itoa(i)+".wav"))
		writeWAV(t, files[i], sig)
	}
	recognize := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"recognize", "--json", "--session", "--model", model}, args...), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	whole := recognize(files...)
	voices := filepath.Join(dir, "voices")
	first := recognize(append([]string{"--voice", "erin", "--voices", voices}, files[:3]...)...)
	second := recognize(append([]string{"--voice", "erin", "--voices", voices}, files[3:]...)...)
	if first+second != whole {
		t.Fatalf("two runs of a kept voice:\n%s%s\none run:\n%s", first, second, whole)
	}
	if alone := recognize(files[3:]...); alone == second {
		t.Fatal("the second run decides as a fresh session would: the test cannot tell that the voice was kept")
	}
	path, err := words.VoicePath(voices, "erin")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := words.ReadVoiceSession(b); err != nil || s.Recordings() != 6 {
		t.Fatalf("the kept voice: %v", err)
	}
	b[len(b)/2] ^= 1
	os.WriteFile(path, b, 0o600)
	var out, errb bytes.Buffer
	if code := run(append([]string{"recognize", "--session", "--model", model, "--voice", "erin", "--voices", voices}, files[0]), &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), "corrupted voice file") || !strings.Contains(errb.String(), "move the file away") {
		t.Fatalf("a damaged voice file: exit %d, %q", code, errb.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("the damaged voice file was changed")
	}
	if code := run([]string{"recognize", "--voice", "erin", files[0]}, &out, &errb); code == 0 {
		t.Fatal("--voice without --session and --voices was accepted")
	}
}

// train digits --alone-copies keeps the training rows the model has
// without it and adds, after them, a copy of each normalised as a session
// normalises a voice's first recording: on the trained model, a fresh
// VoiceSession's normalisation of a training recording is its copy's row,
// to the bit, with the same label.
func TestAloneCopiesAreFirstRecordings(t *testing.T) {
	fsdd := toyFSDD3(t)
	dir := t.TempDir()
	train := func(name string, extra ...string) *engine.Model {
		t.Helper()
		path := filepath.Join(dir, name)
		var out, errb bytes.Buffer
		args := append([]string{"train", "digits", "--fsdd", fsdd, "--split", "all", "--exclude-speakers", "cy", "--out", path}, adaptArgs...)
		if code := run(append(args, extra...), &out, &errb); code != 0 {
			t.Fatalf("train %v: exit %d: %s", extra, code, errb.String())
		}
		m, err := engine.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	plain, copies := train("plain.rfm"), train("alone.rfm", "--alone-copies")
	px, cx := plain.Blobs["adapt.rows"], copies.Blobs["adapt.rows"]
	py, cy := plain.Blobs["adapt.labels"], copies.Blobs["adapt.labels"]
	n := px.Rows
	if cx.Rows != 2*n || cy.Rows != 2*n || !slices.Equal(cx.Data[:n*cx.Cols], px.Data) {
		t.Fatalf("with copies %d rows (%d labels), without %d: want the same rows, then as many copies", cx.Rows, cy.Rows, n)
	}
	if !slices.Equal(cy.Data[:n], py.Data) || !slices.Equal(cy.Data[n:], py.Data) {
		t.Fatal("the copies' labels are not their recordings'")
	}
	recs, err := datasets.FSDD(fsdd)
	if err != nil {
		t.Fatal(err)
	}
	if recs, err = excludeSpeakers(recs, "cy"); err != nil || len(recs) != n {
		t.Fatalf("%d training recordings for %d rows (%v)", len(recs), n, err)
	}
	words, err := engine.NewWordClassifier(copies)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		a, err := readWAVFile(recs[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		v, err := words.RawVector(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := words.NewVoiceSession().Normalise(v, false); err != nil {
			t.Fatal(err)
		}
		if got := cx.Data[(n+i)*cx.Cols : (n+i+1)*cx.Cols]; !slices.Equal(got, v) {
			t.Fatalf("row %d's copy is not %s as a voice's first recording", i, recs[i].Path)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"train", "digits", "--fsdd", fsdd, "--alone-copies", "--out", filepath.Join(dir, "x.rfm")}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--speaker-norm mean") {
		t.Fatalf("--alone-copies without voice normalisation: exit %d, %q", code, errb.String())
	}
}
