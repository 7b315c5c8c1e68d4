package datasets

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

func TestSynthSpeakersDrawnBySeed(t *testing.T) {
	a, err := SynthSpeakers(40, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SynthSpeakers(40, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed drew different speakers")
	}
	c, _ := SynthSpeakers(40, 8)
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 7 and 8 drew the same speakers")
	}
	seen := map[string]bool{}
	for _, s := range a {
		v := s.Voice
		if seen[v.Name] {
			t.Errorf("voice %s drawn twice", v.Name)
		}
		seen[v.Name] = true
		if v.Speed < 120 || v.Speed > 200 || v.Pitch < 20 || v.Pitch > 80 {
			t.Errorf("%s: speed %d, pitch %d out of range", v.Name, v.Speed, v.Pitch)
		}
		if !strings.HasPrefix(s.Name(), "espeak:") || !strings.Contains(v.Name, "+") {
			t.Errorf("speaker %q is not an espeak voice with a variant", s.Name())
		}
	}
	for _, n := range []int{0, -1, len(synthAccents)*len(synthVariants) + 1} {
		if _, err := SynthSpeakers(n, 1); err == nil {
			t.Errorf("%d speakers: no error", n)
		}
	}
}

func TestBuildSynthDigitsRefusesBadOptions(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []SynthDigitOptions{{Voices: 0, Takes: 1}, {Voices: 2, Takes: 0}, {Voices: 2, Takes: 101}, {Voices: 1, Takes: 1, Rate: 100}} {
		if _, err := BuildSynthDigits(dir, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// Two builds with the same options give byte-identical files, every digit
// from every speaker and take; a third build finds the cached set.
func TestBuildSynthDigitsDeterministic(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng not installed")
	}
	o := SynthDigitOptions{Voices: 1, Takes: 2, Seed: 5}
	d1, d2 := t.TempDir(), t.TempDir()
	a, err := BuildSynthDigits(d1, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildSynthDigits(d2, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 20 || len(b) != 20 {
		t.Fatalf("%d and %d recordings, want 10 digits × 2 takes", len(a), len(b))
	}
	count := map[string]int{}
	speakers := map[string]bool{}
	for i := range a {
		count[a[i].Label]++
		speakers[a[i].Speaker] = true
		if a[i].Label != b[i].Label || a[i].Speaker != b[i].Speaker {
			t.Fatalf("recording %d: %+v vs %+v", i, a[i], b[i])
		}
		x, err := os.ReadFile(a[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(b[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s and %s differ", a[i].Path, b[i].Path)
		}
		au, err := frontend.ReadAudio(a[i].Path, 8000)
		if err != nil {
			t.Fatal(err)
		}
		if d := au.Duration(); d < 0.2 || d > 2.5 {
			t.Errorf("%s: %.2f s for one digit", a[i].Path, d)
		}
	}
	if len(count) != 10 || len(speakers) != 1 {
		t.Fatalf("labels %v, speakers %v", count, speakers)
	}
	for l, n := range count {
		if n != 2 {
			t.Errorf("digit %s: %d recordings, want 2", l, n)
		}
	}
	// The two takes of one digit differ (speed and pitch jitter).
	x, _ := os.ReadFile(filepath.Join(filepath.Dir(a[0].Path), "3_s000_0.wav"))
	y, _ := os.ReadFile(filepath.Join(filepath.Dir(a[0].Path), "3_s000_1.wav"))
	if bytes.Equal(x, y) {
		t.Error("two takes are identical")
	}
	// Cached: the files are not written again.
	st, _ := os.Stat(a[0].Path)
	c, err := BuildSynthDigits(d1, o)
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(c[0].Path)
	if !reflect.DeepEqual(a, c) || !st.ModTime().Equal(st2.ModTime()) {
		t.Error("a complete set was built again")
	}
}

func TestRoomEdges(t *testing.T) {
	x := make([]float32, 4000)
	for i := range x {
		x[i] = float32(0.3 * math.Sin(float64(i)*0.2))
	}
	a := roomEdges(x, 8000, 3)
	b := roomEdges(x, 8000, 3)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different audio")
	}
	if n := len(a) - len(x); n < 2*160 || n > 2*960 {
		t.Fatalf("%d samples of edges, want 20-120 ms each side", n)
	}
	var peak float64
	for _, v := range a {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	if db := 20 * math.Log10(peak); db > -0.9 || db < -12.2 {
		t.Errorf("peak %.1f dBFS, want −12…−1", db)
	}
	if a[0] == 0 && a[len(a)-1] == 0 {
		t.Error("edges are digital silence")
	}
}
