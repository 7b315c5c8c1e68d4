package datasets

import (
	"fmt"
	"path/filepath"
)

// PhoneCorpusTexts are the sentences BuildPhoneCorpus made its files say,
// by the file's split and name ("train/v00-000.wav", CorpusTextKey), drawn again from the
// same seed in the same order, so a corpus's phones can be relabelled
// from its words (e.g. by a Lexicon) without synthesising it again.
func PhoneCorpusTexts(o PhoneCorpusOptions) map[string]string {
	splits := []struct {
		name     string
		voices   []string
		perVoice int
	}{{"train", o.Voices.Train, o.TrainPerVoice}, {"dev", o.Voices.Dev, o.DevPerVoice}, {"test", o.Voices.Test, o.TestPerVoice}}
	total := 0
	for _, s := range splits {
		total += len(s.voices) * max(s.perVoice, 0)
	}
	sentences := Sentences(total, o.Seed)
	out := make(map[string]string, total)
	next := 0
	for _, s := range splits {
		for vi := range s.voices {
			for k := 0; k < s.perVoice; k++ {
				out[s.name+"/"+fmt.Sprintf("v%02d-%03d.wav", vi, k)] = sentences[next]
				next++
			}
		}
	}
	return out
}

// EnginePhoneCorpusTexts are the sentences of engine's phone corpus c
// (built with o), by the file's name ("s000_000.wav", filepath.Base).
func EnginePhoneCorpusTexts(c EnginePhoneCorpus, o EnginePhoneOptions) map[string]string {
	sentences := Sentences(len(c.Speakers)*o.PerSpeaker, engineSentenceSeed(c.Engine, o.Seed))
	out := make(map[string]string, len(sentences))
	for si := range c.Speakers {
		for k := 0; k < o.PerSpeaker; k++ {
			out[fmt.Sprintf("s%03d_%03d.wav", si, k)] = sentences[si*o.PerSpeaker+k]
		}
	}
	return out
}

// CorpusTextKey is PhoneCorpusTexts' key of a file of the corpus: its
// folder's name and its own.
func CorpusTextKey(path string) string {
	return filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
}
