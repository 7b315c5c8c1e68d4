package main

import (
	"testing"

	"github.com/rfstream/rfstream/engine"
)

// Every guard kind eval enroll offers is named back as itself (the runs'
// headings and JSON say which ran), and "off" is no guard at all.
func TestGuardKindsNameThemselves(t *testing.T) {
	for name, k := range guardKinds {
		if got := guardKindName(k); got != name {
			t.Errorf("guard %q (%+v) is named %q", name, k, got)
		}
	}
	if off := guardKinds["off"]; off.misses >= 0 {
		t.Errorf("off allows %d misses: a guard", off.misses)
	}
	if name := guardKindName(guardKind{engine.TaughtGuardMisses, engine.TaughtGuardStrings}); guardKinds[name] != (guardKind{engine.TaughtGuardMisses, engine.TaughtGuardStrings}) {
		t.Errorf("the product's guard has no kind of its own: %q", name)
	}
}

// A set eval enroll does not know is refused by name before any model is
// loaded or trained.
func TestEnrolConnectedRefusesAnUnknownSet(t *testing.T) {
	if _, _, err := enrolConnected("nonesuch", false, nil); err == nil {
		t.Error("an unknown set was given a connected model")
	}
}
