package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

// smallVoiceSet is two speakers with one take of each digit and two
// strings each: enough to see every part of a build.
func smallVoiceSet() VoiceSetOptions {
	o := DefaultVoiceSetOptions()
	o.Speakers, o.Takes, o.Strings = 2, 1, 2
	return o
}

func TestVoiceSetsAreByteIdenticalForASeed(t *testing.T) {
	for _, e := range Engines() {
		t.Run(e.Name(), func(t *testing.T) {
			if err := e.Available(); err != nil {
				t.Skip(err)
			}
			o := smallVoiceSet()
			a, err := BuildVoiceSet(t.TempDir(), e, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := BuildVoiceSet(t.TempDir(), e, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Digits) != 20 || len(a.Strings) != 4 {
				t.Fatalf("%d digits, %d strings; want 20 and 4", len(a.Digits), len(a.Strings))
			}
			for i := range a.Digits {
				sameFile(t, a.Digits[i].Path, b.Digits[i].Path)
			}
			for i, u := range a.Strings {
				sameFile(t, u.Path, b.Strings[i].Path)
				if n := len(u.Words); n < 2 || n > 7 {
					t.Errorf("string %s has %d digits, want 2–7", u.Path, n)
				}
			}
			au, err := frontend.ReadAudio(a.Digits[0].Path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if au.Rate != o.Rate || len(au.Samples) < o.Rate/10 {
				t.Errorf("%s: %d samples at %d Hz, want at least 0.1 s at %d Hz", a.Digits[0].Path, len(au.Samples), au.Rate, o.Rate)
			}
			c, err := BuildVoiceSet(t.TempDir(), e, func() VoiceSetOptions { o.Seed = 2; return o }(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Speakers[0] == a.Speakers[0] && c.Speakers[1] == a.Speakers[1] {
				t.Errorf("seeds 1 and 2 drew the same speakers %v", a.Speakers)
			}
		})
	}
}

func sameFile(t *testing.T, x, y string) {
	t.Helper()
	a, err := os.ReadFile(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(y)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s and %s differ", x, y)
	}
}

func TestVoiceSetIsReusedWhenComplete(t *testing.T) {
	e := FliteEngine{}
	if err := e.Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	o := smallVoiceSet()
	files := 0
	if _, err := BuildVoiceSet(dir, e, o, func(n int) { files += n }); err != nil {
		t.Fatal(err)
	}
	if files != 24 {
		t.Errorf("progress counted %d files, want 24", files)
	}
	files = 0
	set, err := BuildVoiceSet(dir, e, o, func(n int) { files += n })
	if err != nil {
		t.Fatal(err)
	}
	if files != 0 || len(set.Digits) != 20 {
		t.Errorf("second build wrote %d files and lists %d digits; want 0 and 20", files, len(set.Digits))
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(set.Digits[0].Path), "speakers.tsv")); err != nil {
		t.Error(err)
	}
}

func TestSpeakerTablesCoverEveryVoiceAndSex(t *testing.T) {
	for _, e := range Engines() {
		voices := e.Voices()
		if len(voices) == 0 {
			continue
		}
		o := DefaultVoiceSetOptions()
		o.Speakers = len(voices)
		table, err := SpeakerTable(e, o)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for _, s := range table {
			seen[s.Voice] = s.Sex
			if s.Cents < -o.Cents || s.Cents > o.Cents || s.Tempo < 1/o.MaxTempo-0.01 || s.Tempo > o.MaxTempo+0.01 {
				t.Errorf("%s: pitch %g cents or tempo %g outside ±%g, 1/%g–%g", s.Name(), s.Cents, s.Tempo, o.Cents, o.MaxTempo, o.MaxTempo)
			}
		}
		for _, v := range voices {
			if seen[v.Name] != v.Sex {
				t.Errorf("%s: voice %s missing or not %s in %v", e.Name(), v.Name, v.Sex, table)
			}
		}
	}
}

// TestEspeakFemaleVariantsAreMarked reads espeak-ng's own variant files:
// every variant they call female must be female in the table, and no other.
func TestEspeakFemaleVariantsAreMarked(t *testing.T) {
	dir := "/usr/lib/x86_64-linux-gnu/espeak-ng-data/voices/!v"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("espeak-ng's variant files are not here:", err)
	}
	for _, v := range synthVariants {
		b, err := os.ReadFile(filepath.Join(dir, v))
		if err != nil {
			t.Fatal(err)
		}
		want := Male
		if bytes.Contains(b, []byte("gender female")) {
			want = Female
		}
		if got := VariantSex(v); got != want {
			t.Errorf("variant %s: %s, its file says %s", v, got, want)
		}
	}
}

func TestVoiceSetOptionsRefuseNonsense(t *testing.T) {
	bad := []func(*VoiceSetOptions){
		func(o *VoiceSetOptions) { o.Speakers = 0 },
		func(o *VoiceSetOptions) { o.Takes, o.Strings = 0, 0 },
		func(o *VoiceSetOptions) { o.MaxTempo = 0.5 },
		func(o *VoiceSetOptions) { o.Rate = 100 },
		func(o *VoiceSetOptions) { o.Cents = -1 },
	}
	for i, f := range bad {
		o := DefaultVoiceSetOptions()
		f(&o)
		if _, err := SpeakerTable(FliteEngine{}, o); err == nil {
			t.Errorf("case %d: %+v accepted", i, o)
		}
	}
}
