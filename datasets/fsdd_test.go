package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDigest: the same files under two folders have one digest; a changed
// byte, a renamed file or a missing file changes it.
func TestDigest(t *testing.T) {
	write := func(dir string, files map[string]string) []Recording {
		t.Helper()
		for n, body := range files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		recs, err := FSDD(dir)
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	files := map[string]string{"0_ann_0.wav": "abc", "1_ann_0.wav": "de", "1_bob_3.wav": ""}
	digest := func(recs []Recording) string {
		t.Helper()
		d, err := Digest(recs)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := digest(write(t.TempDir(), files))
	if b := digest(write(t.TempDir(), files)); a != b || !strings.HasPrefix(a, "3 recordings, sha256:") {
		t.Fatalf("same files, digests %q and %q", a, b)
	}
	// The name-length-content framing keeps "ab"+"c" apart from "a"+"bc".
	for name, change := range map[string]map[string]string{
		"a changed byte": {"0_ann_0.wav": "abd", "1_ann_0.wav": "de", "1_bob_3.wav": ""},
		"bytes moved":    {"0_ann_0.wav": "ab", "1_ann_0.wav": "cde", "1_bob_3.wav": ""},
		"a renamed file": {"0_ann_0.wav": "abc", "1_ann_1.wav": "de", "1_bob_3.wav": ""},
		"a missing file": {"0_ann_0.wav": "abc", "1_ann_0.wav": "de"},
	} {
		if d := digest(write(t.TempDir(), change)); d == a {
			t.Errorf("%s: digest unchanged", name)
		}
	}
	if _, err := Digest([]Recording{{Path: filepath.Join(t.TempDir(), "0_x_0.wav")}}); err == nil {
		t.Error("digest of a missing file: no error")
	}
}

func TestFSDDNamesAndSplits(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "0_george_0.wav", "0_george_5.wav", "3_theo_4.wav", "3_theo_49.wav", "README.md")
	recs, err := FSDD(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[0].Label != "0" || recs[0].Speaker != "george" {
		t.Fatalf("recordings %+v", recs)
	}
	train, test := OfficialSplit(recs)
	if len(train) != 2 || len(test) != 2 || test[1].Take != 4 || train[1].Take != 49 {
		t.Fatalf("official split train %+v test %+v", train, test)
	}
	train, test = SpeakerSplit(recs, "theo")
	if len(train) != 2 || len(test) != 2 || test[0].Speaker != "theo" {
		t.Fatalf("speaker split %+v %+v", train, test)
	}
	if s := Speakers(recs); len(s) != 2 || s[0] != "george" {
		t.Fatalf("speakers %v", s)
	}
	if p, err := SpeakerSession(dir, "theo"); err != nil || len(p.Parts) != 2 || p.Parts[0].Speaker != "theo" || p.Parts[1].Speaker != "theo" {
		t.Fatalf("theo's session %+v (%v)", p, err)
	}
	if _, err := SpeakerSession(dir, "nobody"); err == nil || !strings.Contains(err.Error(), `"nobody"`) {
		t.Fatalf("unknown speaker error %v", err)
	}
	touch(t, dir, "x_bad.wav")
	if _, err := FSDD(dir); err == nil || !strings.Contains(err.Error(), "x_bad.wav") {
		t.Fatalf("bad name error %v", err)
	}
	if _, err := FSDD(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "RFSTREAM_FSDD") {
		t.Fatalf("missing folder error %v", err)
	}
}

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.tsv")
	os.WriteFile(p, []byte("# path\tlabel\tspeaker\na.wav\tseven\tann\n/abs/b.wav\tone\n\n"), 0o644)
	recs, err := ReadManifest(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Path != filepath.Join(dir, "a.wav") || recs[0].Speaker != "ann" || recs[1].Path != "/abs/b.wav" {
		t.Fatalf("manifest %+v", recs)
	}
	if l := Labels(recs); len(l) != 2 || l[0] != "one" {
		t.Fatalf("labels %v", l)
	}
	os.WriteFile(p, []byte("only-a-path\n"), 0o644)
	if _, err := ReadManifest(p); err == nil || !strings.Contains(err.Error(), "line 1:") {
		t.Fatalf("bad line error %v", err)
	}
}

func TestParseManifestRefusesAmbiguousLines(t *testing.T) {
	recs, err := ParseManifest(strings.NewReader("a.wav\t seven \tann \r\n"), "m", "/d")
	if err != nil || len(recs) != 1 || recs[0].Label != "seven" || recs[0].Speaker != "ann" || recs[0].Path != "/d/a.wav" {
		t.Fatalf("padded fields: %+v, %v", recs, err)
	}
	for _, bad := range []string{
		"a.wav\tseven\tann\textra\n", // a stray tab would shift the label
		"a.wav\t \tann\n",            // a blank label
		"\tseven\n",                  // no path
		"# only a comment\n\n",       // nothing listed
		"ok.wav\tone\n" + strings.Repeat("x", maxManifestLine) + "\tone\n", // a line past the limit
	} {
		if _, err := ParseManifest(strings.NewReader(bad), "m.tsv", "/d"); err == nil || !strings.HasPrefix(err.Error(), "m.tsv") {
			t.Errorf("%.40q: error %v, want one naming the manifest", bad, err)
		}
	}
}

// FuzzParseManifest: any input is refused with an error or gives
// recordings that each have a path and a label free of tabs and blanks at
// either end.
func FuzzParseManifest(f *testing.F) {
	f.Add("a.wav\tseven\tann\n/abs/b.wav\tone\n")
	f.Add("# c\n\nx\ty\n")
	f.Add("a\tb\tc\td\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ParseManifest(strings.NewReader(in), "m", "/d")
		if err != nil {
			if len(recs) != 0 {
				t.Fatalf("error %v with %d recordings", err, len(recs))
			}
			return
		}
		if len(recs) == 0 {
			t.Fatal("no error and no recordings")
		}
		for _, r := range recs {
			if r.Path == "" || r.Label == "" || strings.ContainsAny(r.Label, "\t\n") || r.Label != strings.TrimSpace(r.Label) {
				t.Fatalf("recording %+v from %q", r, in)
			}
		}
	})
}
