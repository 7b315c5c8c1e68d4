package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/internal/toymodels"
)

var spokenDigits = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// fliteVoice writes, with flite's voice, each digit said alone and the
// given strings, and returns the digits' manifest and the strings' files.
func fliteVoice(t *testing.T, dir string, strs ...string) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed")
	}
	say := func(text, file string) string {
		path := filepath.Join(dir, file)
		if out, err := exec.Command("flite", "-voice", "kal", "-t", text, "-o", path).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v: %s", err, out)
		}
		return path
	}
	var manifest strings.Builder
	for d, w := range spokenDigits {
		fmt.Fprintf(&manifest, "%s\t%d\n", say(w, fmt.Sprintf("digit-%d.wav", d)), d)
	}
	m := filepath.Join(dir, "digits.tsv")
	if err := os.WriteFile(m, []byte(manifest.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, s := range strs {
		var words []string
		for _, d := range s {
			words = append(words, spokenDigits[d-'0'])
		}
		files = append(files, say(strings.Join(words, " "), fmt.Sprintf("string-%d.wav", i)))
	}
	return m, files
}

// enroll --manifest teaches both default models a voice, leaving out a
// recording that is silence; recognize --voice and stream --voice then hear
// a new string of that voice as the Go API's VoiceSession does; forget
// removes it.
func TestEnrollThenRecognizeTheVoice(t *testing.T) {
	dir := t.TempDir()
	manifest, strs := fliteVoice(t, dir, "8306")
	silent := filepath.Join(dir, "silent.wav")
	if err := toymodels.WriteWAV(silent, make([]float32, 8000)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(manifest)
	if err := os.WriteFile(manifest, append(b, silent+"\t5\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	voices := filepath.Join(dir, "voices")
	var out, errb bytes.Buffer
	if code := run([]string{"enroll", "--voice", "kal", "--voices", voices, "--manifest", manifest}, &out, &errb); code != 0 {
		t.Fatalf("enroll: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"connected model: learnt 10 words", "words model: learnt 10 words"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("enroll said %q, want %q", out.String(), want)
		}
	}
	if !strings.Contains(errb.String(), "silent.wav (5): too quiet") {
		t.Errorf("the silent recording was not reported: %q", errb.String())
	}

	out.Reset()
	errb.Reset()
	if code := run([]string{"recognize", "--json", "--voice", "kal", "--voices", voices, strs[0]}, &out, &errb); code != 0 {
		t.Fatalf("recognize --voice: exit %d: %s", code, errb.String())
	}
	var cli recognition
	if err := json.Unmarshal(out.Bytes(), &cli); err != nil {
		t.Fatal(err)
	}
	m, err := rfstream.DefaultModel(rfstream.TaskConnected)
	if err != nil {
		t.Fatal(err)
	}
	path, err := rfstream.VoicePath(m, voices, "kal")
	if err != nil {
		t.Fatal(err)
	}
	s, err := rfstream.LoadVoiceSession(m, path)
	if err != nil {
		t.Fatal(err)
	}
	samples, rate, err := rfstream.ReadAudio(strs[0])
	if err != nil {
		t.Fatal(err)
	}
	api, err := s.Recognize(samples, rate)
	if err != nil {
		t.Fatal(err)
	}
	if cli.Text != api.Text || cli.Conf != api.Conf || s.Taught() != 10 {
		t.Errorf("recognize --voice heard %q (conf %v), the Go API %q (conf %v) with %d words taught", cli.Text, cli.Conf, api.Text, api.Conf, s.Taught())
	}
	t.Logf("heard %q for 8306", cli.Text)

	// stream --voice through the embedded pipeline: the same text.
	out.Reset()
	if code := run([]string{"stream", "--fast", "--voice", "kal", "--voices", voices, strs[0]}, &out, &errb); code != 0 {
		t.Fatalf("stream --voice: exit %d: %s", code, errb.String())
	}
	if want := fmt.Sprintf("end:     %q", api.Text); !strings.Contains(out.String(), want) {
		t.Errorf("stream --voice printed %q, want a line starting %q", out.String(), want)
	}

	out.Reset()
	if code := run([]string{"forget", "kal", "--voices", voices}, &out, &errb); code != 0 || !strings.Contains(out.String(), "removed 4 file(s)") {
		t.Errorf("forget: exit %d: %s %s", code, out.String(), errb.String())
	}
	if code := run([]string{"recognize", "--voice", "kal", "--voices", voices, strs[0]}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "rfstream enroll --voice kal") {
		t.Errorf("a forgotten voice: exit %d: %s", code, errb.String())
	}
}

// A manifest naming a word no model has is refused by name before
// anything is taught, and leaves the voice's files as they were; a voice
// file of another model is refused, saying whose it is.
func TestEnrollRefusesBadWordsAndOtherModelsFiles(t *testing.T) {
	dir := t.TempDir()
	manifest, _ := fliteVoice(t, dir)
	voices := filepath.Join(dir, "voices")
	var out, errb bytes.Buffer
	if code := run([]string{"enroll", "--voice", "kal", "--voices", voices, "--manifest", manifest}, &out, &errb); code != 0 {
		t.Fatalf("enroll: exit %d: %s", code, errb.String())
	}
	before := voiceFiles(t, voices)
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte(filepath.Join(dir, "digit-7.wav")+"\tseven\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"enroll", "--voice", "kal", "--voices", voices, "--manifest", bad}, &out, &errb); code == 0 || !strings.Contains(errb.String(), `"seven" is not in the model's vocabulary`) {
		t.Errorf("a manifest labelling a recording seven: exit %d: %s", code, errb.String())
	}
	if after := voiceFiles(t, voices); !equalFiles(before, after) {
		t.Error("a refused enrolment changed the voice's files")
	}

	// The word model's voice file where the connected model's should be
	// is refused, naming both kinds, by recognize and by enroll.
	conn, err := rfstream.DefaultModel(rfstream.TaskConnected)
	if err != nil {
		t.Fatal(err)
	}
	words, err := rfstream.DefaultModel(rfstream.TaskWords)
	if err != nil {
		t.Fatal(err)
	}
	connPath, _ := rfstream.VoicePath(conn, voices, "kal")
	wordPath, _ := rfstream.VoicePath(words, voices, "kal")
	b, err := os.ReadFile(wordPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(connPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"recognize", "--voice", "kal", "--voices", voices, filepath.Join(dir, "digit-7.wav")},
		{"enroll", "--voice", "kal", "--voices", voices, "--manifest", manifest},
	} {
		errb.Reset()
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "a word model's voice file, read with a connected model") {
			t.Errorf("%s with another model's voice file: exit %d: %s", args[0], code, errb.String())
		}
	}
}

func voiceFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out[p], err = os.ReadFile(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for p, x := range a {
		if !bytes.Equal(x, b[p]) {
			return false
		}
	}
	return true
}
