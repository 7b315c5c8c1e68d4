package train

import (
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/engine"
)

// A fixed decoder replaces every searched setting of the model's decoder
// and leaves the rest (beam, endpoint) as they were.
func TestFixedPhoneDecoderApply(t *testing.T) {
	dc := engine.DefaultConnectedDecoder()
	dc.Beam = 7
	b, _ := json.Marshal(dc)
	m := &engine.Model{Decoder: b}
	if err := WordsAloneDecoder.Apply(m); err != nil {
		t.Fatal(err)
	}
	var got engine.ConnectedDecoder
	if err := json.Unmarshal(m.Decoder, &got); err != nil {
		t.Fatal(err)
	}
	want := dc
	want.WordPenalty, want.AcousticScale, want.PriorScale, want.LMScale, want.SilenceProb, want.SelfLoop = -4, 0.5, 0.5, 1, 0.5, 0.7
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoder %+v, want %+v", got, want)
	}
	f, err := ParseFixedPhoneDecoder(WordsAloneDecoder.String())
	if err != nil || f != WordsAloneDecoder {
		t.Fatalf("parsed %v back as %v, %v", WordsAloneDecoder, f, err)
	}
	for _, bad := range []string{"", "1,2", "-4,0,0.5,1,0.5,0.7", "-4,0.5,0.5,1,0.5,1", "-4,0.5,NaN,1,0.5,0.7", "-4,0.5,0.5,1,0,0.7"} {
		if _, err := ParseFixedPhoneDecoder(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if o := RealPhoneRecipe("V"); o.Fixed == nil || *o.Fixed != WordsAloneDecoder {
		t.Fatalf("train phones' recipe searches with %v", o.Fixed)
	}
}

// --real-copies: every real training utterance but the held-out ones gets
// its copies, changed (not the same samples) and labelled as it; the
// utterances before them stay as they were.
func TestCopyRealPhones(t *testing.T) {
	tone := func(n int, f float32) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = 0.1 * float32((i*int(f))%40-20) / 20
		}
		return s
	}
	d := &PhoneData{Train: []Utterance{
		{Samples: tone(8000, 3), Words: []string{"s", "iy"}},
		{Samples: tone(6000, 5), Words: []string{"b", "iy"}},
		{Samples: tone(7000, 7), Words: []string{"k", "ae", "t"}, HeldOut: true},
	}}
	before := slices.Clone(d.Train)
	v := DefaultPhoneOptions().Voices
	v.RealCopies = 2
	if err := copyRealPhones(v, 1, d, []int{1, 2}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(d.Train) != 5 {
		t.Fatalf("%d utterances, want 3 + 2 copies of the one real training utterance", len(d.Train))
	}
	for i, u := range d.Train[:3] {
		if !slices.Equal(u.Samples, before[i].Samples) {
			t.Fatalf("utterance %d changed", i)
		}
	}
	for _, c := range d.Train[3:] {
		if !slices.Equal(c.Words, []string{"b", "iy"}) || c.HeldOut || slices.Equal(c.Samples, before[1].Samples) {
			t.Fatalf("copy %v held out %v, same samples %v", c.Words, c.HeldOut, slices.Equal(c.Samples, before[1].Samples))
		}
	}
	if slices.Equal(d.Train[3].Samples, d.Train[4].Samples) {
		t.Fatal("the two copies are the same")
	}
}
