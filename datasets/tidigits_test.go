package datasets

import (
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

func TestParseTIDIGITSName(t *testing.T) {
	good := []struct {
		name  string
		words []string
		take  byte
	}{
		{"1a.wav", []string{"1"}, 'a'},
		{"Z1OB.WAV", []string{"0", "1", OhWord}, 'b'},
		{"o9za.wav", []string{OhWord, "9", "0"}, 'a'},
		{"1234567b.wav", []string{"1", "2", "3", "4", "5", "6", "7"}, 'b'},
	}
	for _, c := range good {
		words, take, err := ParseTIDIGITSName(c.name)
		if err != nil || !slices.Equal(words, c.words) || take != c.take {
			t.Errorf("%s: %v %c %v, want %v %c", c.name, words, take, err, c.words, c.take)
		}
	}
	bad := map[string]string{
		"1c.wav":                   "take a or b",
		"a.wav":                    "DIGITS{a,b}.wav",
		".wav":                     "DIGITS{a,b}.wav",
		"x1a.wav":                  `"x"`,
		"10a.wav":                  `"0"`,
		"1a.txt":                   "does not end in .wav",
		"12345678901234567a.wav":   "1 to 16 digits",
		"1 a.wav":                  `" "`,
		strings.Repeat("1", 99999): "does not end in .wav",
	}
	for name, msg := range bad {
		_, _, err := ParseTIDIGITSName(name)
		if err == nil || !errors.Is(err, ErrTIDIGITS) || !strings.Contains(err.Error(), msg) || len(err.Error()) > 400 { // a clipped name, quoted
			t.Errorf("%.20s: error %v, want one containing %q (short)", name, err, msg)
		}
	}
}

// TIDIGITSName inverts ParseTIDIGITSName on random transcripts.
func TestTIDIGITSNameRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		words := make([]string, 1+rng.IntN(7))
		for k := range words {
			words[k] = TIDIGITSWords[rng.IntN(len(TIDIGITSWords))]
		}
		take := byte('a' + rng.IntN(2))
		name, err := TIDIGITSName(words, take)
		if err != nil {
			t.Fatal(err)
		}
		got, gt, err := ParseTIDIGITSName(name)
		if err != nil || !slices.Equal(got, words) || gt != take {
			t.Fatalf("%v %c → %s → %v %c %v", words, take, name, got, gt, err)
		}
	}
	if _, err := TIDIGITSName([]string{"ten"}, 'a'); err == nil {
		t.Fatal("a word outside the vocabulary was named")
	}
}

// touchTree creates the files (and their folders) under dir.
func touchTree(t *testing.T, dir string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The three layouts copies of the corpus come in are found; names are
// matched without regard to case; other files are skipped.
func TestTIDIGITSLayouts(t *testing.T) {
	for _, prefix := range []string{"", "tidigits/", "TIDIGITS/"} {
		dir := t.TempDir()
		touchTree(t, dir, prefix+"train/man/ae/1a.wav", prefix+"train/man/ae/z1ob.wav", prefix+"train/man/ae/readme.txt",
			prefix+"test/woman/ac/O9A.WAV", prefix+"TEST/Girl/bx/2b.wav", prefix+"doc/notes.txt")
		us, err := TIDIGITS(dir)
		if err != nil {
			t.Fatalf("%q: %v", prefix, err)
		}
		if len(us) != 4 {
			t.Fatalf("%q: %d utterances %+v", prefix, len(us), us)
		}
		got := map[string]TIDIGITSUtterance{}
		for _, u := range us {
			got[u.Set+" "+u.SpeakerID()+" "+strings.Join(u.Words, " ")+" "+string(u.Take)] = u
		}
		for _, k := range []string{"train man/ae 1 a", "train man/ae 0 1 oh b", "test woman/ac oh 9 a", "test girl/bx 2 b"} {
			if _, ok := got[k]; !ok {
				t.Fatalf("%q: no %q in %v", prefix, k, got)
			}
		}
		if adults := SelectTIDIGITS(us, "", TIDIGITSAdults); len(adults) != 3 {
			t.Fatalf("adults: %+v", adults)
		}
		if tr := SelectTIDIGITS(us, "train", TIDIGITSGroups); len(tr) != 2 || !tr[0].Isolated() || tr[1].Isolated() {
			t.Fatalf("train: %+v", tr)
		}
	}
	// LDC's disc: adults and children in two trees.
	dir := t.TempDir()
	touchTree(t, dir, "data/adults/train/man/ae/1a.wav", "data/adults/test/woman/ac/2a.wav", "data/children/train/boy/bd/3b.wav")
	us, err := TIDIGITS(dir)
	if err != nil || len(us) != 3 || us[2].Group != "boy" {
		t.Fatalf("LDC layout: %+v %v", us, err)
	}
}

// Malformed corpora are refused with the offending path in the error.
func TestTIDIGITSRefusesMalformedLayouts(t *testing.T) {
	cases := []struct {
		files []string
		msg   string
	}{
		{[]string{"train/man/ae/1c.wav"}, "train/man/ae/1c.wav"},
		{[]string{"train/man/ae/x.wav"}, "train/man/ae/x.wav"},
		{[]string{"train/men/ae/1a.wav"}, `"men" is not a speaker group`},
		{[]string{"train/man/a-e/1a.wav"}, "not letters and digits"},
		{[]string{"train/man/ae/sub/1a.wav"}, "a folder inside a speaker's folder"},
		{[]string{"train/man/ae/notes.txt"}, "no .wav files"},
		{[]string{"other/man/ae/1a.wav"}, "no train/ or test/ folder"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		touchTree(t, dir, c.files...)
		_, err := TIDIGITS(dir)
		if err == nil || !errors.Is(err, ErrTIDIGITS) || !strings.Contains(filepath.ToSlash(err.Error()), c.msg) {
			t.Errorf("%v: error %v, want one containing %q", c.files, err, c.msg)
		}
	}
	if _, err := TIDIGITS(filepath.Join(t.TempDir(), "missing")); err == nil || !errors.Is(err, ErrTIDIGITS) {
		t.Errorf("a missing folder: %v", err)
	}
}

func TestParseTIDIGITSGroups(t *testing.T) {
	if g, err := ParseTIDIGITSGroups("man, Woman,girl"); err != nil || !slices.Equal(g, []string{"man", "woman", "girl"}) {
		t.Fatalf("%v %v", g, err)
	}
	for _, bad := range []string{"", "men", "man,man"} {
		if _, err := ParseTIDIGITSGroups(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseTIDIGITSName: any name is read or refused with a short error,
// never a panic; what is read names itself back (lower case) and holds at
// most maxTIDIGITSWords words, whatever the name's length.
func FuzzParseTIDIGITSName(f *testing.F) {
	for _, s := range []string{"1a.wav", "Z1OB.WAV", "1c.wav", "12345678901234567a.wav", ".wav", "ö1a.wav"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		words, take, err := ParseTIDIGITSName(name)
		if err != nil {
			if !errors.Is(err, ErrTIDIGITS) || len(err.Error()) > 400 { // a clipped name, quoted
				t.Fatalf("error %q", err)
			}
			return
		}
		if len(words) == 0 || len(words) > maxTIDIGITSWords {
			t.Fatalf("%d words from %q", len(words), name)
		}
		back, err := TIDIGITSName(words, take)
		if err != nil || back != strings.ToLower(name) {
			t.Fatalf("%q read as %v %c, named back %q (%v)", name, words, take, back, err)
		}
	})
}

// FuzzTIDIGITSLayout: a file at any relative path under a corpus folder is
// listed or refused with an error, never a panic; what is listed lies
// under the folder in a group the corpus has.
func FuzzTIDIGITSLayout(f *testing.F) {
	for _, s := range []string{"train/man/ae/1a.wav", "tidigits/test/girl/bx/o9b.WAV", "data/children/train/boy/b1/zzb.wav",
		"train/man/ae/sub/1a.wav", "train/dog/ae/1a.wav", "test/woman/ac/1.wav"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if len(rel) > 200 || strings.ContainsAny(rel, "\x00\\:") || strings.Contains(rel, "..") || filepath.IsAbs(rel) || strings.HasSuffix(rel, "/") {
			return
		}
		dir := t.TempDir()
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if !strings.HasPrefix(full, dir+string(filepath.Separator)) {
			return
		}
		if os.MkdirAll(filepath.Dir(full), 0o755) != nil || os.WriteFile(full, nil, 0o644) != nil {
			return
		}
		us, err := TIDIGITS(dir)
		if err != nil {
			if !errors.Is(err, ErrTIDIGITS) {
				t.Fatalf("error %v does not wrap ErrTIDIGITS", err)
			}
			return
		}
		if len(us) != 1 || us[0].Path != full || !slices.Contains(TIDIGITSGroups, us[0].Group) || len(us[0].Words) > maxTIDIGITSWords {
			t.Fatalf("%q listed as %+v", rel, us)
		}
	})
}

// A synthetic TIDIGITS-shaped corpus reads back through TIDIGITS: every
// file a 20 kHz SPHERE file in its place, 22 isolated words and the
// strings asked for per speaker, speakers unique.
func TestWriteTIDIGITSShaped(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (Debian: apt-get install espeak-ng); CI has it")
	}
	checkTIDIGITSShaped(t, TIDIGITSShape{Groups: []string{"man", "girl"}, TrainSpeakers: 1, Strings: 2, Seed: 3, Joined: true},
		map[string]int{"man/aa": 24, "girl/ab": 24})
	// Fluent strings cost one espeak-ng call a file: fewer of them.
	checkTIDIGITSShaped(t, TIDIGITSShape{Groups: []string{"girl"}, TestSpeakers: 1, Strings: 1, Seed: 3}, map[string]int{"girl/aa": 23})
}

func checkTIDIGITSShaped(t *testing.T, o TIDIGITSShape, want map[string]int) {
	dir := t.TempDir()
	n, err := WriteTIDIGITSShaped(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	us, err := TIDIGITS(dir)
	if err != nil || len(us) != n || !IsSyntheticTIDIGITS(dir) {
		t.Fatalf("wrote %d, read %d: %v", n, len(us), err)
	}
	spk := map[string]int{}
	for _, u := range us {
		spk[u.SpeakerID()]++
		b, err := os.ReadFile(u.Path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := frontend.DecodeAudio(b)
		if err != nil || !frontend.IsSphere(b) || a.Rate != 20000 || a.Duration() < 0.6 {
			t.Fatalf("%s: %v (SPHERE %v)", u.Path, err, frontend.IsSphere(b))
		}
	}
	if !maps.Equal(spk, want) {
		t.Fatalf("%+v: speakers %v, want %v", o, spk, want)
	}
}
