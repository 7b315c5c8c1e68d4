package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RealVoice is one real recorded speaker of the shared voices folder
// (../shared/voices, see its README): who it is, and where its digits are.
type RealVoice struct {
	// Name is the speaker's short name, used as the recordings' Speaker.
	Name string
	// Sex is "female" or "male".
	Sex string
	// Dir is the speaker's folder under the voices root.
	Dir string
	// Source and Licence are what a model trained on the voice must credit.
	Source, Licence string
	// digitFile names the file of each word ("0"–"9", "oh") without ".wav".
	digitFile func(word string) string
}

// gcomprisFile names a GCompris alphabet recording: the word's Unicode
// code point ("U0030" is '0'; "oh" is the letter o, "U006F").
func gcomprisFile(word string) string {
	if word == "oh" {
		return "U006F"
	}
	return fmt.Sprintf("U%04X", word[0])
}

func plainFile(word string) string { return word }

// realVoices are the voices folder's speakers of digits, in its README's
// order. FSDD's six men are not among them (FSDD reads them).
var realVoices = []RealVoice{
	{Name: "wycherley", Sex: Female, Dir: "gcompris-en/wycherley", Source: "GCompris voices, Julia Wycherley (2011)", Licence: "GPL", digitFile: gcomprisFile},
	{Name: "rich", Sex: Female, Dir: "gcompris-en/rich", Source: "GCompris voices, Susan Rich (2003)", Licence: "GPL", digitFile: gcomprisFile},
	{Name: "warzone", Sex: Female, Dir: "warzone2100/digits", Source: "Debian warzone2100-data, the game's voice actress (radio effect)", Licence: "GPL-2+", digitFile: plainFile},
	{Name: "saytime", Sex: Male, Dir: "saytime", Source: "Debian saytime, David C Dawson (2004)", Licence: "GPL", digitFile: plainFile},
	{Name: "captcha", Sex: Male, Dir: "captcha-en", Source: "Go module github.com/dchest/captcha v1.1.0", Licence: "MIT", digitFile: plainFile},
}

// RealVoices lists the real voices of the shared voices folder.
func RealVoices() []RealVoice { return append([]RealVoice(nil), realVoices...) }

// FSDDSex is the sex of FSDD's speakers: all six are men.
const FSDDSex = Male

// realVoiceWords are the words a voice may say: the ten digits and "oh".
var realVoiceWords = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "oh"}

// RealVoiceDigits lists the digits (and "oh" where a voice has it) of the
// real voices under root (the voices folder), one recording per word and
// voice, Speaker the voice's Name and Take -1. A voice whose folder is
// missing is an error naming it; a missing "oh" is not (most voices lack
// one), a missing digit is.
func RealVoiceDigits(root string) ([]Recording, error) {
	var recs []Recording
	for _, v := range realVoices {
		dir := filepath.Join(root, v.Dir)
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("the real voice %s (%s): %w", v.Name, v.Source, err)
		}
		for _, w := range realVoiceWords {
			p := filepath.Join(dir, v.digitFile(w)+".wav")
			if _, err := os.Stat(p); err != nil {
				if w == "oh" {
					continue
				}
				return nil, fmt.Errorf("the real voice %s has no %q: %w", v.Name, w, err)
			}
			recs = append(recs, Recording{Path: p, Label: w, Speaker: v.Name, Take: -1})
		}
	}
	return recs, nil
}

// RealWords lists the non-digit words of the voices folder
// (gcompris-en/words: one real word a file, named by the word), Label the
// word, Speaker "gcompris-words", sorted by word.
func RealWords(root string) ([]Recording, error) {
	dir := filepath.Join(root, "gcompris-en", "words")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the real non-digit words: %w", err)
	}
	var recs []Recording
	for _, e := range ents {
		if w, ok := strings.CutSuffix(e.Name(), ".wav"); ok && !e.IsDir() {
			recs = append(recs, Recording{Path: filepath.Join(dir, e.Name()), Label: w, Speaker: "gcompris-words", Take: -1})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Label < recs[j].Label })
	return recs, nil
}

// SexOf is the sex of a speaker of FSDD or of the real voices ("" when
// unknown).
func SexOf(speaker string) string {
	for _, v := range realVoices {
		if v.Name == speaker {
			return v.Sex
		}
	}
	switch speaker {
	case "george", "jackson", "lucas", "nicolas", "theo", "yweweler":
		return FSDDSex
	}
	return ""
}
