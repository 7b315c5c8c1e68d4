package enrol

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A prompted recording that is not a word heard clearly is asked for
// again, saying why; one refused RecordTries times ends the enrolment.
func TestFromMicrophoneAsksAgain(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	record := func(path string) error {
		calls++
		if calls == 2 { // the second prompt's first try: silence
			return toymodels.WriteWAV(path, make([]float32, 8000))
		}
		return toymodels.WriteWAV(path, toymodels.UpWord(uint32(calls)))
	}
	var out bytes.Buffer
	recs, err := FromMicrophone([]string{"3", "0"}, dir, record, strings.NewReader("\n\n\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Label != "3" || recs[1].Label != "0" || calls != 3 {
		t.Fatalf("%d recordings after %d tries: %+v", len(recs), calls, recs)
	}
	for _, want := range []string{`say "3"`, `say "0" ("zero")`, "too quiet", "again, please"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the prompts %q lack %q", out.String(), want)
		}
	}
	silent := func(path string) error { return toymodels.WriteWAV(path, make([]float32, 8000)) }
	if _, err := FromMicrophone([]string{"1"}, dir, silent, strings.NewReader("\n\n\n"), &out); !errors.Is(err, engine.ErrTooQuiet) {
		t.Errorf("three silent tries: %v", err)
	}
}

// The prompts are the ten digits once each in a seeded order, and "oh"
// last when a model has it.
func TestPrompts(t *testing.T) {
	plain := &rfstream.Model{Labels: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}}
	withOh := &rfstream.Model{Labels: append(slices.Clone(plain.Labels), engine.OhLabel, engine.FillerLabel)}
	a, b := Prompts([]*rfstream.Model{plain}, 1), Prompts([]*rfstream.Model{plain}, 1)
	if !slices.Equal(a, b) || len(a) != 10 {
		t.Fatalf("seed 1 gave %v then %v", a, b)
	}
	sorted := slices.Sorted(slices.Values(a))
	if !slices.Equal(sorted, plain.Labels) {
		t.Errorf("prompts %v are not the ten digits", a)
	}
	if c := Prompts([]*rfstream.Model{plain, withOh}, 1); len(c) != 11 || c[10] != engine.OhLabel {
		t.Errorf("with an oh model: %v", c)
	}
}
