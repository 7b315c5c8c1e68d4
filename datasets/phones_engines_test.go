package datasets

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

// Every engine table maps only onto Phones and reaches all 40 of them, and
// the ARPAbet names that are already Phones map to themselves.
func TestEngineMappingTablesCoverPhones(t *testing.T) {
	for name, table := range map[string]map[string]string{"flite": FlitePhones, "festival": FestivalPhones} {
		targets := map[string]bool{}
		for from, to := range table {
			for _, p := range strings.Fields(to) {
				if !slices.Contains(Phones, p) {
					t.Errorf("%s: %q maps to %q, not one of Phones", name, from, p)
				}
				targets[p] = true
			}
			if slices.Contains(Phones, from) && to != from {
				t.Errorf("%s: phone %q maps to %q, want itself", name, from, to)
			}
		}
		for _, p := range Phones {
			if !targets[p] {
				t.Errorf("%s: phone %q is never a target", name, p)
			}
		}
		if table["pau"] != "" {
			t.Errorf("%s: pau maps to %q, want silence", name, table["pau"])
		}
	}
	for _, s := range []string{"h#", "brk"} {
		if to, ok := FestivalPhones[s]; !ok || to != "" {
			t.Errorf("festival %q: %q, %v; want silence", s, to, ok)
		}
		if _, ok := FlitePhones[s]; ok {
			t.Errorf("flite maps festival's %q", s)
		}
	}
	for d, pron := range DigitPhones {
		for _, p := range strings.Fields(pron) {
			if !slices.Contains(Phones, p) {
				t.Errorf("digit %d: %q is not one of Phones", d, p)
			}
		}
	}
}

func TestParseSegments(t *testing.T) {
	got, err := ParseSegments("pau:0.220 dh:0.254  ax:0.292\n k:0.292 pau:1\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []EngineSegment{{"pau", 0.22}, {"dh", 0.254}, {"ax", 0.292}, {"k", 0.292}, {"pau", 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, c := range []struct{ in, msg string }{
		{"", "no segments"},
		{"pau", "want phone:end"},
		{":0.2", "want phone:end"},
		{"a:x", `end "x"`},
		{"a:NaN", `end "NaN"`},
		{"a:-1", `end "-1"`},
		{"a:0.5 b:0.4", "before the previous"},
		{"a:1e9", "not a time"},
	} {
		if _, err := ParseSegments(c.in); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseSegments(%q): error %v, want one containing %q", c.in, err, c.msg)
		}
	}
}

func TestParseFestivalSegments(t *testing.T) {
	out := "festival chatter\n@rfstream-segments 1 pau:0.1 b:0.2\nmore\n@rfstream-segments 0 a:0.3\n"
	got, err := ParseFestivalSegments(out, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got[0], []EngineSegment{{"a", 0.3}}) || !slices.Equal(got[1], []EngineSegment{{"pau", 0.1}, {"b", 0.2}}) {
		t.Fatalf("got %v", got)
	}
	for _, c := range []struct {
		in  string
		n   int
		msg string
	}{
		{"@rfstream-segments 0 a:0.1\n", 2, "no segments for utterance 1"},
		{"@rfstream-segments 2 a:0.1\n", 2, `index "2"`},
		{"@rfstream-segments x a:0.1\n", 2, `index "x"`},
		{"@rfstream-segments 0 a:0.1\n@rfstream-segments 0 a:0.1\n", 1, "listed twice"},
		{"@rfstream-segments 0 a:0.2 b:0.1\n", 1, "line 1 (utterance 0)"},
		{"", -1, "utterances"},
	} {
		if _, err := ParseFestivalSegments(c.in, c.n); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseFestivalSegments(%q, %d): error %v, want one containing %q", c.in, c.n, err, c.msg)
		}
	}
}

// A pause leaves a gap, a syllabic consonant splits its span evenly into
// schwa and consonant, an unknown phone is refused by name.
func TestMapSegments(t *testing.T) {
	segs := []EngineSegment{{"pau", 0.2}, {"b", 0.3}, {"el", 0.5}, {"dx", 0.6}, {"pau", 0.9}}
	got, err := MapSegments("flite", FlitePhones, segs)
	if err != nil {
		t.Fatal(err)
	}
	want := []TimedPhone{{"b", 0.2, 0.3}, {"ax", 0.3, 0.4}, {"l", 0.4, 0.5}, {"t", 0.5, 0.6}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Phone != want[i].Phone || math.Abs(got[i].Start-want[i].Start) > 1e-12 || math.Abs(got[i].End-want[i].End) > 1e-12 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if _, err := MapSegments("festival", FestivalPhones, []EngineSegment{{"Q", 1}}); err == nil || !strings.Contains(err.Error(), `festival phone "Q"`) {
		t.Errorf("unknown phone: %v", err)
	}
}

func FuzzParseSegments(f *testing.F) {
	for _, s := range []string{"pau:0.220 dh:0.254 ax:0.292", "a:1 b:0.5", "x", "a:b:1", ":", "a:1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := ParseSegments(s)
		if err != nil {
			return
		}
		last := 0.0
		for i, g := range segs {
			if g.Phone == "" || strings.ContainsAny(g.Phone, " \t\n") || !(g.End >= last) || g.End > 3600 {
				t.Fatalf("segment %d is %+v after %g", i, g, last)
			}
			last = g.End
		}
		if _, err := MapSegments("flite", FlitePhones, segs); err != nil && !strings.Contains(err.Error(), "no phone mapping") {
			t.Fatalf("MapSegments: %v", err)
		}
	})
}

func FuzzParseFestivalSegments(f *testing.F) {
	f.Add("@rfstream-segments 0 a:0.1\nchatter\n@rfstream-segments 1 b:0.2 c:0.3\n", 2)
	f.Add("@rfstream-segments 0 a:0.1\n@rfstream-segments 0 a:0.1", 1)
	f.Add("", 0)
	f.Add("@rfstream-segments -1 a:1", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		segs, err := ParseFestivalSegments(s, n)
		if err != nil {
			return
		}
		if len(segs) != n {
			t.Fatalf("%d utterances, asked for %d", len(segs), n)
		}
		for i, u := range segs {
			if len(u) == 0 {
				t.Fatalf("utterance %d has no segments and no error", i)
			}
		}
	})
}

// What each engine says it spoke for a known sentence, mapped: the
// dictionary's phones in order, timed inside the written audio.
func TestEnginesSayTheirPhones(t *testing.T) {
	for _, e := range []PhoneEngine{FliteEngine{}, FestivalEngine{}} {
		t.Run(e.Name(), func(t *testing.T) {
			if err := e.Available(); err != nil {
				t.Skip(err)
			}
			path := filepath.Join(t.TempDir(), "a.wav")
			voice := e.Voices()[0].Name
			timed, err := e.SayPhones([]SayJob{{Text: "the cat sees seven dogs", Voice: voice, Tempo: 1, Rate: 8000, Path: path}})
			if err != nil {
				t.Fatal(err)
			}
			var phones []string
			for _, p := range timed[0] {
				phones = append(phones, p.Phone)
			}
			if got, want := strings.Join(phones, " "), "dh ax k ae t s iy z s eh v ax n d aa g z"; got != want {
				t.Errorf("%s: phones %q, want %q", voice, got, want)
			}
			a, err := frontend.ReadAudio(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			length := float64(len(a.Samples)) / float64(a.Rate)
			for i, p := range timed[0] {
				if p.Start < 0 || p.End <= p.Start || p.End > length+0.01 || (i > 0 && p.Start < timed[0][i-1].End-1e-9) {
					t.Fatalf("%s: phone %d %+v in audio of %.3f s", voice, i, p, length)
				}
			}
		})
	}
}

// A seed gives the same corpus byte for byte: audio, phone times and
// manifest; the .PHN files agree with the manifest and lie inside the
// audio.
func TestEnginePhoneCorporaAreByteIdenticalForASeed(t *testing.T) {
	for _, e := range []PhoneEngine{FliteEngine{}, FestivalEngine{}} {
		t.Run(e.Name(), func(t *testing.T) {
			if err := e.Available(); err != nil {
				t.Skip(err)
			}
			o := EnginePhoneOptions{Speakers: 2, PerSpeaker: 1, Cents: 100, MaxTempo: 1.2, Seed: 3, Rate: 8000}
			a, err := BuildEnginePhoneCorpus(t.TempDir(), e, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := BuildEnginePhoneCorpus(t.TempDir(), e, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			us, spans, err := ReadEnginePhoneCorpus(a)
			if err != nil {
				t.Fatal(err)
			}
			ub, _, err := ReadEnginePhoneCorpus(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(us) != 2 || len(ub) != 2 {
				t.Fatalf("%d and %d utterances, want 2", len(us), len(ub))
			}
			sameFile(t, a.Manifest, b.Manifest)
			for i, u := range us {
				sameFile(t, u.Path, ub[i].Path)
				sameFile(t, strings.TrimSuffix(u.Path, ".wav")+".PHN", strings.TrimSuffix(ub[i].Path, ".wav")+".PHN")
				au, err := frontend.ReadAudio(u.Path, 0)
				if err != nil {
					t.Fatal(err)
				}
				if last := spans[i][len(spans[i])-1]; au.Rate != 8000 || last.End > len(au.Samples) {
					t.Errorf("%s: last phone ends at %d, audio has %d samples at %d Hz", u.Path, last.End, len(au.Samples), au.Rate)
				}
				if spans[i][0].Start < 800 {
					t.Errorf("%s: first phone starts at sample %d, inside the 0.1 s lead", u.Path, spans[i][0].Start)
				}
			}
			// The texts drawn again are those spoken: the lexicon's phones
			// for them are close to the engine's own (flite's lexicon is
			// CMU's too; festival's differs a little more).
			texts := EnginePhoneCorpusTexts(a, o)
			if lex, err := LoadLexicon(""); err == nil {
				for _, u := range us {
					phones, missing := lex.Transcribe(TextWords(texts[filepath.Base(u.Path)]))
					if e := editDistance(FoldToLexicon(u.Words), phones); len(missing) > 0 || float64(e) > 0.35*float64(len(phones)) {
						t.Errorf("%s: text %q: lexicon %q, engine %q", u.Path, texts[filepath.Base(u.Path)], phones, u.Words)
					}
				}
			}
			if us[0].Speaker == us[1].Speaker {
				t.Errorf("two speakers both named %q", us[0].Speaker)
			}
			// A corpus already built is read, not spoken again.
			if _, err := BuildEnginePhoneCorpus(filepath.Dir(filepath.Dir(a.Manifest)), failingEngine{e}, o, nil); err != nil {
				t.Errorf("rebuilt a complete corpus: %v", err)
			}
			o.PerSpeaker = 0
			if _, err := BuildEnginePhoneCorpus(t.TempDir(), e, o, nil); err == nil {
				t.Error("0 sentences per speaker accepted")
			}
		})
	}
}

type failingEngine struct{ PhoneEngine }

func (failingEngine) SayPhones([]SayJob) ([][]TimedPhone, error) {
	return nil, fmt.Errorf("spoke again")
}

// editDistance is the Levenshtein distance of two phone strings.
func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range a {
		cur := make([]int, len(b)+1)
		cur[0] = i + 1
		for j := range b {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j]+cost, prev[j+1]+1, cur[j]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}
