package main

import (
	"os"
	"testing"

	"github.com/rfstream/rfstream/train"
)

// TestMain runs the tests with eval digits' defaults less the product's
// synthetic voices (50 espeak-ng voices, flite and festival speakers):
// the tests check what the evaluations do, and would otherwise spend
// minutes synthesising into every temporary data cache.
func TestMain(m *testing.M) {
	digitRecipe = func() train.WordOptions {
		o := train.DefaultDigitOptions()
		o.Voices.SynthVoices, o.Voices.Engines.Engines = 0, nil
		return o
	}
	code := m.Run()
	if tidigitsDir != "" {
		os.RemoveAll(tidigitsDir) // the shared TIDIGITS-shaped corpus (tidigits_test.go)
	}
	os.Exit(code)
}
