package train

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
)

// AllLexiconWords, as the vocabulary of PhoneWordFinder, is every word of
// the lexicon.
const AllLexiconWords = "all"

// PhoneWordFinder finds the words of a vocabulary in recognised phones by
// the pronunciations of lexicon (a file; empty: the Debian dictionary).
// vocab is a word list file (one word a line, '#' starts a comment, at
// most maxVocabBytes) or AllLexiconWords. A vocabulary word the lexicon lacks is left out and
// reported in missing.
func PhoneWordFinder(lexicon, vocab string) (f *decode.PhoneWords, missing datasets.MissingWords, err error) {
	lex, err := datasets.LoadLexicon(lexicon)
	if err != nil {
		return nil, nil, err
	}
	var words []string
	if vocab == AllLexiconWords {
		words = lex.Words()
	} else if words, err = readVocabulary(vocab); err != nil {
		return nil, nil, err
	}
	return WordFinderOf(lex, words)
}

// RecognizeWordFinder is recognize --words': nil without a vocabulary,
// an error for a model of another task than phones; vocabulary words the
// lexicon lacks are named on log and left out. wordCost > 0 replaces the
// lookup's cost per word.
func RecognizeWordFinder(task, lexicon, vocab string, wordCost float64, log io.Writer) (*decode.PhoneWords, error) {
	if vocab == "" {
		return nil, nil
	}
	if task != engine.TaskPhones {
		return nil, fmt.Errorf("recognize --words: model task %q; it needs a phone model", task)
	}
	f, missing, err := PhoneWordFinder(lexicon, vocab)
	if len(missing) > 0 {
		fmt.Fprintf(log, "recognize --words: %s (left out of the vocabulary)\n", missing)
	}
	if err == nil && wordCost > 0 {
		f.WordCost = wordCost
	}
	return f, err
}

// maxVocabBytes bounds a vocabulary file.
const maxVocabBytes = 8 << 20

// readVocabulary reads a word list: one word a line, '#' comments.
func readVocabulary(path string) ([]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxVocabBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxVocabBytes {
		return nil, fmt.Errorf("%s: more than %d bytes", path, maxVocabBytes)
	}
	var words []string
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		words = append(words, strings.Fields(line)...)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%s: no words", path)
	}
	return words, nil
}

// WordFinderOf is PhoneWordFinder for a lexicon and vocabulary in hand.
func WordFinderOf(lex *datasets.Lexicon, vocab []string) (*decode.PhoneWords, datasets.MissingWords, error) {
	missing := datasets.MissingWords{}
	var words []string
	var prons [][]string
	for _, w := range vocab {
		ps := lex.Pronunciations(w)
		if ps == nil {
			missing.Add(w)
		}
		for _, p := range ps {
			words, prons = append(words, strings.ToLower(w)), append(prons, p)
		}
	}
	if len(words) == 0 {
		return nil, missing, fmt.Errorf("phones: no word of the vocabulary is in the lexicon (%s)", missing)
	}
	f, err := decode.NewPhoneWords(words, prons)
	return f, missing, err
}

// stretchGap is the pause between two recognised phones (seconds) that
// ends a stretch of speech.
const stretchGap = 0.15

// PhoneStretchWords splits a phone model's result into stretches of
// speech (phones with no pause of stretchGap between them) and gives each
// stretch's best-matching words (the model's ax counted as the lexicon's
// ah).
func PhoneStretchWords(f *decode.PhoneWords, phones []engine.Word) [][]string {
	var out [][]string
	var stretch []string
	flush := func() {
		if len(stretch) > 0 {
			words, _ := f.Find(datasets.FoldToLexicon(stretch))
			out = append(out, words)
			stretch = nil
		}
	}
	for i, p := range phones {
		if i > 0 && p.Start-phones[i-1].End >= stretchGap {
			flush()
		}
		stretch = append(stretch, p.Word)
	}
	flush()
	return out
}

// StretchText writes stretches' words as one line, stretches apart by " | ".
func StretchText(stretches [][]string) string {
	parts := make([]string, len(stretches))
	for i, s := range stretches {
		parts[i] = strings.Join(s, " ")
	}
	return strings.Join(parts, " | ")
}
