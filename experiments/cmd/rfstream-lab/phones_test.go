package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
)

const fixture = "../../../testdata/timit"

// eval phones on the TIMIT-style fixture (phone times as the first
// alignment), with the baseline beside the random map. (train phones and
// recognize on it are the product's test.)
func TestEvalPhonesOnFixture(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	common := []string{"--corpus", fixture, "--phone-map", filepath.Join(fixture, "phones.map"), "--m", "256", "--q", "2", "--dev-speakers", "0.34"}
	var out, errb bytes.Buffer
	if code := run(append([]string{"eval", "phones", "--json"}, common...), &out, &errb); code != 0 {
		t.Fatalf("eval phones: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res phonesEval
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("eval phones printed %q: %v", out.String(), err)
	}
	// Two classifiers (random map, raw spliced), each with the plain phone
	// loop and with the bigram.
	if len(res.Models) != 4 || res.Models[2].Map != "identity" || res.Models[1].Decoder != "bigram" || res.Models[2].Decoder != "phone loop" ||
		res.PhoneSet != 4 || len(res.TestVoices) != 1 {
		t.Fatalf("eval report %+v", res)
	}
	for _, m := range res.Models {
		if len(m.Passes) != 3 || m.Tuned == nil || m.Phones < 12 || m.PER > 0.15 {
			t.Errorf("%s, %s: %d passes, tuned %v, PER %.3f on %d phones (want ≤ 0.15; chance ≈ 0.75)", m.Name, m.Decoder, len(m.Passes), m.Tuned, m.PER, m.Phones)
		}
	}
	if !strings.Contains(out.String(), "test PER") || !strings.Contains(out.String(), "raw spliced (baseline)") {
		t.Errorf("table missing:\n%s", out.String())
	}

}

func TestEvalPhonesRefusesAMissingPhoneMap(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	bad := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "phones", "--corpus", fixture, "--phone-map", filepath.Join(bad, "missing.map")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "missing.map") {
		t.Fatalf("missing phone map: exit %d: %s", code, errb.String())
	}
}

// The espeak-ng path end to end on a tiny corpus: voices split as
// declared, per-voice scores only for test voices, models trained and
// scored (the PER of so small a corpus is not checked; the fixture tests
// check recognition quality).
func TestEvalPhonesEspeakTiny(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (Debian: apt-get install espeak-ng); CI has it")
	}
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	var out, errb bytes.Buffer
	args := []string{"eval", "phones", "--json", "--train-per-voice", "2", "--dev-per-voice", "1", "--test-per-voice", "1", "--m", "64", "--q", "2", "--passes", "1", "--bigram=false"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("eval phones: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res phonesEval
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("printed %q: %v", out.String(), err)
	}
	split := datasets.DefaultPhoneVoices
	if res.PhoneSet != 40 || !slices.Equal(res.TestVoices, split.Test) || !slices.Equal(res.DevVoices, split.Dev) || len(res.Models) != 2 {
		t.Fatalf("report %+v", res)
	}
	for _, m := range res.Models {
		if len(m.Passes) != 2 || m.Utterances != len(split.Test) || m.Phones == 0 || len(m.PerSpeaker) != len(split.Test) {
			t.Fatalf("%s: %+v", m.Name, m)
		}
		for _, v := range split.Test {
			if _, ok := m.PerSpeaker[v]; !ok {
				t.Fatalf("%s: no score for test voice %s (%v)", m.Name, v, m.PerSpeaker)
			}
		}
	}
}
