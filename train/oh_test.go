package train

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/fixtures"
)

// toneWords is a string of tone words (lo, hi) with pauses at the tone
// models' floor.
func toneWords(words []string, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, seed))
	var s []float32
	for _, w := range words {
		s = append(s, datasets.Silence(2400, fixtures.ToneFloor, rng)...)
		s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
	}
	return append(s, datasets.Silence(2400, fixtures.ToneFloor, rng)...)
}

// spokenWords lists each result word as word/spoken.
func spokenWords(r engine.Result) []string {
	var out []string
	for _, w := range r.Words {
		out = append(out, w.Word+"/"+w.Spoken)
	}
	return out
}

// A model with an "oh" unit (here the hi tone, "0" the lo tone, trained
// as such) prints both as 0 and says in Word.Spoken which was heard, in
// the product's live recogniser (the stream's path) and in JSON; saved and
// loaded, it says the same.
func TestOhUnitPrintsZeroWithItsSpokenForm(t *testing.T) {
	m := trainNamedTones(t, "rls", map[string]string{"lo": "0", "hi": engine.OhLabel})
	path := filepath.Join(t.TempDir(), "oh.rfm")
	if err := engine.SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	loaded, err := engine.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	s := toneWords([]string{"hi", "lo", "hi", "hi"}, 5)
	want := []string{"0/oh", "0/zero", "0/oh", "0/oh"}
	for name, model := range map[string]*engine.Model{"trained": m, "loaded": loaded} {
		rec, err := engine.NewLiveRecognizer(model)
		if err != nil {
			t.Fatal(err)
		}
		r, err := rec.Recognize(s, 8000)
		if err != nil {
			t.Fatal(err)
		}
		if r.Text != "0 0 0 0" || !reflect.DeepEqual(spokenWords(r), want) {
			t.Fatalf("%s: text %q, words %v; want 0 0 0 0, %v", name, r.Text, spokenWords(r), want)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var generic struct{ Words []map[string]any }
		if err := json.Unmarshal(b, &generic); err != nil {
			t.Fatal(err)
		}
		if w := generic.Words[0]; w["word"] != "0" || w["spoken"] != "oh" {
			t.Errorf("%s: JSON word %v, want word 0 spoken oh", name, w)
		}
		if w := generic.Words[1]; w["word"] != "0" || w["spoken"] != "zero" {
			t.Errorf("%s: JSON word %v, want word 0 spoken zero", name, w)
		}
	}
}

// A model file from before "oh" (the tone fixture, written before the
// field existed) loads and decodes as it did: its labels as words, no
// spoken form, no "spoken" key in JSON. A model with a "0" but no "oh" is
// the same: "zero" is only named where "oh" could have been heard.
func TestModelWithoutOhHasNoSpokenForms(t *testing.T) {
	old, err := engine.LoadModel(filepath.Join("..", "testdata", "tones-rls.rfm"))
	if err != nil {
		t.Fatal(err)
	}
	zeroOnly := trainNamedTones(t, "rls", map[string]string{"lo": "0", "hi": "1"})
	s := toneWords([]string{"hi", "lo", "hi"}, 6)
	for name, c := range map[string]struct {
		m    *engine.Model
		want string
	}{"old file": {old, "hi lo hi"}, "zero only": {zeroOnly, "1 0 1"}} {
		rec, err := engine.NewLiveRecognizer(c.m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := rec.Recognize(s, 8000)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.Text != c.want || bytes.Contains(b, []byte(`"spoken"`)) {
			t.Errorf("%s: %q, JSON %s; want %q and no spoken form", name, r.Text, b, c.want)
		}
	}
}
