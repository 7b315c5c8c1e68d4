package cli

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/train"
)

// train phones' recipe is the one round 5 of the phone journal measured
// (R5c): the lab's flags of that run give the same options (the run named
// the espeak-ng-only model it aligned with; the recipe trains that model).
func TestRealPhoneRecipeIsTheMeasuredOne(t *testing.T) {
	o := train.DefaultPhoneOptions()
	fs := flag.NewFlagSet("eval phones", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	PhoneFlags(fs, &o)
	measured := "--engines espeak-ng,flite,festival --espeak-per-voice 0 --engine-sentences 40 --fsdd-per-digit 1 --augment 0.25 --m 2000 --real-speech VOICES --lexicon-labels --first-labels aligned"
	if err := fs.Parse(strings.Fields(measured)); err != nil {
		t.Fatal(err)
	}
	want := train.RealPhoneRecipe("VOICES")
	want.EspeakDir, want.Voices.Dir, want.Voices.FSDD = o.EspeakDir, o.Voices.Dir, o.Voices.FSDD // the cache's folders
	if !reflect.DeepEqual(o, want) {
		t.Errorf("flags of the measured run:\n%+v\nRealPhoneRecipe:\n%+v", o, want)
	}
}
