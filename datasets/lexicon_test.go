package datasets

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const lexiconFixture = `;;; a comment line
a AH
a(2) EY1
read R EH1 D
read(2) R IY1 D   # the present tense
Harbor HH AA1 R B ER0
`

func TestReadLexicon(t *testing.T) {
	l, err := ReadLexicon(strings.NewReader(lexiconFixture))
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 3 || !slices.Equal(l.Words(), []string{"a", "harbor", "read"}) {
		t.Fatalf("words %q", l.Words())
	}
	if p := l.Pronunciations("READ"); len(p) != 2 || strings.Join(p[1], " ") != "r iy d" {
		t.Errorf("read: %q (variants in order, stress and comment removed)", p)
	}
	phones, missing := l.Transcribe(TextWords("Harbor, a red harbour!"))
	if strings.Join(phones, " ") != "hh aa r b er ah" || !slices.Equal(missing, []string{"red", "harbour"}) {
		t.Errorf("phones %q, missing %q", phones, missing)
	}
	m := MissingWords{}
	m.Add("zz", "harbour", "zz")
	if got := m.String(); got != "2 words missing from the lexicon (3 occurrences): zz ×2, harbour ×1" {
		t.Errorf("report %q", got)
	}
}

func TestReadLexiconErrors(t *testing.T) {
	for in, want := range map[string]string{
		"a AH\nb\n":                        "line 2: \"b\" has no phones",
		"a AH\nb B QQ1\n":                  "line 2: \"QQ1\" is not an ARPAbet phone",
		";;; only a comment\n":             "no words",
		"a " + strings.Repeat("AH ", 2000): "too long",
	} {
		if _, err := ReadLexicon(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.30q: error %v, want %q", in, err, want)
		}
	}
}

func TestTextWordsAndFold(t *testing.T) {
	if got := TextWords("It's the cat's 2nd -- orange-color 'quote'"); !slices.Equal(got, []string{"it's", "the", "cat's", "2nd", "orange", "color", "quote"}) {
		t.Errorf("words %q", got)
	}
	if got := FoldToLexicon([]string{"s", "eh", "v", "ax", "n"}); strings.Join(got, " ") != "s eh v ah n" {
		t.Errorf("fold %q", got)
	}
	for _, p := range Phones {
		if p != "ax" && !slices.Contains(LexiconPhones, p) {
			t.Errorf("phone %q of Phones is not a lexicon phone", p)
		}
	}
}

// The Debian dictionary, when installed: every phone parses, and the
// words of the phone corpora's sentences and the digits are in it.
func TestDebianLexicon(t *testing.T) {
	if _, err := os.Stat(DefaultLexiconPath); err != nil {
		t.Skip("pocketsphinx-en-us not installed")
	}
	l, err := LoadLexicon("")
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() < 100000 {
		t.Errorf("%d words", l.Len())
	}
	for d, w := range DigitWords {
		phones, _ := l.Transcribe([]string{w})
		if want := FoldToLexicon(strings.Fields(DigitPhones[d])); !slices.Equal(phones, want) {
			t.Errorf("%s: %q, the digit models' %q", w, phones, want)
		}
	}
	m := MissingWords{}
	for _, s := range Sentences(500, 1) {
		_, missing := l.Transcribe(TextWords(s))
		m.Add(missing...)
	}
	if len(m) > 0 {
		t.Errorf("the sentences' vocabulary: %s", m)
	}
}

func FuzzReadLexicon(f *testing.F) {
	f.Add(lexiconFixture)
	f.Add("x(2 AH\n")
	f.Add("a AH#\n#\n((1) B\n")
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ReadLexicon(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, w := range l.Words() {
			for _, p := range l.Pronunciations(w) {
				if len(p) == 0 {
					t.Fatalf("%q: an empty pronunciation", w)
				}
				for _, ph := range p {
					if !slices.Contains(LexiconPhones, ph) {
						t.Fatalf("%q: phone %q", w, ph)
					}
				}
			}
		}
	})
}

func TestPronounce(t *testing.T) {
	l, err := ReadLexicon(strings.NewReader(lexiconFixture))
	if err != nil {
		t.Fatal(err)
	}
	prons, missing := l.Pronounce([]string{"a", "zz", "read"}, 3)
	if len(prons) != 3 || strings.Join(prons[0], " ") != "ah r eh d" || strings.Join(prons[2], " ") != "ey r eh d" || !slices.Equal(missing, []string{"zz"}) {
		t.Errorf("prons %q, missing %q", prons, missing)
	}
}
