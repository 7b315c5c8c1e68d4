package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// eval real-digits on toy voices: an FSDD speaker held out gets a model
// trained without it; without the real voices in the recipe, one model
// hears every real voice, with them each real voice gets one of its own;
// each real voice is heard on its ten digits and four shifted copies of
// each, an FSDD speaker on all its recordings.
func TestEvalRealDigitsToy(t *testing.T) {
	fsdd, voices := toyRealVoices(t)
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	for _, c := range []struct {
		extra     []string
		trainings int
		copies    int
	}{
		{nil, 2, 0},
		{[]string{"--real-voices", voices, "--real-voice-copies", "2"}, 3, 2},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"eval", "real-digits", "--json", "--fsdd", fsdd, "--voices", voices, "--hold-out", "ann,rich,warzone",
			"--synth-voices", "0", "--m", "64"}, c.extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, errb.String())
		}
		if got := strings.Count(errb.String(), "real-digits: training without"); got != c.trainings {
			t.Errorf("%v: %d trainings, want %d", c.extra, got, c.trainings)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var res realDigitsResult
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		if res.N["ann"] != 80 || res.N["rich"] != 50 || res.N["warzone"] != 50 || res.RealVoiceCopies != c.copies {
			t.Errorf("%v: %+v", c.extra, res)
		}
		if want := (res.PerVoice["rich"] + res.PerVoice["warzone"]) / 2; res.RealMean != want || res.FemaleMean != want {
			t.Errorf("%v: real mean %g, women's %g, want both %g (rich and warzone)", c.extra, res.RealMean, res.FemaleMean, want)
		}
	}
}
