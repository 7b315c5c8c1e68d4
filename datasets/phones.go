package datasets

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Phones is the phone set of the espeak-ng corpus: 40 phones in TIMIT's
// ARPAbet names (16 vowels, 24 consonants), so a TIMIT-trained and an
// espeak-trained model speak the same labels. Silence is not a phone here:
// recognisers model it separately.
var Phones = []string{
	"iy", "ih", "eh", "ae", "aa", "ah", "ao", "uh", "uw", "er", "ax", "ey", "ay", "oy", "aw", "ow",
	"p", "b", "t", "d", "k", "g", "f", "v", "th", "dh", "s", "z", "sh", "zh", "ch", "jh",
	"m", "n", "ng", "l", "r", "w", "y", "hh",
}

// espeakPhones maps espeak-ng's English phoneme mnemonics (as -x prints
// them, stress and length marks removed) onto Phones. A value of several
// phones expands (a syllabic l is a schwa and an l); "" drops the symbol
// (pauses). Centring diphthongs keep their first vowel: non-rhotic voices
// say "car" as one long vowel, and rhotic voices add their own r.
var espeakPhones = map[string]string{
	// Vowels.
	"i": "iy", "i@3": "iy r", "I": "ih", "I2": "ih", "I#": "ih", "i@": "ih",
	"E": "eh", "e@": "eh", "a": "ae", "aa": "aa", "A": "aa", "A@": "aa", "0": "aa",
	"V": "ah", "O": "ao", "O2": "ao", "O@": "ao", "o@": "ao",
	"U": "uh", "U@": "uh", "u": "uw",
	"3": "er", "VR": "er", "IR": "er", "@": "ax", "@2": "ax", "a#": "ax", "@5": "ax",
	"eI": "ey", "aI": "ay", "aI@": "ay ax", "aI3": "ay er", "aI2": "ay", "OI": "oy",
	"aU": "aw", "aU@": "aw ax", "oU": "ow", "o": "ow", "@U": "ow",
	"@L": "ax l", "@N": "ax n", "@M": "ax m",
	// Consonants.
	"p": "p", "b": "b", "t": "t", "t#": "t", "t2": "t", "t[": "t", "d": "d", "d#": "d", "k": "k", "g": "g", "x": "k",
	"f": "f", "v": "v", "T": "th", "D": "dh", "s": "s", "z": "z", "S": "sh", "Z": "zh",
	"tS": "ch", "dZ": "jh", "m": "m", "n": "n", "N": "ng", "n-": "n", "m-": "m",
	"l": "l", "l/": "l", "L": "l", "r": "r", "r-": "r", "R": "r", "w": "w", "w#": "w", "j": "y", "h": "hh", "?": "",
	// Pauses and modifiers printed as their own symbols.
	"!": "", ";": "", "": "",
}

// EspeakToPhones turns espeak-ng's "-x --sep=_" output (phonemes separated
// by '_', words by spaces) into Phones: stress marks (' , % =) and length
// marks (:) are removed and each symbol mapped. An unknown symbol is an
// error naming it, so a new espeak-ng release cannot silently change the
// labels.
func EspeakToPhones(out string) ([]string, error) {
	var phones []string
	for _, word := range strings.Fields(out) {
		for _, sym := range strings.Split(word, "_") {
			s := strings.Map(func(r rune) rune {
				if strings.ContainsRune("',%=:", r) {
					return -1
				}
				return r
			}, sym)
			m, ok := espeakPhones[s]
			if !ok {
				return nil, fmt.Errorf("datasets: espeak-ng phoneme %q (in %q) has no phone mapping", sym, word)
			}
			phones = append(phones, strings.Fields(m)...)
		}
	}
	return phones, nil
}

// Sentence word classes: our own vocabulary, chosen to cover every phone
// (including the rare zh, oy, uh, th, dh) many times.
var (
	sentDet   = []string{"the", "a", "this", "that", "every", "some", "my", "your", "our", "their", "one"}
	sentAdj   = []string{"red", "green", "blue", "yellow", "black", "white", "brown", "purple", "grey", "golden", "big", "small", "tall", "short", "old", "young", "quiet", "loud", "happy", "angry", "tired", "hungry", "clever", "brave", "gentle", "heavy", "bright", "dark", "cold", "warm", "usual", "smooth", "rough", "noisy", "joyful", "thin", "thick", "good", "wooden", "foolish"}
	sentNoun  = []string{"cat", "dog", "horse", "bird", "fish", "mouse", "sheep", "goat", "cow", "pig", "fox", "wolf", "bear", "lion", "tiger", "snake", "frog", "duck", "owl", "whale", "man", "woman", "child", "teacher", "doctor", "farmer", "sailor", "driver", "pilot", "baker", "singer", "writer", "painter", "judge", "nurse", "king", "queen", "soldier", "boy", "cook", "author", "brother", "mother", "father", "garage", "treasure", "measure", "vision", "television", "toy", "coin", "voice", "book", "foot", "wood", "hook", "sugar", "cushion", "thumb", "thief", "anchor", "bottle", "kitten", "youth", "chain", "jacket", "shadow", "giant"}
	sentPlace = []string{"house", "garden", "river", "mountain", "forest", "city", "village", "school", "market", "bridge", "road", "window", "door", "table", "kitchen", "church", "castle", "valley", "island", "beach", "shop", "field", "tower", "harbour", "station"}
	sentVerbT = []string{"sees", "finds", "likes", "wants", "takes", "brings", "carries", "watches", "follows", "pushes", "pulls", "catches", "holds", "reads", "paints", "builds", "opens", "closes", "buys", "sells", "enjoys", "chooses", "measures", "thanks", "chases", "teaches", "joins", "avoids", "loves", "shows"}
	sentVerbI = []string{"walks", "runs", "jumps", "sleeps", "sings", "laughs", "waits", "talks", "swims", "climbs", "dances", "shouts", "works", "thinks", "hides", "plays", "rests", "stays", "smiles", "cooks"}
	sentAdv   = []string{"quickly", "slowly", "often", "never", "always", "sometimes", "today", "yesterday", "tomorrow", "early", "late", "together", "usually", "loudly", "gently"}
	sentPrep  = []string{"in", "on", "under", "behind", "near", "beside", "above", "through", "across", "towards", "outside", "around"}
	sentConj  = []string{"and", "but", "because", "while", "when", "after", "before"}
)

// Sentences draws n sentences from our word lists with a small grammar
// (noun phrases, transitive and intransitive clauses, places, adverbs and
// joined clauses). The same seed gives the same sentences.
func Sentences(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 0x73656e74))
	pick := func(w []string) string { return w[rng.IntN(len(w))] }
	np := func() string {
		if rng.IntN(2) == 0 {
			return pick(sentDet) + " " + pick(sentAdj) + " " + pick(sentNoun)
		}
		return pick(sentDet) + " " + pick(sentNoun)
	}
	clause := func() string {
		var s string
		if rng.IntN(2) == 0 {
			s = np() + " " + pick(sentVerbT) + " " + np()
		} else {
			s = np() + " " + pick(sentVerbI)
		}
		switch rng.IntN(3) {
		case 0:
			s += " " + pick(sentPrep) + " the " + pick(sentPlace)
		case 1:
			s += " " + pick(sentAdv)
		}
		return s
	}
	out := make([]string, n)
	for i := range out {
		s := clause()
		if rng.IntN(4) == 0 {
			s += " " + pick(sentConj) + " " + clause()
		}
		out[i] = s
	}
	return out
}

// PhoneVoiceSplit says which synthetic voices a phone corpus trains on,
// which held-out training voices choose the decoder's settings (and the
// classifier's λ and temperature), and which are kept for test only.
type PhoneVoiceSplit struct {
	Train, Dev, Test []string
}

// DefaultPhoneVoices: 8 training voices, 2 development voices, 3 test
// voices, each split mixing male and female variants and accents; no
// voice is in two splits.
var DefaultPhoneVoices = PhoneVoiceSplit{
	Train: []string{"en+m1", "en+m2", "en+m4", "en+f1", "en+f3", "en-us", "en-us+m6", "en-gb-x-rp+m5"},
	Dev:   []string{"en+m8", "en-us+f5"},
	Test:  []string{"en+m7", "en+f4", "en-us+m3"},
}

// PhoneCorpusOptions shape BuildPhoneCorpus.
type PhoneCorpusOptions struct {
	Voices PhoneVoiceSplit
	// Utterances per voice in each split.
	TrainPerVoice, DevPerVoice, TestPerVoice int
	// Speeds (words per minute) and pitches (0–99) are drawn uniformly
	// from these ranges for every utterance.
	MinSpeed, MaxSpeed, MinPitch, MaxPitch int
	Rate                                   int
	Seed                                   uint64
}

// DefaultPhoneCorpus is the corpus make eval-phones uses: 50 sentences per
// training voice (400), 30 per development voice, 30 per test voice.
func DefaultPhoneCorpus() PhoneCorpusOptions {
	return PhoneCorpusOptions{Voices: DefaultPhoneVoices, TrainPerVoice: 50, DevPerVoice: 30, TestPerVoice: 30,
		MinSpeed: 140, MaxSpeed: 190, MinPitch: 30, MaxPitch: 70, Rate: 8000, Seed: 1}
}

// PhoneCorpus lists the manifests of a built corpus (TSV: path, phones,
// voice).
type PhoneCorpus struct {
	Train, Dev, Test string
}

// BuildPhoneCorpus synthesises the espeak-ng phone corpus under dir
// (train/, dev/, test/, each with manifest.tsv whose transcripts are
// phones), unless a complete copy built with the same options is there.
// Every utterance is a fresh sentence (no sentence is in two splits) with
// its own speed and pitch; a little background noise covers the digital
// silence around the synthetic speech.
func BuildPhoneCorpus(dir string, o PhoneCorpusOptions) (PhoneCorpus, error) {
	c := PhoneCorpus{Train: filepath.Join(dir, "train", "manifest.tsv"), Dev: filepath.Join(dir, "dev", "manifest.tsv"),
		Test: filepath.Join(dir, "test", "manifest.tsv")}
	if o.Rate == 0 {
		o.Rate = 8000
	}
	if o.MaxSpeed < o.MinSpeed || o.MinSpeed <= 0 || o.MaxPitch < o.MinPitch || o.MinPitch < 0 || o.MaxPitch > 99 {
		return c, fmt.Errorf("datasets: speeds %d–%d, pitches %d–%d", o.MinSpeed, o.MaxSpeed, o.MinPitch, o.MaxPitch)
	}
	return c, buildOnce(dir, fmt.Sprintf("v1 %+v\n", o), nil, func() error { return writePhoneCorpus(dir, c, o) })
}

// writePhoneCorpus writes BuildPhoneCorpus's three splits into dir.
func writePhoneCorpus(dir string, c PhoneCorpus, o PhoneCorpusOptions) error {
	type split struct {
		name     string
		voices   []string
		perVoice int
		manifest string
	}
	splits := []split{{"train", o.Voices.Train, o.TrainPerVoice, c.Train}, {"dev", o.Voices.Dev, o.DevPerVoice, c.Dev},
		{"test", o.Voices.Test, o.TestPerVoice, c.Test}}
	total := 0
	for _, s := range splits {
		if len(s.voices) == 0 || s.perVoice <= 0 {
			return fmt.Errorf("datasets: phone corpus split %s has %d voices × %d utterances", s.name, len(s.voices), s.perVoice)
		}
		total += len(s.voices) * s.perVoice
	}
	sentences := Sentences(total, o.Seed)
	rng := rand.New(rand.NewPCG(o.Seed, 0x70686f6e))
	next := 0
	for _, s := range splits {
		out := filepath.Join(dir, s.name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		var us []Utterance
		for vi, name := range s.voices {
			for k := 0; k < s.perVoice; k++ {
				v := Voice{Name: name, Speed: o.MinSpeed + rng.IntN(o.MaxSpeed-o.MinSpeed+1), Pitch: o.MinPitch + rng.IntN(o.MaxPitch-o.MinPitch+1)}
				text := sentences[next]
				next++
				a, sym, err := EspeakPhonemes(text, v, o.Rate)
				if err != nil {
					return err
				}
				phones, err := EspeakToPhones(sym)
				if err != nil {
					return fmt.Errorf("%s (%q in voice %s): %w", s.name, text, v, err)
				}
				if len(phones) == 0 {
					return fmt.Errorf("datasets: espeak-ng gave no phonemes for %q", text)
				}
				noise := rand.New(rand.NewPCG(o.Seed, uint64(next)))
				level := 3e-4
				lead, trail := 0.1+0.3*noise.Float64(), 0.1+0.3*noise.Float64()
				a.Samples = append(append(Silence(int(lead*float64(o.Rate)), level, noise), a.Samples...),
					Silence(int(trail*float64(o.Rate)), level, noise)...)
				for i := range a.Samples {
					a.Samples[i] += float32(level * noise.NormFloat64())
				}
				normalisePeak(a.Samples)
				path := filepath.Join(out, fmt.Sprintf("v%02d-%03d.wav", vi, k))
				if err := writeWAV(path, a); err != nil {
					return err
				}
				us = append(us, Utterance{Path: path, Words: phones, Speaker: v.String()})
			}
		}
		if err := WriteTranscripts(s.manifest, us); err != nil {
			return err
		}
	}
	return nil
}
