package train

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
)

// toyWord is digit 0 (a low tone) or 1 (a high one) in 0.1 s of faint
// noise on either side, 0.45 s in all at 8 kHz.
func toyWord(d string, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	tone := fixtures.ToneWord(map[string]string{"0": "lo", "1": "hi"}[d], 0.25, 0.2, 8000)
	return append(append(datasets.Silence(800, fixtures.ToneFloor, rng), tone...), datasets.Silence(800, fixtures.ToneFloor, rng)...)
}

func writeToyWAV(t *testing.T, path string, x []float32) {
	t.Helper()
	var b bytes.Buffer
	if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: 8000, Samples: x}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toneFSDD writes takes of digits 0 and 1 by each speaker, named as FSDD's
// recordings are, and reads them back.
func toneFSDD(t *testing.T, speakers []string, takes int) []datasets.Recording {
	t.Helper()
	dir := t.TempDir()
	for si, s := range speakers {
		for take := 0; take < takes; take++ {
			for _, d := range []string{"0", "1"} {
				writeToyWAV(t, filepath.Join(dir, fmt.Sprintf("%s_%s_%d.wav", d, s, take)), toyWord(d, uint64(100*si+take)))
			}
		}
	}
	recs, err := datasets.FSDD(dir)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// toyVoiceSet is one engine's corpus of toy words: digit 0 a rising
// glide, 1 a falling one, and strings of them said with no pause.
func toyVoiceSet(t *testing.T, dir, engine string) datasets.VoiceSet {
	t.Helper()
	set := datasets.VoiceSet{Engine: engine, Speakers: make([]datasets.Speaker, 2)}
	for s := 0; s < 2; s++ {
		speaker := fmt.Sprintf("%s-%d", engine, s)
		for _, d := range []string{"0", "1"} {
			path := filepath.Join(dir, fmt.Sprintf("%s_%s_%d.wav", engine, d, s))
			writeToyWAV(t, path, toyWord(d, uint64(s)))
			set.Digits = append(set.Digits, datasets.Recording{Path: path, Label: d, Speaker: speaker, Take: -1})
		}
		words := []string{"1", "0", "0"}
		var x []float32
		for i, w := range words {
			x = append(x, toyWord(w, uint64(10*s+i))...)
		}
		path := filepath.Join(dir, fmt.Sprintf("%s_str_%d.wav", engine, s))
		writeToyWAV(t, path, x)
		set.Strings = append(set.Strings, datasets.Utterance{Path: path, Words: words, Speaker: speaker})
	}
	return set
}

// An engine's whole strings are trained on with their words and no word
// times (alignment places them), padded within the recipe's bounds, the
// same for a seed; its digits join the recordings as they are.
func TestEngineStringsAndDigits(t *testing.T) {
	dir := t.TempDir()
	sets := []datasets.VoiceSet{toyVoiceSet(t, dir, "a"), toyVoiceSet(t, dir, "b")}
	if d := engineDigits(sets); len(d) != 8 || d[0] != sets[0].Digits[0] || d[4] != sets[1].Digits[0] {
		t.Fatalf("engine digits %v", d)
	}
	const rate, padMin, padMax = 8000, 0.1, 0.4
	utts, err := engineStrings(sets, rate, padMin, padMax, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(utts) != 4 {
		t.Fatalf("%d engine strings, want 4", len(utts))
	}
	raw := 3 * len(toyWord("0", 0)) // three toy words
	for i, u := range utts {
		if !reflect.DeepEqual(u.Words, []string{"1", "0", "0"}) || u.Spans != nil || u.HeldOut {
			t.Errorf("string %d: words %v, spans %v, held out %v", i, u.Words, u.Spans, u.HeldOut)
		}
		pad := len(u.Samples) - raw
		if pad < int(2*padMin*rate)-2 || pad > int(2*padMax*rate) {
			t.Errorf("string %d: %d samples of padding, want %d to %d", i, pad, int(2*padMin*rate), int(2*padMax*rate))
		}
	}
	again, err := engineStrings(sets, rate, padMin, padMax, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(utts, again) {
		t.Error("the same seed gave other engine strings")
	}
}

// Fluent strings come from the recordings not held out, with every pause
// between words at most the fluent gap (plus a sample of rounding), and
// some of them shorter than the ordinary strings' shortest (0.1 s).
func TestFluentStringsHaveShortPauses(t *testing.T) {
	recs := toneFSDD(t, []string{"ann", "bob"}, 10)
	o := DigitStringOptions{Voices: ConnectedVoices{FluentStrings: 30}}
	utts, err := o.fluentStrings(recs, HeldOutTake, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if len(utts) != 30 {
		t.Fatalf("%d fluent strings, want 30", len(utts))
	}
	short := 0
	for i, u := range utts {
		if len(u.Spans) != len(u.Words) || len(u.Words) < 2 {
			t.Fatalf("string %d: %d words, %d spans", i, len(u.Words), len(u.Spans))
		}
		for k := 1; k < len(u.Spans); k++ {
			gap := u.Spans[k][0] - u.Spans[k-1][1]
			if gap < 0 || gap > DefaultFluentMaxGap+1.0/8000 {
				t.Fatalf("string %d: pause %.4f s between words %d and %d", i, gap, k-1, k)
			}
			if gap < 0.1 {
				short++
			}
		}
	}
	if short == 0 {
		t.Error("no pause shorter than 0.1 s")
	}
	if _, err := (DigitStringOptions{Voices: ConnectedVoices{FluentStrings: 3, FluentMaxGap: -1}}).fluentStrings(recs, HeldOutTake, 8000); err == nil {
		t.Error("a negative fluent gap was accepted")
	}
}

// The recipe trains on the fluent strings beside everything it trained
// on before, says so in the model, and with no voices adds nothing.
func TestDigitStringsOnAddsFluentStrings(t *testing.T) {
	recs := toneFSDD(t, []string{"ann", "bob"}, 10)
	o := DefaultDigitStringOptions()
	o.Map = DefaultMapOptions("maxout", 64)
	o.Passes, o.States, o.TrainStrings, o.Filler.Voices, o.Oh = 0, 3, 4, 0, OhOptions{}
	base, baseRep, err := DigitStringsOn(o, recs, HeldOutTake)
	if err != nil {
		t.Fatal(err)
	}
	if base.Meta[EngineVoicesMeta] != "none" {
		t.Errorf("no voices: meta %q", base.Meta[EngineVoicesMeta])
	}
	o.Voices.FluentStrings = 5
	m, rep, err := DigitStringsOn(o, recs, HeldOutTake)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Utterances != baseRep.Utterances+5 || rep.HeldOut != baseRep.HeldOut {
		t.Errorf("with 5 fluent strings: %d training, %d held out; without: %d, %d", rep.Utterances, rep.HeldOut, baseRep.Utterances, baseRep.HeldOut)
	}
	if got := fmt.Sprint(m.Meta[EngineVoicesMeta]); got != "5 fluent strings (gaps 0–0.05 s)" {
		t.Errorf("meta %q", got)
	}
	if !slices.Equal(m.Labels, base.Labels) {
		t.Errorf("labels %v, want %v", m.Labels, base.Labels)
	}
}

// End to end with a real synthesiser: the recipe builds flite's voice set
// in the named folder and trains on its digits (padded, as recordings)
// and its whole strings besides the recordings, and says so in the model.
func TestDigitStringsOnTrainsOnEngineVoices(t *testing.T) {
	if err := (datasets.FliteEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	recs := toneFSDD(t, []string{"ann", "bob"}, 10)
	o := DefaultDigitStringOptions()
	o.Map = DefaultMapOptions("maxout", 64)
	o.Passes, o.States, o.TrainStrings, o.Filler.Voices, o.Oh = 0, 3, 0, 0, OhOptions{}
	_, baseRep, err := DigitStringsOn(o, recs, HeldOutTake)
	if err != nil {
		t.Fatal(err)
	}
	set := datasets.VoiceSetOptions{Speakers: 2, Cents: 100, MaxTempo: 1.1, Takes: 1, Strings: 2, Seed: 1, Rate: 8000}
	o.Voices = ConnectedVoices{Engines: EngineVoices{Engines: []string{"flite"}, Set: set, Dir: t.TempDir()}, EngineStrings: true}
	m, rep, err := DigitStringsOn(o, recs, HeldOutTake)
	if err != nil {
		t.Fatal(err)
	}
	// 2 speakers × 10 digits, and 2 × 2 strings; the digit labels grow
	// from the tone corpus's two to all ten.
	if rep.Utterances != baseRep.Utterances+20+4 || rep.HeldOut != baseRep.HeldOut {
		t.Errorf("with flite: %d training, %d held out; without: %d, %d", rep.Utterances, rep.HeldOut, baseRep.Utterances, baseRep.HeldOut)
	}
	if len(m.Labels) != 10 {
		t.Errorf("labels %v, want the ten digits", m.Labels)
	}
	if got := fmt.Sprint(m.Meta[EngineVoicesMeta]); got != "flite: 2 speakers' digits and strings" {
		t.Errorf("meta %q", got)
	}
}
