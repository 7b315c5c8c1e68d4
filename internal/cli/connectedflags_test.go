package cli

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

// train connected's voice flags fill train.ConnectedVoices: engines named
// with spaces around them, an unknown engine refused, the voices folder
// in the data cache, none of it set by default.
func TestConnectedVoiceFlags(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	parse := func(args ...string) (train.DigitStringOptions, error) {
		o := train.DefaultDigitStringOptions()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		DigitStringFlags(fs, &o)
		return o, fs.Parse(args)
	}
	o, err := parse()
	if err != nil || len(o.Voices.Engines.Engines) != 0 || o.Voices.EngineStrings || o.Voices.FluentStrings != 0 || o.Voices.Engines.Dir != defaults.VoicesDir() {
		t.Fatalf("defaults %+v, %v", o.Voices, err)
	}
	o, err = parse("--engine-voices", " flite , festival", "--engine-strings", "--fluent-strings", "5", "--fluent-max-gap", "0.02")
	if err != nil || !slices.Equal(o.Voices.Engines.Engines, []string{"flite", "festival"}) || !o.Voices.EngineStrings ||
		o.Voices.FluentStrings != 5 || o.Voices.FluentMaxGap != 0.02 {
		t.Fatalf("parsed %+v, %v", o.Voices, err)
	}
	o, err = parse("--real-voices", "/v", "--real-voice-copies", "40", "--fluent-max-overlap", "0.06", "--fluent-max-tempo", "1.25")
	if err != nil || o.Voices.Real.Dir != "/v" || o.Voices.Real.Copies != 40 || o.Voices.FluentMaxOverlap != 0.06 || o.Voices.FluentMaxTempo != 1.25 {
		t.Fatalf("parsed %+v, %v", o.Voices, err)
	}
	if _, err := parse("--engine-voices", "flite,mbrola"); err == nil {
		t.Error("--engine-voices mbrola was accepted")
	}
	if o, err := parse("--engine-voices", ""); err != nil || len(o.Voices.Engines.Engines) != 0 {
		t.Errorf("--engine-voices '': %v, %v", o.Voices.Engines.Engines, err)
	}
}
