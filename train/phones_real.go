package train

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/rfstream/rfstream/datasets"
)

// RealPhoneLabels are the real recordings of a voices folder with the
// lexicon's phones: the words of each, its first pronunciation as its
// phones and every pronunciation (for scoring against the closest).
type RealPhoneLabels struct {
	Recordings []datasets.RealPhoneRecording
	Phones     [][]string
	Prons      [][][]string
	// Missing counts the words the lexicon lacks; a recording with one is
	// left out (Skipped).
	Missing datasets.MissingWords
	Skipped int
}

// maxScoredPronunciations bounds the pronunciations a transcript is
// scored against (every variant of every word, combined).
const maxScoredPronunciations = 64

// LabelRealPhones reads the real recordings of the voices folder root
// whose speakers keep says, and gives each its lexicon phones.
func LabelRealPhones(root string, lex *datasets.Lexicon, keep func(speaker string) bool) (*RealPhoneLabels, error) {
	recs, err := datasets.RealPhoneRecordings(root)
	if err != nil {
		return nil, err
	}
	l := &RealPhoneLabels{Missing: datasets.MissingWords{}}
	for _, r := range recs {
		if !keep(r.Speaker) {
			continue
		}
		phones, missing := lex.Transcribe(r.Words)
		if len(missing) > 0 || len(phones) == 0 {
			l.Missing.Add(missing...)
			l.Skipped++
			continue
		}
		prons, _ := lex.Pronounce(r.Words, maxScoredPronunciations)
		l.Recordings, l.Phones, l.Prons = append(l.Recordings, r), append(l.Phones, phones), append(l.Prons, prons)
	}
	return l, nil
}

// addRealPhones adds the real training speakers' recordings (v.Real's
// v.RealSpeakers.Train), labelled with the lexicon's phones; they start
// flat, as FSDD's words do. Every tenth is held out of the classifier to
// tune the decoder with the synthetic development voices, so the phone
// penalty also suits real words said alone.
func addRealPhones(v PhoneVoices, d *PhoneData, log io.Writer) error {
	if _, err := os.Stat(v.Real); err != nil && v.SkipMissing {
		fmt.Fprintf(log, "phones: the real speech left out: %v\n", err)
		return nil
	}
	lex, err := datasets.LoadLexicon(v.Lexicon)
	if err != nil {
		return err
	}
	split := v.realSpeakers()
	l, err := LabelRealPhones(v.Real, lex, func(s string) bool { return slices.Contains(split.Train, s) })
	if err != nil {
		return err
	}
	var train, tune []datasets.Utterance
	for i, r := range l.Recordings {
		u := datasets.Utterance{Path: r.Path, Words: l.Phones[i], Speaker: "real:" + r.Speaker}
		if i%realTuneEvery == realTuneEvery-1 {
			tune = append(tune, u)
		} else {
			train = append(train, u)
		}
	}
	fmt.Fprintf(log, "phones: %d real recordings of %v with the lexicon's phones, %d of them held out for tuning (%d left out: %s)\n",
		len(l.Recordings), split.Train, len(tune), l.Skipped, l.Missing)
	if len(train) == 0 {
		return fmt.Errorf("phones: no real training recordings of %v in %s", split.Train, v.Real)
	}
	d.TrainVoices = append(d.TrainVoices, prefixed("real:", split.Train)...)
	if len(tune) > 0 {
		d.DevVoices = append(d.DevVoices, prefixed("real:", split.Train)...)
	}
	if err := addPhoneUtterances(d, train, nil, roleTrain, "real"); err != nil {
		return err
	}
	return addPhoneUtterances(d, tune, nil, roleDev, "real")
}

// realTuneEvery: one real training recording in this many tunes instead.
const realTuneEvery = 10

// realSpeakers is v.RealSpeakers, or the registered split when unset.
func (v PhoneVoices) realSpeakers() datasets.RealPhoneSplit {
	if len(v.RealSpeakers.Train)+len(v.RealSpeakers.Dev)+len(v.RealSpeakers.Test) == 0 {
		return datasets.DefaultRealPhoneSpeakers
	}
	return v.RealSpeakers
}

// lexiconLabeller relabels synthesised sentences with a lexicon's phones
// of their words (PhoneVoices.LexiconLabels).
type lexiconLabeller struct {
	lex     *datasets.Lexicon
	missing datasets.MissingWords
	skipped int
}

// relabel gives each utterance the lexicon's phones of its text (textOf
// its path) and drops its phone times (spans, kept parallel to us, may be
// nil; a relabelled utterance's are nil); an utterance whose text is unknown or has a word the lexicon
// lacks is left out and counted.
func (l *lexiconLabeller) relabel(us []datasets.Utterance, spans [][]datasets.PhoneSpan, textOf func(path string) string) ([]datasets.Utterance, [][]datasets.PhoneSpan) {
	var out []datasets.Utterance
	var outSpans [][]datasets.PhoneSpan
	for _, u := range us {
		text := textOf(u.Path)
		phones, missing := l.lex.Transcribe(datasets.TextWords(text))
		if text == "" || len(missing) > 0 || len(phones) == 0 {
			l.missing.Add(missing...)
			l.skipped++
			continue
		}
		u.Words = phones
		out = append(out, u)
		if spans != nil {
			outSpans = append(outSpans, nil)
		}
	}
	return out, outSpans
}

// RealPhoneRecipe is `rfstream train phones`' recipe since round 5 of
// experiments/journal/phones.md (R5c, the lowest PER on the real
// development speakers, and far under the espeak-ng-only model's): every
// synthesiser's voices (espeak-ng's every sentence, 40 sentences per flite
// and festival speaker), FSDD's digit words, the real training speakers of
// the voices folder (none when it is missing), 25 % augmented copies,
// every label from the lexicon, and first labels from the espeak-ng-only
// model's forced alignment (that model, trained first, is the one the
// round aligned with: the same options, deterministic). Its search is
// WordsAloneDecoder (round 6), not tuned.
func RealPhoneRecipe(voices string) PhoneOptions {
	o := DefaultPhoneOptions()
	v := &o.Voices
	v.Engines = []string{"espeak-ng", "flite", "festival"}
	v.EspeakPerVoice, v.Corpus.PerSpeaker, v.FSDDPerDigit, v.Augment = 0, 40, 1, 0.25
	v.Real, v.LexiconLabels, v.FirstLabels = voices, true, FirstLabelsAligned
	fixed := WordsAloneDecoder
	o.Fixed = &fixed
	return o
}
