package recipes

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/train"
)

// The real voices' evaluation trains the shipped recipe without the real
// voices and nothing else changed: every option but the real voices (and
// the filler's real words) is the shipped recipe's.
func TestWithoutRealVoicesRemovesOnlyThem(t *testing.T) {
	shipped := ConnectedOptions()
	if shipped.Voices.Real.Dir == "" {
		t.Fatal("the shipped connected recipe trains on no real voice: this test's premise is gone")
	}
	shipped.Filler.RealWords = "words"
	got := WithoutRealVoices(shipped)
	if got.Voices.Real.Dir != "" || got.Voices.Real.Copies != 0 || got.Filler.RealWords != "" {
		t.Fatalf("real voices left in the recipe: %+v, filler words %q", got.Voices.Real, got.Filler.RealWords)
	}
	got.Voices.Real, got.Filler.RealWords = shipped.Voices.Real, shipped.Filler.RealWords
	if !reflect.DeepEqual(got, shipped) {
		t.Errorf("more than the real voices changed:\n got %+v\nwant %+v", got, shipped)
	}
	a, err := ConnectedFingerprint(shipped)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ConnectedFingerprint(WithoutRealVoices(shipped))
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("the recipe without the real voices has the shipped recipe's fingerprint %s", a)
	}
}

// The synthetic voices' evaluation trains without any engine's voice set:
// their digits, their strings and the next seed's tuning speakers go; a
// recipe with no engine is unchanged (and so is the shipped model).
func TestWithoutEngineVoicesRemovesOnlyThem(t *testing.T) {
	o := ConnectedOptions()
	o.Voices.Engines = train.EngineVoices{Engines: []string{"espeak-ng", "flite", "festival"}, Dir: "voices"}
	o.Voices.EngineStrings, o.DevVoiceSpeakers = true, 5
	got := WithoutEngineVoices(o)
	if len(got.Voices.Engines.Engines) != 0 || got.Voices.EngineStrings || got.DevVoiceSpeakers != 0 {
		t.Fatalf("engine voices left in the recipe: %+v, strings %v, dev speakers %d", got.Voices.Engines, got.Voices.EngineStrings, got.DevVoiceSpeakers)
	}
	if !reflect.DeepEqual(got.Voices.Real, o.Voices.Real) || got.Map != o.Map || got.Filler != o.Filler || got.Voices.FluentStrings != o.Voices.FluentStrings {
		t.Errorf("more than the engine voices changed: %+v", got)
	}
	plain := WithoutEngineVoices(o)
	plain.Voices.Engines, plain.Voices.EngineStrings, plain.DevVoiceSpeakers = o.Voices.Engines, o.Voices.EngineStrings, o.DevVoiceSpeakers
	if !reflect.DeepEqual(plain, o) {
		t.Errorf("more than the engine voices changed:\n got %+v\nwant %+v", plain, o)
	}
	none := ConnectedOptions()
	if len(none.Voices.Engines.Engines) == 0 {
		a, _ := ConnectedFingerprint(none)
		b, _ := ConnectedFingerprint(WithoutEngineVoices(none))
		if a != b {
			t.Errorf("a recipe without engines changed its fingerprint without them: %s → %s", a, b)
		}
	}
}

// A fingerprint names the recipe, not where its data lives or where it
// logs, and tells recipes apart by any option.
func TestConnectedFingerprint(t *testing.T) {
	o := ConnectedOptions()
	a, err := ConnectedFingerprint(o)
	if err != nil {
		t.Fatal(err)
	}
	moved := o
	moved.FSDD, moved.Filler.SynthDir, moved.Voices.Real.Dir, moved.Log = "/elsewhere/fsdd", "/elsewhere/synth", "/elsewhere/voices", os.Stderr
	if b, err := ConnectedFingerprint(moved); err != nil || b != a {
		t.Errorf("moving the data changed the fingerprint %s → %s (%v)", a, b, err)
	}
	bigger := o
	bigger.Map.M++
	if b, err := ConnectedFingerprint(bigger); err != nil || b == a {
		t.Errorf("a larger map kept the fingerprint %s (%v)", a, err)
	}
	if len(a) != 16 {
		t.Errorf("fingerprint %q: want 16 hex digits", a)
	}
	if p := HeldOutConnectedPath(a); !strings.Contains(filepath.Base(p), a) {
		t.Errorf("cache path %q does not name the recipe %s", p, a)
	}
}

// A speaker FSDD does not have is refused by name, before any training,
// and nothing is left in the cache.
func TestHeldOutConnectedWithoutRefusesAnUnknownSpeaker(t *testing.T) {
	o := ConnectedOptions()
	if _, err := os.Stat(o.FSDD); err != nil {
		// From this package's folder, the checkout's sibling.
		o.FSDD = filepath.Join("..", "..", "..", "shared", "fsdd", "recordings")
	}
	if _, err := os.Stat(o.FSDD); err != nil {
		t.Skipf("no FSDD here (%v)", err)
	}
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	_, _, err := HeldOutConnectedWithout(o, "nonesuch", io.Discard)
	if err == nil || !strings.Contains(err.Error(), `FSDD has no speaker "nonesuch"`) {
		t.Fatalf("an unknown speaker: %v", err)
	}
	fp, _ := ConnectedFingerprint(o)
	if _, err := os.Stat(HeldOutConnectedPath(fp + "-without-nonesuch")); err == nil {
		t.Error("a model was saved for a speaker FSDD does not have")
	}
}
