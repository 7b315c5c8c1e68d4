package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// The shared voices folder, when present: every speaker of the split has
// recordings, no speaker is in two splits, and the lexicon lacks only a
// few of the words (reported by name, as eval phones --real does).
func TestRealPhoneRecordings(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "voices")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no shared voices folder")
	}
	recs, err := RealPhoneRecordings(root)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range recs {
		if len(r.Words) == 0 {
			t.Errorf("%s: no words", r.Path)
		}
		per[r.Speaker]++
	}
	s := DefaultRealPhoneSpeakers
	seen := map[string]bool{}
	for _, names := range [][]string{s.Train, s.Dev, s.Test} {
		for _, n := range names {
			if seen[n] || per[n] == 0 {
				t.Errorf("speaker %s: in two splits or without recordings (%d)", n, per[n])
			}
			seen[n] = true
		}
	}
	if per["gcompris-words"] != 564 || per["rich"] != 46+1 || per["saytime"] != 11 {
		t.Errorf("recordings per speaker %v", per)
	}
	if _, err := os.Stat(DefaultLexiconPath); err != nil {
		return
	}
	l, err := LoadLexicon("")
	if err != nil {
		t.Fatal(err)
	}
	m := MissingWords{}
	for _, r := range recs {
		_, missing := l.Transcribe(r.Words)
		m.Add(missing...)
	}
	t.Log(m)
	if len(m) > 10 {
		t.Errorf("%s", m)
	}
}
