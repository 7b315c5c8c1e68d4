package rfstream_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	. "github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

func toyWordClassifier(t *testing.T) *WordClassifier {
	t.Helper()
	c, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func spot(t *testing.T, c *WordClassifier, rate int, x []float32, chunk int) []Result {
	t.Helper()
	s, err := NewWordSpotter(c, DefaultSpotterConfig(), rate)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	for i := 0; i < len(x); i += chunk {
		out = append(out, s.Push(x[i:min(i+chunk, len(x))])...)
	}
	return append(out, s.Flush()...)
}

func TestWordSpotterFindsWordsAndTimes(t *testing.T) {
	c := toyWordClassifier(t)
	// 0.5 s silence, "up" 0.4 s, 0.6 s silence, "down" 0.35 s, 0.5 s silence.
	x := toymodels.UpDown()
	res := spot(t, c, 8000, x, 160)
	last := res[len(res)-1]
	if !last.Final || last.Text != "up down" {
		t.Fatalf("final result %+v, want \"up down\"", last)
	}
	// Word boundaries within 60 ms of the truth: the endpointer needs a few
	// frames of evidence and the glide's envelope starts at zero.
	want := [][2]float64{{0.5, 0.9}, {1.5, 1.85}}
	for i, w := range last.Words {
		if math.Abs(w.Start-want[i][0]) > 0.06 || math.Abs(w.End-want[i][1]) > 0.06 {
			t.Errorf("word %d %q at [%.3f, %.3f], want about [%.2f, %.2f]", i, w.Word, w.Start, w.End, want[i][0], want[i][1])
		}
		if w.Conf <= 0.5 || w.Conf > 1 {
			t.Errorf("word %d confidence %.3f", i, w.Conf)
		}
	}
	sawPartial := false
	for _, r := range res {
		sawPartial = sawPartial || !r.Final
	}
	if !sawPartial {
		t.Error("no partial hypothesis while words were spoken")
	}
	// Chunking never changes the results.
	for _, chunk := range []int{1, 4096, len(x)} {
		if got := spot(t, c, 8000, x, chunk); !reflect.DeepEqual(got, res) {
			t.Fatalf("chunk %d gives %d results, chunk 160 gives %d (or they differ)", chunk, len(got), len(res))
		}
	}
	// The same stream at 16 kHz is resampled and heard the same way.
	up, _ := frontend.Resample(&frontend.Audio{Rate: 8000, Samples: x}, 16000)
	r16 := spot(t, c, 16000, up.Samples, 320)
	if l := r16[len(r16)-1]; l.Text != "up down" {
		t.Fatalf("16 kHz stream heard %q", l.Text)
	}
}

func TestWordModelRoundTrip(t *testing.T) {
	c := toyWordClassifier(t)
	path := t.TempDir() + "/w.rfm"
	if err := SaveModel(path, c.Model); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.Glide(400, 1500, 0.4, 5)}
	h1, _, _ := c.Classify(a)
	h2, _, _ := c2.Classify(a)
	if h1 != h2 || h1.Label != "up" {
		t.Fatalf("before saving %+v, after loading %+v", h1, h2)
	}
	m.Task = "images"
	if _, err := NewWordClassifier(m); err == nil {
		t.Fatal("image model accepted as a word model")
	}
}

func TestSegmentBackgroundIsTheStreamsNoiseLevel(t *testing.T) {
	// Noise at RMS 3e-4 (frames about -47 dB, under the edge floor plus
	// the onset threshold, so the stream does not open on it), a tone
	// word, noise.
	wc := frontend.DefaultWordConfig()
	rate := wc.Audio.SampleRate
	rng := rand.New(rand.NewPCG(3, 4))
	var x []float32
	// The word starts 2 s in: the floor window (1.5 s) then holds no edge
	// frames, whose level is assumed (EdgeFloorDB), not measured.
	for i := 0; i < 4*rate; i++ {
		v := 3e-4 * rng.NormFloat64()
		if i >= 2*rate && i < 2*rate+rate/2 {
			v += 0.3 * math.Sin(2*math.Pi*500*float64(i)/float64(rate))
		}
		x = append(x, float32(v))
	}
	_, energy := frontend.LogMel(wc.Audio, x[:rate])
	var noiseDB float64
	for _, e := range energy {
		noiseDB += e * 10 / math.Ln10
	}
	noiseDB /= float64(len(energy))
	seg, err := NewSegmenter(wc, DefaultSpotterConfig(), rate)
	if err != nil {
		t.Fatal(err)
	}
	var finals int
	for _, s := range append(seg.Push(x), seg.Flush()...) {
		if !s.HasBackground || math.Abs(s.BackgroundDB-noiseDB) > 1.5 {
			t.Fatalf("segment at %.2f s: background %.2f dB (known %v), noise frames average %.2f dB", s.Start, s.BackgroundDB, s.HasBackground, noiseDB)
		}
		if s.Final {
			finals++
		}
	}
	if finals != 1 {
		t.Fatalf("%d final segments, want the one word", finals)
	}
}
