package decode

import (
	"strings"
	"testing"
)

func TestPhoneWordsFind(t *testing.T) {
	vocab := map[string]string{"cat": "k ae t", "sat": "s ae t", "on": "aa n", "the": "dh ah", "mat": "m ae t", "a": "ah"}
	var words []string
	var prons [][]string
	for _, w := range []string{"cat", "sat", "on", "the", "mat", "a"} {
		words, prons = append(words, w), append(prons, strings.Fields(vocab[w]))
	}
	p, err := NewPhoneWords(words, prons)
	if err != nil {
		t.Fatal(err)
	}
	// Sentences of short words want a word cost under an inserted phone's
	// (at 2, "the" and "on" cost as much as their phones left unexplained).
	p.WordCost = 0.5
	for phones, want := range map[string]string{
		"dh ah k ae t s ae t aa n dh ah m ae t": "the cat sat on the mat", // exact
		"dh ah k eh t s ae aa n dh ah m ae t d": "the cat sat on the mat", // a substitution, a deletion, an insertion
		"k ae t":                                "cat",
		"p ae t":                                "cat", // nearest (ties: the first word)
	} {
		got, cost := p.Find(strings.Fields(phones))
		if strings.Join(got, " ") != want {
			t.Errorf("%q: %q (cost %.1f), want %q", phones, got, cost, want)
		}
	}
	p.WordCost = 2 // the default, chosen on real words said alone
	if got, _ := p.Find(strings.Fields("dh ah k ae t s ae t aa n dh ah m ae t")); strings.Join(got, " ") != "cat sat mat" {
		t.Errorf("at the default cost: %q", got)
	}
	if got, _ := p.Find(strings.Fields("k ae t ah s")); strings.Join(got, " ") != "cat" {
		t.Errorf("a word with two phones inserted: %q", got)
	}
	if got, _ := p.Find(nil); got != nil {
		t.Errorf("no phones found %q", got)
	}
	if _, err := NewPhoneWords([]string{"x"}, [][]string{{}}); err == nil {
		t.Error("an empty pronunciation accepted")
	}
	if _, err := NewPhoneWords([]string{"x", "y"}, [][]string{{"a"}}); err == nil {
		t.Error("2 words for 1 pronunciation accepted")
	}
}

func FuzzPhoneWordsFind(f *testing.F) {
	f.Add("k ae t s ae t", "k ae t|s ae t|ah")
	f.Fuzz(func(t *testing.T, phones, vocab string) {
		var words []string
		var prons [][]string
		for _, v := range strings.Split(vocab, "|") {
			if p := strings.Fields(v); len(p) > 0 && len(p) < 20 {
				words, prons = append(words, v), append(prons, p)
			}
		}
		in := strings.Fields(phones)
		if len(words) == 0 || len(in) > 60 {
			return
		}
		p, err := NewPhoneWords(words, prons)
		if err != nil {
			t.Fatal(err)
		}
		got, cost := p.Find(in)
		if len(in) > 0 && (len(got) == 0 || cost < p.WordCost) {
			t.Fatalf("%q: %q at cost %g", in, got, cost)
		}
		// The cost is that of the words found, end to end.
		var said []string
		for _, w := range got {
			said = append(said, strings.Fields(w)...)
		}
		if e := float64(EditDistance(said, in).Errors()); e > cost-float64(len(got))*p.WordCost+1e-9 {
			t.Fatalf("%q: found %q, edit cost %g above the reported %g", in, got, e, cost)
		}
	})
}
