package datasets

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"
)

// DefaultLexiconPath is the CMU pronouncing dictionary as Debian main's
// pocketsphinx-en-us package installs it (about 134 000 words, BSD-2
// licence, ARPAbet without stress marks). Debian has no separate cmudict
// package; this one is already what the speech benchmark installs.
const DefaultLexiconPath = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

// LexiconPhones are the lexicon's 39 ARPAbet phones in Phones' lower-case
// names: Phones without "ax" (the dictionary writes an unstressed schwa as
// ah). Silence is not among them.
var LexiconPhones = []string{
	"iy", "ih", "eh", "ae", "aa", "ah", "ao", "uh", "uw", "er", "ey", "ay", "oy", "aw", "ow",
	"p", "b", "t", "d", "k", "g", "f", "v", "th", "dh", "s", "z", "sh", "zh", "ch", "jh",
	"m", "n", "ng", "l", "r", "w", "y", "hh",
}

// FoldToLexicon folds a phone string of Phones onto LexiconPhones (ax is
// ah), so an espeak-ng-labelled model is scored on the lexicon's phones.
func FoldToLexicon(phones []string) []string {
	out := make([]string, len(phones))
	for i, p := range phones {
		if p == "ax" {
			p = "ah"
		}
		out[i] = p
	}
	return out
}

// Lexicon maps words (lower case) to their pronunciations in
// LexiconPhones, in the dictionary's order (the first is its main one).
type Lexicon struct {
	prons map[string][][]string
}

// maxLexiconLine bounds one dictionary line; a longer one is an error, not
// an allocation.
const maxLexiconLine = 4096

// ReadLexicon parses a CMU-dictionary-style file: one "WORD PH PH ..." a
// line, a variant written "WORD(2)", stress digits (0, 1, 2) on vowels
// removed, ";;;" lines and "#" tails comments. A phone outside
// LexiconPhones, a word without phones or an over-long line is an error
// naming the line.
func ReadLexicon(r io.Reader) (*Lexicon, error) {
	known := map[string]bool{}
	for _, p := range LexiconPhones {
		known[p] = true
	}
	l := &Lexicon{prons: map[string][][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), maxLexiconLine)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, ";;;") {
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		word := strings.ToLower(f[0])
		if i := strings.IndexByte(word, '('); i > 0 && strings.HasSuffix(word, ")") {
			word = word[:i]
		}
		if len(f) == 1 {
			return nil, fmt.Errorf("lexicon line %d: %q has no phones", n, f[0])
		}
		pron := make([]string, 0, len(f)-1)
		for _, p := range f[1:] {
			ph := strings.ToLower(strings.TrimRight(p, "012"))
			if !known[ph] {
				return nil, fmt.Errorf("lexicon line %d: %q is not an ARPAbet phone", n, p)
			}
			pron = append(pron, ph)
		}
		l.prons[word] = append(l.prons[word], pron)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	if len(l.prons) == 0 {
		return nil, fmt.Errorf("lexicon: no words")
	}
	return l, nil
}

// LoadLexicon reads the lexicon at path (DefaultLexiconPath when empty),
// saying which Debian package provides the default when it is missing.
func LoadLexicon(path string) (*Lexicon, error) {
	if path == "" {
		path = DefaultLexiconPath
	}
	fh, err := os.Open(path)
	if err != nil {
		if path == DefaultLexiconPath {
			return nil, fmt.Errorf("%w (install Debian's pocketsphinx-en-us: mk/packages.sh)", err)
		}
		return nil, err
	}
	defer fh.Close()
	l, err := ReadLexicon(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Len is the number of words.
func (l *Lexicon) Len() int { return len(l.prons) }

// Pronunciations are word's pronunciations (nil when the lexicon lacks
// it); the word is looked up in lower case.
func (l *Lexicon) Pronunciations(word string) [][]string {
	return l.prons[strings.ToLower(word)]
}

// Words lists the lexicon's words, sorted.
func (l *Lexicon) Words() []string {
	out := make([]string, 0, len(l.prons))
	for w := range l.prons {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// TextWords splits a transcript into lexicon words: lower case, split at
// anything but letters, digits and the apostrophe inside a word.
func TextWords(text string) []string {
	f := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := f[:0]
	for _, w := range f {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Transcribe gives the words' phones by their first pronunciations; the
// words the lexicon lacks are returned in missing (in order, repeated as
// often as they occur) and contribute no phones.
func (l *Lexicon) Transcribe(words []string) (phones, missing []string) {
	for _, w := range words {
		p := l.Pronunciations(w)
		if p == nil {
			missing = append(missing, w)
			continue
		}
		phones = append(phones, p[0]...)
	}
	return phones, missing
}

// MissingWords counts the transcript words a lexicon lacks, for the
// report every user of the lexicon prints.
type MissingWords map[string]int

// Add counts words.
func (m MissingWords) Add(words ...string) {
	for _, w := range words {
		m[w]++
	}
}

// String names every missing word with its count, most frequent first:
// "2 words missing from the lexicon (3 occurrences): harbour ×2, zzz ×1".
func (m MissingWords) String() string {
	if len(m) == 0 {
		return "no word missing from the lexicon"
	}
	words := make([]string, 0, len(m))
	total := 0
	for w, n := range m {
		words = append(words, w)
		total += n
	}
	sort.Slice(words, func(i, j int) bool {
		if m[words[i]] != m[words[j]] {
			return m[words[i]] > m[words[j]]
		}
		return words[i] < words[j]
	})
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = fmt.Sprintf("%s ×%d", w, m[w])
	}
	noun := "words"
	if len(words) == 1 {
		noun = "word"
	}
	return fmt.Sprintf("%d %s missing from the lexicon (%d occurrences): %s", len(words), noun, total, strings.Join(parts, ", "))
}

// Pronounce lists the words' pronunciations, every variant of every word
// combined, at most limit of them (the first variants first), so a scorer
// can compare a phone string with the closest. A word the lexicon lacks
// is in missing and contributes nothing.
func (l *Lexicon) Pronounce(words []string, limit int) (prons [][]string, missing []string) {
	prons = [][]string{{}}
	for _, w := range words {
		vs := l.Pronunciations(w)
		if vs == nil {
			missing = append(missing, w)
			continue
		}
		var next [][]string
		for _, p := range prons {
			for _, v := range vs {
				if len(next) == max(limit, 1) {
					break
				}
				next = append(next, append(append([]string(nil), p...), v...))
			}
		}
		prons = next
	}
	return prons, missing
}
