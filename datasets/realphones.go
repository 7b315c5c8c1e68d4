package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RealPhoneRecording is one real recording with the words it says; its
// phones come from a Lexicon.
type RealPhoneRecording struct {
	Path, Speaker string
	Words         []string
}

// RealPhoneSplit says which real speakers a phone model may train on,
// which choose between recipes (development) and which only report the
// final figure (test). No speaker is in two splits.
type RealPhoneSplit struct {
	Train, Dev, Test []string
}

// DefaultRealPhoneSpeakers: the GCompris words (564 words by the
// art4apps speakers, the only real speech with many different words)
// train; two voices of letters, numbers or digits choose (rich: female,
// letters, digits and ten–twenty; saytime: male, digits); three are kept
// for the final figure (wycherley: female, letters, digits and
// ten–twenty; warzone: female, radio-processed digits; captcha: male,
// fast digits). Registered in experiments/journal/phones.md (round 5).
var DefaultRealPhoneSpeakers = RealPhoneSplit{
	Train: []string{"gcompris-words"},
	Dev:   []string{"rich", "saytime"},
	Test:  []string{"wycherley", "warzone", "captcha"},
}

// Role is the split a speaker is in ("train", "dev", "test"; "" when in
// none).
func (s RealPhoneSplit) Role(speaker string) string {
	for role, names := range map[string][]string{"train": s.Train, "dev": s.Dev, "test": s.Test} {
		for _, n := range names {
			if n == speaker {
				return role
			}
		}
	}
	return ""
}

// numberWords name ten to twenty, the GCompris voices' "10"–"20".
var numberWords = map[int]string{10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen", 15: "fifteen",
	16: "sixteen", 17: "seventeen", 18: "eighteen", 19: "nineteen", 20: "twenty"}

// RealPhoneRecordings lists the real speech of the voices folder root with
// its words: every voice's digits ("zero"…"nine", "oh"), the GCompris
// voices' letters (the letter as its word: "b") and ten–twenty, and the
// GCompris words (a file "orange-color" says "orange color").
func RealPhoneRecordings(root string) ([]RealPhoneRecording, error) {
	digits, err := RealVoiceDigits(root)
	if err != nil {
		return nil, err
	}
	var out []RealPhoneRecording
	for _, r := range digits {
		w := r.Label
		if d, err := strconv.Atoi(w); err == nil {
			w = DigitWords[d]
		}
		out = append(out, RealPhoneRecording{Path: r.Path, Speaker: r.Speaker, Words: []string{w}})
	}
	for _, v := range realVoices {
		if !strings.HasPrefix(v.Dir, "gcompris-en/") {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(root, v.Dir))
		if err != nil {
			return nil, fmt.Errorf("the real voice %s: %w", v.Name, err)
		}
		for _, e := range ents {
			name, ok := strings.CutSuffix(e.Name(), ".wav")
			if !ok {
				continue
			}
			var word string
			if n, err := strconv.Atoi(name); err == nil && numberWords[n] != "" {
				word = numberWords[n]
			} else if c, err := strconv.ParseUint(strings.TrimPrefix(name, "U"), 16, 32); err == nil && strings.HasPrefix(name, "U") &&
				c >= 'a' && c <= 'z' && c != 'o' { // o is "oh", listed with the digits
				word = string(rune(c))
			}
			if word != "" {
				out = append(out, RealPhoneRecording{Path: filepath.Join(root, v.Dir, e.Name()), Speaker: v.Name, Words: []string{word}})
			}
		}
	}
	words, err := RealWords(root)
	if err != nil {
		return nil, err
	}
	for _, r := range words {
		out = append(out, RealPhoneRecording{Path: r.Path, Speaker: r.Speaker, Words: TextWords(r.Label)})
	}
	return out, nil
}
