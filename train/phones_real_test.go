package train

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
)

// --lexicon-labels on tiny espeak-ng and flite corpora: every training,
// development and test utterance (espeak-ng: 2 + 1 + 1; flite: 4 + 1 + 4,
// one speaker a voice tested) carries the lexicon's phones of its
// sentence (no espeak-ng "ax", no engine times), and the labels of one
// sentence would be the same whichever engine said it.
func TestLexiconLabels(t *testing.T) {
	if _, err := os.Stat(datasets.DefaultLexiconPath); err != nil {
		t.Skip("pocketsphinx-en-us not installed")
	}
	if err := (datasets.FliteEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	if err := (datasets.EspeakEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	o := DefaultPhoneOptions()
	o.EspeakDir = filepath.Join(t.TempDir(), "espeak")
	o.Espeak.Voices = datasets.PhoneVoiceSplit{Train: []string{"en+m1"}, Dev: []string{"en+m8"}, Test: []string{"en+m7"}}
	o.Espeak.TrainPerVoice, o.Espeak.DevPerVoice, o.Espeak.TestPerVoice = 2, 1, 1
	o.Voices.Engines = []string{"espeak-ng", "flite"}
	o.Voices.Dir = t.TempDir()
	o.Voices.Corpus = datasets.EnginePhoneOptions{Speakers: 9, PerSpeaker: 1, Cents: 100, MaxTempo: 1.1, Seed: 1, Rate: 8000}
	o.Voices.LexiconLabels = true
	var log strings.Builder
	d, err := LoadVoicePhones(o, &log)
	if err != nil {
		t.Fatal(err)
	}
	lex, err := datasets.LoadLexicon("")
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(phones []string) bool {
		for _, p := range phones {
			if !slices.Contains(datasets.LexiconPhones, p) {
				return false
			}
		}
		return len(phones) > 0
	}
	for _, u := range d.Train {
		if !allowed(u.Words) || u.Spans != nil || u.ExactSpans {
			t.Fatalf("training utterance %q with spans %v", u.Words, u.Spans)
		}
	}
	texts := datasets.PhoneCorpusTexts(o.Espeak)
	for _, u := range d.Test {
		if !allowed(u.Phones) {
			t.Fatalf("%s: test phones %q", u.Path, u.Phones)
		}
		if u.Engine == "espeak-ng" {
			want, _ := lex.Transcribe(datasets.TextWords(texts[datasets.CorpusTextKey(u.Path)]))
			if !slices.Equal(u.Phones, want) {
				t.Errorf("%s: %q, the lexicon's %q", u.Path, u.Phones, want)
			}
		}
	}
	if !slices.Equal(d.Phones, datasets.LexiconPhones) {
		t.Errorf("phone set %q", d.Phones)
	}
	if len(d.Train) != 2+1+4+1 || len(d.Test) != 1+4 || !strings.Contains(log.String(), "labelled by the lexicon; 0 left out") {
		t.Errorf("%d training, %d test utterances; log:\n%s", len(d.Train), len(d.Test), log.String())
	}
}

// A voices folder that is not there: left out with a line when missing
// parts may be skipped, an error naming it otherwise.
func TestRealSpeechMissingFolder(t *testing.T) {
	v := PhoneVoices{Real: filepath.Join(t.TempDir(), "no-voices"), SkipMissing: true}
	var log strings.Builder
	d := &PhoneData{}
	if err := addRealPhones(v, d, &log); err != nil || len(d.Train) != 0 || !strings.Contains(log.String(), "the real speech left out") {
		t.Fatalf("skipped: %v, %d utterances, log %q", err, len(d.Train), log.String())
	}
	v.SkipMissing = false
	if _, err := os.Stat(datasets.DefaultLexiconPath); err != nil {
		t.Skip("pocketsphinx-en-us not installed")
	}
	if err := addRealPhones(v, d, &log); err == nil || !strings.Contains(err.Error(), "no-voices") {
		t.Fatalf("not skipped: %v", err)
	}
}

// train phones' recipe end to end on tiny corpora: the espeak-ng-only
// aligner is trained first, aligns every utterance's lexicon phones, and
// the model trained on them has the lexicon's 39 phones.
func TestRealPhoneRecipeTrainsOnTinyCorpora(t *testing.T) {
	if _, err := os.Stat(datasets.DefaultLexiconPath); err != nil {
		t.Skip("pocketsphinx-en-us not installed")
	}
	if err := (datasets.FliteEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	if err := (datasets.EspeakEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	o := RealPhoneRecipe(filepath.Join(t.TempDir(), "no-voices")) // left out: SkipMissing
	o.Voices.Engines = []string{"espeak-ng", "flite"}
	o.EspeakDir = filepath.Join(t.TempDir(), "espeak")
	o.Espeak.Voices = datasets.PhoneVoiceSplit{Train: []string{"en+m1", "en+f1"}, Dev: []string{"en+m8"}, Test: []string{"en+m7"}}
	o.Espeak.TrainPerVoice, o.Espeak.DevPerVoice, o.Espeak.TestPerVoice = 3, 1, 1
	o.Voices.Dir = t.TempDir()
	o.Voices.Corpus = datasets.EnginePhoneOptions{Speakers: 9, PerSpeaker: 2, Cents: 100, MaxTempo: 1.1, Seed: 1, Rate: 8000}
	o.Voices.FSDDPerDigit = 0
	o.Map.M, o.Passes, o.Tune = 64, 1, false
	var log strings.Builder
	m, d, _, err := PhoneModel(o, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !slices.Equal(m.Labels, datasets.LexiconPhones) || !slices.Equal(d.Phones, datasets.LexiconPhones) {
		t.Errorf("model phones %q", m.Labels)
	}
	for _, want := range []string{"training the espeak-ng-only model to align", "the real speech left out", "(0 it could not align keep their own)"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}
