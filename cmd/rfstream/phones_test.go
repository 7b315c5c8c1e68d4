package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
)

const fixture = "../../testdata/timit"

// The TIMIT-style fixture through the commands: train phones (phone times
// as the first alignment) and recognize printing the phone string with
// times (eval phones on it is the laboratory's test).
func TestPhonesCommandsOnFixture(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	dir := t.TempDir()
	model := filepath.Join(dir, "phones.rfm")
	common := []string{"--corpus", fixture, "--phone-map", filepath.Join(fixture, "phones.map"), "--m", "256", "--q", "2", "--dev-speakers", "0.34"}
	var out, errb bytes.Buffer
	if code := run(append([]string{"train", "phones", "--out", model}, common...), &out, &errb); code != 0 {
		t.Fatalf("train phones: exit %d: %s", code, errb.String())
	}
	// recognize: a RIFF file of the test speaker.
	us, err := datasets.TIMITCorpus(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var u datasets.PhoneUtterance
	for _, c := range us {
		if b, _ := os.ReadFile(c.Audio); c.Split == "test" && bytes.HasPrefix(b, []byte("RIFF")) {
			u = c
		}
	}
	r := recognizeJSON(t, u.Audio, "--model", model)
	var ref []string
	for _, p := range u.Phones {
		if p.Phone != "h#" && p.Phone != "pau" {
			ref = append(ref, p.Phone)
		}
	}
	if r.Task != engine.TaskPhones || len(r.Words) == 0 {
		t.Fatalf("recognised %+v", r)
	}
	if e := decode.EditDistance(ref, strings.Fields(r.Text)); e.Errors() > 1 {
		t.Errorf("recognised %q, reference %q", r.Text, strings.Join(ref, " "))
	}
	for i, w := range r.Words {
		if w.End <= w.Start || w.Start < 0 || w.End > r.Seconds+0.02 || (i > 0 && w.Start < r.Words[i-1].End-1e-9) {
			t.Errorf("phone %d: %+v", i, w)
		}
	}
	// --words: under the phones, the best-matching words of the word list,
	// pronounced by the lexicon (a word it lacks named, not fatal).
	lex, vocab := filepath.Join(dir, "lex.dict"), filepath.Join(dir, "vocab.txt")
	os.WriteFile(lex, []byte("see S IY1\nsam S AE1 M\nmiss M IH1 S\nmama M AA1 M AH0\nseas S IY1 Z\n"), 0o644)
	os.WriteFile(vocab, []byte("see\nmama\nsam\nzyzzyva\n"), 0o644)
	out.Reset()
	errb.Reset()
	if code := run([]string{"recognize", "--model", model, "--words", vocab, "--lexicon", lex, u.Audio}, &out, &errb); code != 0 {
		t.Fatalf("recognize --words: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	words, ok := strings.CutPrefix(lines[len(lines)-1], "words:\t")
	if len(lines) != 2 || !ok || words == "" || !strings.Contains(errb.String(), "zyzzyva ×1") {
		t.Fatalf("recognize --words printed %q; stderr %q", out.String(), errb.String())
	}
	for _, w := range strings.Fields(strings.ReplaceAll(words, "|", " ")) {
		if w != "see" && w != "mama" && w != "sam" {
			t.Errorf("word %q is not in the vocabulary", w)
		}
	}
}

func TestPhonesCorpusErrors(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	bad := t.TempDir()
	spk := filepath.Join(bad, "train", "s1")
	if err := os.MkdirAll(spk, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fixture, "TRAIN", "DR1", "FAA0", "SX1.WAV"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(spk, "a.wav"), b, 0o644)
	os.WriteFile(filepath.Join(spk, "a.phn"), []byte("0 100 h#\n100 oops aa\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"train", "phones", "--corpus", bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "a.phn: line 2") {
		t.Fatalf("malformed .PHN: exit %d: %s", code, errb.String())
	}
	os.WriteFile(filepath.Join(spk, "a.phn"), []byte("0 100 h#\n100 900 aa\n"), 0o644)
	errb.Reset()
	if code := run([]string{"train", "phones", "--corpus", bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "need utterances of at least 2 speakers") {
		t.Fatalf("corpus without test folder: exit %d: %s", code, errb.String())
	}
}
