package datasets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Utterance is one recording of a word string: a connected-digit string,
// a sentence of phones.
type Utterance struct {
	Path  string
	Words []string
	// Speaker names who (or which synthetic voice) spoke it, when known.
	Speaker string
}

// Transcript is the words joined by single spaces.
func (u Utterance) Transcript() string { return strings.Join(u.Words, " ") }

// ReadTranscripts reads a TSV manifest of path<TAB>transcript[<TAB>speaker]
// lines, where the transcript is space-separated words; '#' starts a comment
// line. Relative paths are taken relative to the manifest's folder.
func ReadTranscripts(path string) ([]Utterance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	us, err := ParseTranscripts(b, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return us, nil
}

// ParseTranscripts parses the text of a transcript manifest; base is the
// folder relative paths are taken from.
func ParseTranscripts(b []byte, base string) ([]Utterance, error) {
	var us []Utterance
	err := manifestRows(bytes.NewReader(b), base, "words", func(line int, path, transcript, speaker string) error {
		words := strings.Fields(transcript)
		if len(words) == 0 {
			return fmt.Errorf("line %d: empty transcript", line)
		}
		us = append(us, Utterance{Path: path, Words: words, Speaker: speaker})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(us) == 0 {
		return nil, fmt.Errorf("no utterances listed")
	}
	return us, nil
}

// WriteTranscripts writes a manifest that ReadTranscripts reads back, with
// paths relative to the manifest's folder where they lie under it.
func WriteTranscripts(path string, us []Utterance) error {
	var b strings.Builder
	dir := filepath.Dir(path)
	for _, u := range us {
		p := u.Path
		if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
		if strings.ContainsAny(p, "\t\n") {
			return fmt.Errorf("datasets: path %q has a tab or newline", p)
		}
		fmt.Fprintf(&b, "%s\t%s", p, u.Transcript())
		if u.Speaker != "" {
			fmt.Fprintf(&b, "\t%s", u.Speaker)
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// StringPlan says how to build one connected-digit string from isolated
// recordings: which recordings, in order, and the silence before, between
// and after them.
type StringPlan struct {
	Speaker string
	Parts   []Recording
	// Gaps has len(Parts)+1 entries in seconds: leading, between each pair,
	// trailing.
	Gaps []float64
}

// Words are the labels of the parts in order.
func (p StringPlan) Words() []string {
	w := make([]string, len(p.Parts))
	for i, r := range p.Parts {
		w[i] = r.Label
	}
	return w
}

// SessionPlan is one voice speaking all of recs as a single stream, as a
// live session would: the recordings in an order shuffled by seed, with
// 0.5 s pauses before, between and after them. (`make demo` streams one
// FSDD voice this way with seed 1; the stream benches use the same plan.)
func SessionPlan(speaker string, recs []Recording, seed uint64) StringPlan {
	p := StringPlan{Speaker: speaker, Gaps: make([]float64, len(recs)+1)}
	for _, j := range SessionOrder(len(recs), seed) {
		p.Parts = append(p.Parts, recs[j])
	}
	for i := range p.Gaps {
		p.Gaps[i] = 0.5
	}
	return p
}

// SessionOrder is the order SessionPlan puts n recordings in.
func SessionOrder(n int, seed uint64) []int {
	return rand.New(rand.NewPCG(seed, 0x766f6963)).Perm(n)
}

// StringOptions shape PlanStrings.
type StringOptions struct {
	Count          int     // strings to plan
	MinLen, MaxLen int     // digits per string (2 and 7 by default)
	MinGap, MaxGap float64 // silence between words, s (0.1–0.5 by default)
	MinEdge        float64 // leading and trailing silence, s (0.2–0.5 by default)
	MaxEdge        float64
	Seed           uint64
}

func (o *StringOptions) defaults() {
	if o.MinLen <= 0 {
		o.MinLen = 2
	}
	if o.MaxLen < o.MinLen {
		o.MaxLen = max(7, o.MinLen)
	}
	if o.MaxGap <= 0 {
		o.MinGap, o.MaxGap = 0.1, 0.5
	}
	if o.MaxEdge <= 0 {
		o.MinEdge, o.MaxEdge = 0.2, 0.5
	}
}

// PlanStrings draws connected-digit strings from recs: each string has one
// speaker (as a person reading out a number would), a uniformly drawn
// length, digits drawn uniformly from what that speaker recorded, and
// uniformly drawn silences. The same seed gives the same plans.
func PlanStrings(recs []Recording, o StringOptions) ([]StringPlan, error) {
	o.defaults()
	if o.Count <= 0 {
		return nil, fmt.Errorf("datasets: %d strings requested", o.Count)
	}
	bySpeaker := map[string][]Recording{}
	for _, r := range recs {
		bySpeaker[r.Speaker] = append(bySpeaker[r.Speaker], r)
	}
	speakers := make([]string, 0, len(bySpeaker))
	for s := range bySpeaker {
		speakers = append(speakers, s)
	}
	if len(speakers) == 0 {
		return nil, fmt.Errorf("datasets: no recordings to build strings from")
	}
	sort.Strings(speakers)
	rng := rand.New(rand.NewPCG(o.Seed, 0x636f6e6e))
	uniform := func(a, b float64) float64 { return a + (b-a)*rng.Float64() }
	plans := make([]StringPlan, o.Count)
	for i := range plans {
		spk := speakers[rng.IntN(len(speakers))]
		pool := bySpeaker[spk]
		n := o.MinLen + rng.IntN(o.MaxLen-o.MinLen+1)
		p := StringPlan{Speaker: spk, Gaps: make([]float64, n+1)}
		for k := 0; k < n; k++ {
			p.Parts = append(p.Parts, pool[rng.IntN(len(pool))])
		}
		p.Gaps[0] = uniform(o.MinEdge, o.MaxEdge)
		p.Gaps[n] = uniform(o.MinEdge, o.MaxEdge)
		for k := 1; k < n; k++ {
			p.Gaps[k] = uniform(o.MinGap, o.MaxGap)
		}
		plans[i] = p
	}
	return plans, nil
}

// DigitWords are the English names of the digits 0–9, as FSDD labels them
// by index and as a synthesiser should say them.
var DigitWords = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// DigitPhones are the digit words' pronunciations in Phones (General
// American, as the CMU dictionary's first entries give them; "zero" with
// the ih that espeak-ng's en-us and flite both say).
var DigitPhones = [10]string{"z ih r ow", "w ah n", "t uw", "th r iy", "f ao r", "f ay v", "s ih k s", "s eh v ax n", "ey t", "n ay n"}

// SpeakerSession lists the FSDD recordings in dir and plans speaker's as
// one session in the demo's order (SessionPlan, seed 1).
func SpeakerSession(dir, speaker string) (StringPlan, error) {
	all, err := FSDD(dir)
	if err != nil {
		return StringPlan{}, err
	}
	_, recs := SpeakerSplit(all, speaker)
	if len(recs) == 0 {
		return StringPlan{}, fmt.Errorf("fsdd: no recordings of speaker %q in %s", speaker, dir)
	}
	return SessionPlan(speaker, recs, 1), nil
}
