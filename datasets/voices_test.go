package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

// smallVoiceSet is one speaker with one take of each digit and one
// string: enough to see every part of a build.
func smallVoiceSet() VoiceSetOptions {
	o := DefaultVoiceSetOptions()
	o.Speakers, o.Takes, o.Strings = 1, 1, 1
	o.Cents = 0 // no sox pass: the test is about the build, not pitch
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
			if len(a.Digits) != 10 || len(a.Strings) != 1 {
				t.Fatalf("%d digits, %d strings; want 10 and 1", len(a.Digits), len(a.Strings))
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
			o.Seed = 2
			c, err := SpeakerTable(e, o)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(c, a.Speakers) {
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
	if files != 11 {
		t.Errorf("progress counted %d files, want 11", files)
	}
	files = 0
	set, err := BuildVoiceSet(dir, e, o, func(n int) { files += n })
	if err != nil {
		t.Fatal(err)
	}
	if files != 0 || len(set.Digits) != 10 {
		t.Errorf("second build wrote %d files and lists %d digits; want 0 and 10", files, len(set.Digits))
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

func TestBalancedSpeakerTablesAlternateSexes(t *testing.T) {
	o := DefaultVoiceSetOptions()
	o.BalanceSexes = true
	table, err := SpeakerTable(FliteEngine{}, o)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, s := range table {
		n[s.Sex]++
	}
	if n[Male] != o.Speakers/2 || n[Female] != o.Speakers/2 {
		t.Errorf("balanced flite table: %v, want %d of each", n, o.Speakers/2)
	}
}
