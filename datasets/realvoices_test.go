package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A voices folder laid out as ../shared/voices is: GCompris's code-point
// names, plain digit names, "oh" where a voice has it.
func fakeVoicesFolder(t *testing.T, withOh bool) string {
	t.Helper()
	root := t.TempDir()
	for _, v := range realVoices {
		if err := os.MkdirAll(filepath.Join(root, v.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
		words := realVoiceWords[:10]
		if withOh {
			words = realVoiceWords
		}
		for _, w := range words {
			if err := os.WriteFile(filepath.Join(root, v.Dir, v.digitFile(w)+".wav"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

func TestRealVoiceDigitsNamesEveryVoicesWords(t *testing.T) {
	root := fakeVoicesFolder(t, true)
	recs, err := RealVoiceDigits(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 11*len(realVoices) {
		t.Fatalf("%d recordings, want %d", len(recs), 11*len(realVoices))
	}
	for _, r := range recs {
		if SexOf(r.Speaker) == "" || r.Take != -1 {
			t.Fatalf("%+v: no sex or a take", r)
		}
		if strings.Contains(r.Path, "gcompris") && r.Label == "3" && filepath.Base(r.Path) != "U0033.wav" {
			t.Fatalf("GCompris's 3 read from %s", r.Path)
		}
		if strings.Contains(r.Path, "gcompris") && r.Label == "oh" && filepath.Base(r.Path) != "U006F.wav" {
			t.Fatalf("GCompris's oh read from %s", r.Path)
		}
	}
}

func TestRealVoiceDigitsWithoutOhOrWithoutADigit(t *testing.T) {
	root := fakeVoicesFolder(t, false)
	recs, err := RealVoiceDigits(root)
	if err != nil || len(recs) != 10*len(realVoices) {
		t.Fatalf("no oh anywhere: %d recordings, %v", len(recs), err)
	}
	os.Remove(filepath.Join(root, "saytime", "7.wav"))
	if _, err := RealVoiceDigits(root); err == nil || !strings.Contains(err.Error(), `saytime has no "7"`) {
		t.Fatalf("a missing digit gave %v", err)
	}
}

func TestTheSharedVoicesFolderReads(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "voices")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no ../shared/voices beside the checkout")
	}
	recs, err := RealVoiceDigits(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 50 {
		t.Fatalf("%d recordings of digits, want ≥ 50", len(recs))
	}
	words, err := RealWords(root)
	if err != nil || len(words) < 500 {
		t.Fatalf("%d real words, %v", len(words), err)
	}
	for _, w := range words {
		if _, digit := map[string]bool{"zero": true, "one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true, "nine": true, "oh": true}[w.Label]; digit {
			t.Fatalf("%s among the non-digit words", w.Label)
		}
	}
}
