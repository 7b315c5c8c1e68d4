package datasets

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/rfstream/rfstream/frontend"
)

//go:embed nondigit_words.txt
var nonDigitWordsFile []byte

//go:embed filler_train_words.txt
var fillerTrainWordsFile []byte

// NonDigitWords returns the committed list of English words that are not
// digits (nondigit_words.txt): what a digit recogniser's rejection is
// measured on.
func NonDigitWords() []string {
	ws, err := ParseWordList(nonDigitWordsFile, "nondigit_words.txt")
	if err != nil {
		panic(err) // the embedded file is tested: TestNonDigitWordsParse
	}
	return ws
}

// FillerTrainWords returns the committed list of non-digit words a digit
// recogniser's filler model is trained on (filler_train_words.txt); none of
// them is in NonDigitWords.
func FillerTrainWords() []string {
	ws, err := ParseWordList(fillerTrainWordsFile, "filler_train_words.txt")
	if err != nil {
		panic(err) // the embedded file is tested: TestWordListsAreDisjoint
	}
	return ws
}

// digitSoundAlikes are words a listener can hear as a digit: homophones of
// a digit's name or of "oh" (a spoken 0), and words in which one of them is
// a whole syllable or that are built on a digit's name. A list of words a
// digit recogniser should reject must not hold them.
var digitSoundAlikes = map[string]bool{
	"zero": true, "one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "oh": true, "o": true, "owe": true,
	"to": true, "too": true, "tu": true, "for": true, "fore": true, "won": true, "ate": true, "sics": true,
	"sicks": true, "nein": true,
	"today": true, "tonight": true, "tomorrow": true, "together": true, "before": true, "forget": true,
	"forward": true, "someone": true, "anyone": true, "everyone": true,
	"thirteen": true, "fourteen": true, "fifteen": true, "sixteen": true, "seventeen": true, "eighteen": true,
	"nineteen": true, "twenty": true, "thirty": true, "forty": true, "fifty": true, "sixty": true,
	"seventy": true, "eighty": true, "ninety": true,
}

// A word list's size and the length of one word are bounded.
const (
	maxWordListBytes = 1 << 20
	maxWordLength    = 40
)

// ReadWordList reads a word list file (ParseWordList).
func ReadWordList(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxWordListBytes {
		return nil, fmt.Errorf("%s: %d bytes, a word list may hold at most %d", path, st.Size(), maxWordListBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWordList(b, path)
}

// ParseWordList reads a list of non-digit words: one lower-case word (a–z,
// with inner apostrophes or hyphens) a line, blank lines and '#' comments
// ignored. A word twice, a word that sounds like a digit (digitSoundAlikes)
// or anything else is refused with the file name and line.
func ParseWordList(b []byte, name string) ([]string, error) {
	if len(b) > maxWordListBytes {
		return nil, fmt.Errorf("%s: %d bytes, a word list may hold at most %d", name, len(b), maxWordListBytes)
	}
	var words []string
	seen := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		if k := strings.IndexByte(line, '#'); k >= 0 {
			line = line[:k]
		}
		w := strings.TrimSpace(line)
		if w == "" {
			continue
		}
		if err := checkListWord(w); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if seen[w] {
			return nil, fmt.Errorf("%s:%d: %q is listed twice", name, i+1, w)
		}
		seen[w] = true
		words = append(words, w)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%s: no words", name)
	}
	return words, nil
}

func checkListWord(w string) error {
	if len(w) > maxWordLength {
		return fmt.Errorf("a word of %d bytes (at most %d)", len(w), maxWordLength)
	}
	for j, r := range w {
		inner := j > 0 && j < len(w)-1
		if !(r >= 'a' && r <= 'z') && !(inner && (r == '\'' || r == '-')) {
			return fmt.Errorf("%q: a word is lower-case letters a–z (inner ' or - allowed)", w)
		}
	}
	if digitSoundAlikes[w] {
		return fmt.Errorf("%q sounds like a digit (or is one): a listener may hear it as one, so it cannot be a word to reject", w)
	}
	return nil
}

// SynthWord is text said by voice v as a microphone in a room hears it:
// espeak-ng's audio with a short stretch of background either side and a
// faint noise floor under it, its peak at a level drawn from seed (the
// same room as BuildSynthDigits gives its digits).
func SynthWord(text string, v Voice, rate int, seed uint64) (*frontend.Audio, error) {
	a, err := Espeak(text, v, rate)
	if err != nil {
		return nil, err
	}
	if len(a.Samples) == 0 {
		return nil, fmt.Errorf("datasets: espeak-ng voice %s said nothing for %q", v, text)
	}
	a.Samples = roomEdges(a.Samples, rate, seed)
	return a, nil
}
