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
// (R5c) with round 6's search (R6d): the lab's flags of that run and the
// chosen setting give the same options (the run named the espeak-ng-only
// model it aligned with; the recipe trains that model).
func TestRealPhoneRecipeIsTheMeasuredOne(t *testing.T) {
	o := train.DefaultPhoneOptions()
	fs := flag.NewFlagSet("eval phones", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	PhoneFlags(fs, &o)
	measured := "--engines espeak-ng,flite,festival --espeak-per-voice 0 --engine-sentences 40 --fsdd-per-digit 1 --augment 0.25 --m 2000 --real-speech VOICES --lexicon-labels --first-labels aligned --fixed-decoder -4,0.5,0.5,1,0.5,0.7"
	if err := fs.Parse(strings.Fields(measured)); err != nil {
		t.Fatal(err)
	}
	want := train.RealPhoneRecipe("VOICES")
	want.EspeakDir, want.Voices.Dir, want.Voices.FSDD = o.EspeakDir, o.Voices.Dir, o.Voices.FSDD // the cache's folders
	if !reflect.DeepEqual(o, want) {
		t.Errorf("flags of the measured run:\n%+v\nRealPhoneRecipe:\n%+v", o, want)
	}
}

// --fixed-decoder takes six numbers or none, and names what is wrong.
func TestFixedDecoderFlag(t *testing.T) {
	for _, c := range []struct {
		arg   string
		fixed bool
		bad   bool
	}{
		{"none", false, false}, {"-4,0.5,0.5,1,0.5,0.7", true, false}, {"1,2,3", false, true}, {"-4,0.5,0.5,1,1.5,0.7", false, true}, {"-4,x,0.5,1,0.5,0.7", false, true},
	} {
		o := train.RealPhoneRecipe("VOICES")
		fs := flag.NewFlagSet("train phones", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		PhoneFlags(fs, &o)
		err := fs.Parse([]string{"--fixed-decoder", c.arg})
		if (err != nil) != c.bad {
			t.Errorf("--fixed-decoder %s: error %v", c.arg, err)
			continue
		}
		if !c.bad && (o.Fixed != nil) != c.fixed {
			t.Errorf("--fixed-decoder %s: fixed %v", c.arg, o.Fixed)
		}
	}
}
