package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHedgewarsPhrasesAndTheirHeldOutVoices: the English packs' phrases
// are listed without the grunts and laughs, a missing pack is named, and
// the packs held out are four of the ten, the same every call.
func TestHedgewarsPhrasesAndTheirHeldOutVoices(t *testing.T) {
	dir := t.TempDir()
	for _, p := range hedgewarsEnglishPacks {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"Hello.ogg", "Takecover.ogg", "Laugh.ogg", "Ow1.ogg", "Firepunch3.ogg", "notes.txt"} {
			if err := os.WriteFile(filepath.Join(dir, p, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	recs, err := HedgewarsPhrases(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*len(hedgewarsEnglishPacks) {
		t.Fatalf("%d phrases, want 2 of each of %d packs: %v", len(recs), len(hedgewarsEnglishPacks), recs)
	}
	held := map[string]bool{}
	for _, r := range recs {
		if r.Label != "Hello" && r.Label != "Takecover" {
			t.Errorf("phrase %q listed", r.Label)
		}
		if HeldOutHedgewarsVoice(r.Speaker) {
			held[r.Speaker] = true
		}
	}
	if len(held) != 4 || !held["hedgewars-British"] || !held["hedgewars-Surfer"] || held["hedgewars-Default"] {
		t.Errorf("held-out packs %v, want British, HillBilly, Robot and Surfer", held)
	}
	// A stamped folder is not fetched again; the split follows the packs.
	if err := os.WriteFile(filepath.Join(dir, completeName), []byte(HedgewarsRelease), 0o644); err != nil {
		t.Fatal(err)
	}
	trainable, heldOut, err := SplitHedgewarsPhrases(dir)
	if err != nil || len(trainable) != 12 || len(heldOut) != 8 {
		t.Fatalf("split: %d trainable, %d held out (%v); want 12 and 8", len(trainable), len(heldOut), err)
	}
	for _, r := range heldOut {
		if !held[r.Speaker] {
			t.Errorf("%s of %s held out", r.Label, r.Speaker)
		}
	}
	if HeldOutHedgewarsVoice("george") {
		t.Error("an FSDD speaker counted as a held-out pack")
	}
	if err := os.RemoveAll(filepath.Join(dir, "Pirate")); err != nil {
		t.Fatal(err)
	}
	if _, err := HedgewarsPhrases(dir); err == nil || !strings.Contains(err.Error(), "Pirate") {
		t.Errorf("a missing pack gave %v, want an error naming Pirate", err)
	}
}

// TestCheckSHA256RefusesAnotherFile: the fetched package is used only
// when it is the one measured.
func TestCheckSHA256RefusesAnotherFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.deb")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkSHA256(p, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"); err != nil {
		t.Errorf("the right digest refused: %v", err)
	}
	if err := checkSHA256(p, hedgewarsSHA256); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("another file accepted: %v", err)
	}
}

// TestFetchHedgewarsVoicesRefusesAnotherPackage: a package apt-get hands
// over that is not the one measured (a fake apt-get here, first in PATH)
// is refused by its digest, and the folder is not stamped complete.
func TestFetchHedgewarsVoicesRefusesAnotherPackage(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\nprintf 'not the package' > \"$(echo \"$2\" | sed 's/=/_/')_all.deb\"\n"
	if err := os.WriteFile(filepath.Join(bin, "apt-get"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(t.TempDir(), "hedgewars-voices")
	err := FetchHedgewarsVoices(dir)
	if err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a package with another digest gave %v, want an error naming its SHA-256", err)
	}
	if _, err := os.Stat(filepath.Join(dir, completeName)); err == nil {
		t.Error("the folder was stamped complete after a refused package")
	}
}
