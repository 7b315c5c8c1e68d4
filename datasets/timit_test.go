package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

func TestParsePHN(t *testing.T) {
	got, err := ParsePHN([]byte("0 100 h#\n\n100 250 aa\r\n260 300 s\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []PhoneSpan{{0, 100, "h#"}, {100, 250, "aa"}, {260, 300, "s"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("span %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

func TestParsePHNErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"", "no phones"},
		{"0 100\n", "line 1: want \"start end phone\""},
		{"0 100 aa extra\n", "line 1: want"},
		{"0 100 aa\nx 200 b\n", "line 2: start \"x\""},
		{"0 100 aa\n100 1e3 b\n", "line 2: start"},
		{"0 100 aa\n200 150 b\n", "line 2: span 200–150 is empty"},
		{"0 100 aa\n100 100 b\n", "line 2: span 100–100 is empty"},
		{"-5 100 aa\n", "line 1: span -5–100"},
		{"0 100 aa\n50 150 b\n", "line 2: span 50–150 overlaps the previous one (ends at 100)"},
		{"0 99999999999999999999 aa\n", "line 1: start"},
	}
	for _, c := range cases {
		_, err := ParsePHN([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParsePHN(%q): error %v, want one containing %q", c.in, err, c.msg)
		}
	}
}

func FuzzParsePHN(f *testing.F) {
	for _, s := range []string{"0 100 h#\n100 250 aa\n", "0 1 a\n1 2 b\n\n5 9 c", "0 100\n", "3 2 x", "0 10 a\n5 20 b\n", "\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, err := ParsePHN(b)
		if err != nil {
			return
		}
		if len(spans) == 0 {
			t.Fatal("no error and no spans")
		}
		for i, s := range spans {
			if s.Start < 0 || s.End <= s.Start || s.Phone == "" || strings.ContainsAny(s.Phone, " \t\n") {
				t.Fatalf("span %d is %+v", i, s)
			}
			if i > 0 && s.Start < spans[i-1].End {
				t.Fatalf("span %d overlaps: %+v after %+v", i, s, spans[i-1])
			}
		}
	})
}

func TestTIMITCorpusFixture(t *testing.T) {
	us, err := TIMITCorpus(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	total, train, test := 0, 0, 0
	for _, l := range fixtureLayout {
		total += l.utts
	}
	if len(us) != total {
		t.Fatalf("%d utterances, want %d", len(us), total)
	}
	speakers := map[string]string{}
	for _, u := range us {
		switch u.Split {
		case "train":
			train++
		case "test":
			test++
		default:
			t.Fatalf("%s: split %q", u.Audio, u.Split)
		}
		speakers[u.Speaker] = u.Split
		a, err := frontend.ReadAudio(u.Audio, 0)
		if err != nil {
			t.Fatal(err)
		}
		if a.Rate != 8000 {
			t.Fatalf("%s: rate %d", u.Audio, a.Rate)
		}
		// The fixture's phones cover the audio exactly, h# to h#.
		if u.Phones[0].Start != 0 || u.Phones[len(u.Phones)-1].End != len(a.Samples) || u.Phones[0].Phone != "h#" {
			t.Fatalf("%s: phones %v do not cover its %d samples", u.Audio, u.Phones, len(a.Samples))
		}
	}
	if train != 15 || test != 3 || len(speakers) != 4 || speakers["MDD0"] != "test" || speakers["FAA0"] != "train" {
		t.Fatalf("train %d, test %d, speakers %v", train, test, speakers)
	}
	// SPHERE and RIFF both occur, and resampling on read works.
	kinds := map[bool]int{}
	for _, u := range us {
		b, _ := os.ReadFile(u.Audio)
		kinds[bytes.HasPrefix(b, []byte("NIST_1A"))]++
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("fixture formats: %v", kinds)
	}
	a, err := frontend.ReadAudio(us[1].Audio, 16000)
	if err != nil || a.Rate != 16000 {
		t.Fatalf("resampled read: %v", err)
	}
}

func TestTIMITCorpusErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := TIMITCorpus(dir); err == nil || !strings.Contains(err.Error(), "no .PHN files") {
		t.Fatalf("empty folder: %v", err)
	}
	spk := filepath.Join(dir, "train", "s1")
	if err := os.MkdirAll(spk, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(spk, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.phn", "0 100 h#\n")
	if _, err := TIMITCorpus(dir); err == nil || !strings.Contains(err.Error(), "no audio file a.wav") {
		t.Fatalf("missing audio: %v", err)
	}
	var wav bytes.Buffer
	if err := frontend.EncodeWAV16(&wav, &frontend.Audio{Rate: 8000, Samples: make([]float32, 100)}); err != nil {
		t.Fatal(err)
	}
	write("a.wav", wav.String())
	write("a.phn", "0 100 h#\n50 80 aa\n")
	_, err := TIMITCorpus(dir)
	if err == nil || !strings.Contains(err.Error(), "a.phn: line 2: span 50–80 overlaps") {
		t.Fatalf("overlapping spans: %v", err)
	}
	write("a.phn", "0 100 h#\n")
	us, err := TIMITCorpus(dir)
	if err != nil || len(us) != 1 || us[0].Split != "train" || us[0].Speaker != "s1" {
		t.Fatalf("lower-case corpus: %v %+v", err, us)
	}
	write("a.wav", "NIST_1A\n   1024\nsample_coding -s3 pcm,embedded-shorten-v2.00\n")
	if _, err := frontend.ReadAudio(us[0].Audio, 8000); err == nil || !strings.Contains(err.Error(), "a.wav") {
		t.Fatalf("bad audio: %v", err)
	}
}
