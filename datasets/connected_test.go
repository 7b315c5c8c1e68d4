package datasets

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

func fakeRecordings() []Recording {
	var recs []Recording
	for _, spk := range []string{"ann", "bob"} {
		for d := 0; d < 10; d++ {
			recs = append(recs, Recording{Path: spk + "/" + DigitWords[d], Label: DigitWords[d][:1], Speaker: spk})
		}
	}
	return recs
}

func TestPlanStrings(t *testing.T) {
	recs := fakeRecordings()
	o := StringOptions{Count: 200, Seed: 3}
	a, err := PlanStrings(recs, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PlanStrings(recs, o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed planned different strings")
	}
	lengths := map[int]bool{}
	for _, p := range a {
		n := len(p.Parts)
		lengths[n] = true
		if n < 2 || n > 7 || len(p.Gaps) != n+1 {
			t.Fatalf("string of %d parts and %d gaps", n, len(p.Gaps))
		}
		for _, r := range p.Parts {
			if r.Speaker != p.Speaker {
				t.Fatalf("a %s string holds a recording of %s", p.Speaker, r.Speaker)
			}
		}
		for k, g := range p.Gaps {
			lo, hi := 0.1, 0.5
			if k == 0 || k == n {
				lo, hi = 0.2, 0.5
			}
			if g < lo || g > hi {
				t.Fatalf("gap %d of %.3f s outside [%g, %g]", k, g, lo, hi)
			}
		}
	}
	if len(lengths) != 6 {
		t.Errorf("200 strings used lengths %v, want all of 2..7", lengths)
	}
	if c, _ := PlanStrings(recs, StringOptions{Count: 200, Seed: 4}); reflect.DeepEqual(a, c) {
		t.Error("different seeds planned the same strings")
	}
	if _, err := PlanStrings(nil, o); err == nil {
		t.Error("planning from no recordings succeeded")
	}
}

func TestTranscriptsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	us := []Utterance{
		{Path: filepath.Join(dir, "a.wav"), Words: []string{"1", "2", "3"}, Speaker: "ann"},
		{Path: "/elsewhere/b.wav", Words: []string{"0"}},
	}
	m := filepath.Join(dir, "manifest.tsv")
	if err := WriteTranscripts(m, us); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTranscripts(m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, us) {
		t.Fatalf("read back %+v, wrote %+v", got, us)
	}
	b, _ := os.ReadFile(m)
	if string(b) != "a.wav\t1 2 3\tann\n/elsewhere/b.wav\t0\n" {
		t.Errorf("manifest text %q", b)
	}
	for _, bad := range []string{"", "# only a comment\n", "a.wav\n", "a.wav\t \n", "\t1 2\n", "a\t1\tx\ty\n"} {
		if _, err := ParseTranscripts([]byte(bad), dir); err == nil {
			t.Errorf("manifest %q accepted", bad)
		}
	}
}

func FuzzParseTranscripts(f *testing.F) {
	f.Add([]byte("a.wav\t1 2 3\tann\n# c\n\nb.wav\t0\n"))
	f.Add([]byte("x\t \t\n"))
	f.Add([]byte("\r\n\t\t\t"))
	f.Fuzz(func(t *testing.T, b []byte) {
		us, err := ParseTranscripts(b, "/base")
		if err != nil {
			return
		}
		for _, u := range us {
			if u.Path == "" || len(u.Words) == 0 {
				t.Fatalf("accepted an utterance without path or words: %+v", u)
			}
		}
	})
}

// writeTone writes a 440 Hz tone of dur seconds at amplitude amp.
func writeTone(t *testing.T, path string, dur, amp float64) {
	t.Helper()
	a := &frontend.Audio{Rate: 8000, Samples: make([]float32, int(dur*8000))}
	for i := range a.Samples {
		a.Samples[i] = float32(amp * math.Sin(2*math.Pi*440*float64(i)/8000))
	}
	if err := writeWAV(path, a); err != nil {
		t.Fatal(err)
	}
}

// TestRenderString: words land exactly where the plan puts them, and the
// added noise has the requested SNR (measured as noisy − clean, which is
// the noise alone because both renders draw the same silences).
func TestRenderString(t *testing.T) {
	dir := t.TempDir()
	writeTone(t, filepath.Join(dir, "a.wav"), 0.3, 0.1)
	writeTone(t, filepath.Join(dir, "b.wav"), 0.5, 0.2)
	p := StringPlan{Parts: []Recording{{Path: filepath.Join(dir, "a.wav"), Label: "1"}, {Path: filepath.Join(dir, "b.wav"), Label: "2"}},
		Gaps: []float64{0.25, 0.125, 0.5}}
	clean, spans, err := RenderString(p, 8000, Noise{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := []Span{{"1", 0.25, 0.55}, {"2", 0.675, 1.175}}
	for i, s := range spans {
		if s.Word != want[i].Word || math.Abs(s.Start-want[i].Start) > 1e-9 || math.Abs(s.End-want[i].End) > 1e-9 {
			t.Errorf("span %d = %+v, want %+v", i, s, want[i])
		}
	}
	if math.Abs(clean.Duration()-1.675) > 1e-9 {
		t.Errorf("duration %.4f s, want 1.675", clean.Duration())
	}
	for _, kind := range []string{"white", "pink", "brown"} {
		noisy, _, err := RenderString(p, 8000, Noise{Kind: kind, SNR: 10}, 7)
		if err != nil {
			t.Fatal(err)
		}
		var pn float64
		for i, v := range noisy.Samples {
			d := float64(v - clean.Samples[i])
			pn += d * d
		}
		pn /= float64(len(clean.Samples))
		// Word power: amplitude²/2 of each tone, weighted by its length.
		ps := (0.3*0.1*0.1/2 + 0.5*0.2*0.2/2) / 0.8
		if snr := 10 * math.Log10(ps/pn); math.Abs(snr-10) > 0.2 {
			t.Errorf("%s noise: SNR %.2f dB, want 10", kind, snr)
		}
	}
	if _, _, err := RenderString(StringPlan{Parts: p.Parts, Gaps: p.Gaps[:2]}, 8000, Noise{}, 1); err == nil {
		t.Error("a plan with too few gaps rendered")
	}
	if _, _, err := RenderString(p, 8000, Noise{Kind: "purple", SNR: 3}, 1); err == nil {
		t.Error("unknown noise kind accepted")
	}
}

func TestEspeak(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng not installed")
	}
	text, err := DigitText([]string{"1", "0", "7"})
	if err != nil || text != "one zero seven" {
		t.Fatalf("DigitText = %q, %v", text, err)
	}
	if _, err := DigitText([]string{"12"}); err == nil {
		t.Error("DigitText accepted 12")
	}
	a, err := Espeak(text, Voice{Name: "en+f3", Speed: 160, Pitch: 50}, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rate != 8000 || a.Duration() < 0.5 || a.Duration() > 5 {
		t.Fatalf("espeak audio of %.2f s at %d Hz", a.Duration(), a.Rate)
	}
	if frontend.NoiseFloor(a.Samples, 8000) >= float64(slices.Max(a.Samples)) {
		t.Error("synthetic speech is no louder than its floor")
	}
	if _, err := Espeak("one", Voice{Name: "-x"}, 8000); err == nil {
		t.Error("an option passed as a voice name was accepted")
	}
}
