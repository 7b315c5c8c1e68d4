package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/train"
)

// realPhones are eval phones --real's held-out real speakers: the
// development speakers (which choose between recipes) and the test
// speakers (the final figure), with the lexicon's pronunciations.
type realPhones struct {
	split  datasets.RealPhoneSplit
	labels *train.RealPhoneLabels
	// lex and finder find words in the recognised phones: the vocabulary
	// is every word the voices folder says (its GCompris words, digits,
	// letters, ten–twenty), vocab of them.
	lex    *datasets.Lexicon
	finder *decode.PhoneWords
	vocab  int
}

// loadRealPhones reads the development and test speakers of split from
// the voices folder root; words the lexicon lacks are reported on log by
// name and count, and their recordings left out.
func loadRealPhones(root, lexicon string, split datasets.RealPhoneSplit, log io.Writer) (*realPhones, error) {
	lex, err := datasets.LoadLexicon(lexicon)
	if err != nil {
		return nil, err
	}
	l, err := train.LabelRealPhones(root, lex, func(s string) bool { r := split.Role(s); return r == "dev" || r == "test" })
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "phones --real: %d recordings of the held-out real speakers (development %v, test %v); %d left out: %s\n",
		len(l.Recordings), split.Dev, split.Test, l.Skipped, l.Missing)
	if len(l.Recordings) == 0 {
		return nil, fmt.Errorf("phones --real: no recordings of %v or %v in %s", split.Dev, split.Test, root)
	}
	all, err := datasets.RealPhoneRecordings(root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var vocab []string
	for _, r := range all {
		for _, w := range r.Words {
			if !seen[w] && lex.Pronunciations(w) != nil {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	}
	finder, _, err := train.WordFinderOf(lex, vocab)
	if err != nil {
		return nil, err
	}
	return &realPhones{split: split, labels: l, lex: lex, finder: finder, vocab: len(vocab)}, nil
}

// realPhoneScore is one model's PER on the held-out real speakers, scored
// against the closest of the lexicon's pronunciations of each transcript
// (stress removed; the model's ax counted as ah; silence never scored).
type realPhoneScore struct {
	Name       string             `json:"name"`
	Decoder    string             `json:"decoder"`
	Dev        train.PhoneScore   `json:"dev"`
	Test       train.PhoneScore   `json:"test"`
	PerSpeaker map[string]float64 `json:"per_speaker_per"`
	// DevSpeakers and TestSpeakers are the registered split's.
	DevSpeakers  []string `json:"dev_speakers"`
	TestSpeakers []string `json:"test_speakers"`
	// DevWER and TestWER are the word errors of the words found in the
	// phones (recognize --words) among Vocabulary words; a homophone of
	// the transcript's word counts as right.
	WordCost   float64 `json:"word_cost"`
	DevWER     float64 `json:"dev_wer"`
	TestWER    float64 `json:"test_wer"`
	Vocabulary int     `json:"vocabulary"`
	Missing    string  `json:"missing_words"`
	Skipped    int     `json:"skipped_recordings"`
}

// closestPronunciation is the pronunciation of prons nearest hyp.
func closestPronunciation(prons [][]string, hyp []string) []string {
	best, bestErr := prons[0], -1
	for _, p := range prons {
		if e := decode.EditDistance(p, hyp).Errors(); bestErr < 0 || e < bestErr {
			best, bestErr = p, e
		}
	}
	return best
}

// score recognises every held-out real recording with m and scores it.
func (r *realPhones) score(m *engine.Model, name, decoder string) (realPhoneScore, []exampleLine, error) {
	rec, err := engine.NewConnected(m)
	if err != nil {
		return realPhoneScore{}, nil, err
	}
	l := r.labels
	paths := make([]string, len(l.Recordings))
	for i, u := range l.Recordings {
		paths[i] = u.Path
	}
	hyps, _, _, err := recognizeFiles(rec, paths)
	if err != nil {
		return realPhoneScore{}, nil, err
	}
	counts := map[string]*decode.ErrorCounts{"dev": {}, "test": {}}
	wordCounts := map[string]*decode.ErrorCounts{"dev": {}, "test": {}}
	per := map[string]*decode.ErrorCounts{}
	n := map[string]int{}
	var bad []exampleLine
	for i, u := range l.Recordings {
		hyp := datasets.FoldToLexicon(hyps[i])
		ref := closestPronunciation(l.Prons[i], hyp)
		role := r.split.Role(u.Speaker)
		counts[role].Add(ref, hyp)
		found, _ := r.finder.Find(hyp)
		wordCounts[role].Add(u.Words, r.homophonesAsSaid(u.Words, found))
		n[role]++
		if per[u.Speaker] == nil {
			per[u.Speaker] = &decode.ErrorCounts{}
		}
		if e := per[u.Speaker].Add(ref, hyp); e.Errors() > 0 && len(bad) < 4 {
			bad = append(bad, exampleLine{u.Speaker + " " + strings.Join(u.Words, " ") + ": " + strings.Join(ref, " "), strings.Join(hyp, " ")})
		}
	}
	score := func(role string) train.PhoneScore {
		c := counts[role]
		return train.PhoneScore{Utterances: n[role], Phones: c.Ref, PER: c.ErrorRate(), Sub: c.Sub, Ins: c.Ins, Del: c.Del}
	}
	s := realPhoneScore{Name: name, Decoder: decoder, Dev: score("dev"), Test: score("test"), PerSpeaker: map[string]float64{},
		DevSpeakers: r.split.Dev, TestSpeakers: r.split.Test, WordCost: r.finder.WordCost, DevWER: wordCounts["dev"].ErrorRate(), TestWER: wordCounts["test"].ErrorRate(), Vocabulary: r.vocab, Missing: l.Missing.String(), Skipped: l.Skipped}
	for spk, c := range per {
		s.PerSpeaker[spk] = c.ErrorRate()
	}
	return s, bad, nil
}

// homophonesAsSaid replaces each found word that sounds like a word of
// the transcript (a pronunciation in common: "b" and "bee") by that word.
func (r *realPhones) homophonesAsSaid(said, found []string) []string {
	out := slices.Clone(found)
	for i, f := range out {
		for _, w := range said {
			if f != w && r.soundAlike(f, w) {
				out[i] = w
			}
		}
	}
	return out
}

func (r *realPhones) soundAlike(a, b string) bool {
	for _, p := range r.lex.Pronunciations(a) {
		for _, q := range r.lex.Pronunciations(b) {
			if slices.Equal(p, q) {
				return true
			}
		}
	}
	return false
}

// printRealPhones prints the real speakers' table: development and test
// PER, then every speaker.
func printRealPhones(w io.Writer, split datasets.RealPhoneSplit, scores []realPhoneScore) {
	if len(scores) == 0 {
		return
	}
	speakers := append(slices.Clone(split.Dev), split.Test...)
	sort.SliceStable(speakers, func(i, j int) bool { return split.Role(speakers[i]) < split.Role(speakers[j]) })
	fmt.Fprintf(w, "real speakers never trained on (PER %% against the lexicon's closest pronunciation; WER %% of the words found in the phones among the voices folder's %d words; development %s; test %s):\n",
		scores[0].Vocabulary, strings.Join(split.Dev, ", "), strings.Join(split.Test, ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "model\tdecoder\tdev PER %\ttest PER %\tsub/ins/del (test)\tphones (test)\tdev WER %\ttest WER %"
	for _, s := range speakers {
		head += "\t" + s
	}
	fmt.Fprintln(tw, head)
	for _, s := range scores {
		row := fmt.Sprintf("%s\t%s\t%.2f\t%.2f\t%d/%d/%d\t%d\t%.2f\t%.2f", s.Name, s.Decoder, 100*s.Dev.PER, 100*s.Test.PER, s.Test.Sub, s.Test.Ins, s.Test.Del, s.Test.Phones,
			100*s.DevWER, 100*s.TestWER)
		for _, spk := range speakers {
			row += fmt.Sprintf("\t%.2f", 100*s.PerSpeaker[spk])
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
}
