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

	"github.com/rfstream/rfstream/datasets"
)

// fakeWords are fakeVoicesFolder's GCompris words, in fakeLexicon.
var fakeWords = []string{"ant", "bee", "cat", "cow", "dog", "elk", "fox", "hen", "owl", "pig"}

const fakeLexicon = "ant AE1 N T\nbee B IY1\ncat K AE1 T\ncow K AW1\ndog D AO1 G\nelk EH1 L K\nfox F AA1 K S\nhen HH EH1 N\nowl AW1 L\npig P IH1 G\n"

// fakeVoicesFolder lays out a voices folder as datasets.RealVoices reads
// it, every file one espeak-ng word (the layout is under test, not the
// voices), with the GCompris words fakeWords.
func fakeVoicesFolder(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	word := filepath.Join(root, "word.wav")
	if out, err := exec.Command("espeak-ng", "-w", word, "seven").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	b, err := os.ReadFile(word)
	if err != nil {
		t.Fatal(err)
	}
	put := func(dir, name string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, name+".wav"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range datasets.RealVoices() {
		for d := 0; d < 10; d++ {
			if strings.HasPrefix(v.Dir, "gcompris-en/") {
				put(v.Dir, fmt.Sprintf("U%04X", '0'+d))
			} else {
				put(v.Dir, fmt.Sprint(d))
			}
		}
	}
	for _, w := range fakeWords {
		put("gcompris-en/words", w)
	}
	return root
}

// eval phones --real on a tiny espeak-ng model: every held-out real
// speaker is scored, the training speakers never are, and a word the
// lexicon lacks ("nine" here, said by each of the 5 held-out speakers) is reported by name and count, its
// recordings left out; --real-speech trains on the training speakers.
func TestEvalPhonesReal(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (Debian: apt-get install espeak-ng); CI has it")
	}
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	root := fakeVoicesFolder(t)
	lex := filepath.Join(t.TempDir(), "lex.dict")
	dict := "zero Z IH1 R OW0\none W AH1 N\ntwo T UW1\nthree TH R IY1\nfour F AO1 R\nfive F AY1 V\nsix S IH1 K S\nseven S EH1 V AH0 N\neight EY1 T\n" + fakeLexicon
	if err := os.WriteFile(lex, []byte(dict), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"eval", "phones", "--json", "--real", "--voices", root, "--lexicon", lex, "--engines", "espeak-ng", "--real-speech", root,
		"--train-per-voice", "2", "--dev-per-voice", "1", "--test-per-voice", "1", "--m", "64", "--q", "2", "--passes", "1", "--bigram=false", "--baseline=false"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("eval phones --real: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res phonesEval
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("printed %q: %v", out.String(), err)
	}
	if len(res.Real) != 1 {
		t.Fatalf("real scores %+v", res.Real)
	}
	r := res.Real[0]
	split := datasets.DefaultRealPhoneSpeakers
	if r.Dev.Utterances != 9*len(split.Dev) || r.Test.Utterances != 9*len(split.Test) || r.Skipped != 5 || r.Missing != "1 word missing from the lexicon (5 occurrences): nine ×5" {
		t.Errorf("real score %+v", r)
	}
	if len(r.PerSpeaker) != len(split.Dev)+len(split.Test) || r.Test.Phones == 0 || r.Dev.Phones == 0 {
		t.Errorf("per speaker %v", r.PerSpeaker)
	}
	// The vocabulary: the folder's words the lexicon has (nine digit words
	// and the ten animals).
	if r.Vocabulary != 19 || r.TestWER < 0 || r.DevWER < 0 {
		t.Errorf("vocabulary %d, WER %g / %g", r.Vocabulary, r.DevWER, r.TestWER)
	}
	if _, trained := r.PerSpeaker["gcompris-words"]; trained {
		t.Error("a training speaker was scored")
	}
	for _, want := range []string{"phones: 10 real recordings of [gcompris-words] with the lexicon's phones, 1 of them held out for tuning", "nine ×5"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, errb.String())
		}
	}
	if !strings.Contains(out.String(), "real speakers never trained on") {
		t.Errorf("no real table:\n%s", out.String())
	}
}

func TestHomophonesCountAsSaid(t *testing.T) {
	lex, err := datasets.ReadLexicon(strings.NewReader("b B IY1\nbee B IY1\nsea S IY1\nc S IY1\nd D IY1\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &realPhones{lex: lex}
	if got := r.homophonesAsSaid([]string{"b"}, []string{"bee", "sea", "d"}); strings.Join(got, " ") != "b sea d" {
		t.Errorf("%q", got)
	}
}
