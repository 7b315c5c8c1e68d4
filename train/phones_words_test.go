package train

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
)

// Recognised phones with a pause between two stretches: each stretch's
// words, the model's ax read as ah; a vocabulary word the lexicon lacks is
// reported, not fatal.
func TestPhoneStretchWords(t *testing.T) {
	dir := t.TempDir()
	lex := filepath.Join(dir, "lex.dict")
	vocab := filepath.Join(dir, "vocab.txt")
	if err := os.WriteFile(lex, []byte("seven S EH1 V AH0 N\neight EY1 T\nsevens S EH1 V AH0 N Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vocab, []byte("seven\neight\nzyzzyva\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, missing, err := PhoneWordFinder(lex, vocab)
	if err != nil {
		t.Fatal(err)
	}
	if missing.String() != "1 word missing from the lexicon (1 occurrences): zyzzyva ×1" {
		t.Errorf("missing: %s", missing)
	}
	var phones []engine.Word
	at := 0.0
	for i, p := range strings.Fields("s eh v ax n ey t ey t") {
		if i == 7 {
			at += 0.5 // a pause before the last "eight"
		}
		phones = append(phones, engine.Word{Word: p, Start: at, End: at + 0.08})
		at += 0.08
	}
	f.WordCost = 0.5 // two words in a stretch: a cost under a phone's keeps the short "eight"
	got := PhoneStretchWords(f, phones)
	if len(got) != 2 || strings.Join(got[0], " ") != "seven eight" || strings.Join(got[1], " ") != "eight" {
		t.Errorf("stretches %q", got)
	}
	if _, _, err := PhoneWordFinder(lex, filepath.Join(dir, "none.txt")); err == nil {
		t.Error("a missing vocabulary file accepted")
	}
	l, _ := datasets.ReadLexicon(strings.NewReader("a AH\n"))
	if _, _, err := WordFinderOf(l, []string{"zz"}); err == nil || !strings.Contains(err.Error(), "zz ×1") {
		t.Errorf("a vocabulary with no lexicon word: %v", err)
	}
	if f, err := RecognizeWordFinder(engine.TaskPhones, lex, "", 0, nil); f != nil || err != nil {
		t.Errorf("no vocabulary: %v, %v", f, err)
	}
	if f, err := RecognizeWordFinder(engine.TaskPhones, lex, vocab, 0.25, io.Discard); err != nil || f.WordCost != 0.25 {
		t.Errorf("word cost 0.25: %v, %v", f, err)
	}
	if _, err := RecognizeWordFinder(engine.TaskWords, lex, vocab, 0, io.Discard); err == nil || !strings.Contains(err.Error(), "needs a phone model") {
		t.Errorf("a word model: %v", err)
	}
}
