package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNonDigitWordsParse(t *testing.T) {
	ws := NonDigitWords()
	if len(ws) < 200 {
		t.Fatalf("%d non-digit words, want at least 200 to split into halves", len(ws))
	}
	for _, w := range ws {
		for _, d := range DigitWords {
			if w == d {
				t.Fatalf("digit %q in the non-digit list", w)
			}
		}
	}
}

func TestParseWordListRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"apple\nfor\n", "list.txt:2: \"for\" sounds like a digit"},
		{"apple\napple\n", "list.txt:2: \"apple\" is listed twice"},
		{"Apple\n", "list.txt:1: \"Apple\": a word is lower-case"},
		{"-apple\n", "list.txt:1"},
		{"two words\n", "list.txt:1"},
		{"# only a comment\n\n", "list.txt: no words"},
		{strings.Repeat("a", 41), "list.txt:1: a word of 41 bytes"},
	} {
		_, err := ParseWordList([]byte(c.in), "list.txt")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
	got, err := ParseWordList([]byte("# header\nrock'n'roll  # a comment\n\nwell-known\n"), "list.txt")
	if err != nil || strings.Join(got, ",") != "rock'n'roll,well-known" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestReadWordListNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.txt")
	if err := os.WriteFile(p, []byte("ate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadWordList(p); err == nil || !strings.Contains(err.Error(), p+":1:") {
		t.Fatalf("error %v does not name %s and the line", err, p)
	}
	if err := os.WriteFile(p, make([]byte, maxWordListBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadWordList(p); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("oversize list: %v", err)
	}
}

func FuzzParseWordList(f *testing.F) {
	f.Add([]byte("apple\n# c\nbanana\n"))
	f.Add([]byte("for\n"))
	f.Add([]byte("a-\n'b\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ws, err := ParseWordList(b, "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(ws) == 0 {
			t.Fatal("no words and no error")
		}
		for _, w := range ws {
			if checkListWord(w) != nil {
				t.Fatalf("accepted %q", w)
			}
		}
	})
}

func TestWordListsAreDisjoint(t *testing.T) {
	measured := map[string]bool{}
	for _, w := range NonDigitWords() {
		measured[w] = true
	}
	train := FillerTrainWords()
	if len(train) < 150 {
		t.Fatalf("%d filler training words", len(train))
	}
	for _, w := range train {
		if measured[w] {
			t.Fatalf("%q is both trained on and measured", w)
		}
	}
}
