package rfstream

import (
	"math"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// glide is a synthetic "word": a tone sweeping from f0 to f1 Hz over dur
// seconds, with a little jitter from seed so no two utterances are equal.
func glide(f0, f1, dur float64, seed uint32) []float32 {
	n := int(8000 * dur)
	x := make([]float32, n)
	lcg := seed*2654435761 + 1
	ph := 0.0
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		f := f0 + (f1-f0)*float64(i)/float64(n)
		ph += 2 * math.Pi * f / 8000
		env := math.Sin(math.Pi * float64(i) / float64(n))
		x[i] = float32(0.4*env*math.Sin(ph) + 0.002*(float64(lcg>>8)/float64(1<<24)-0.5))
	}
	return x
}

func noise(n int, seed uint32) []float32 {
	x := make([]float32, n)
	lcg := seed
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		x[i] = 0.002 * (float32(lcg>>8)/float32(1<<24) - 0.5)
	}
	return x
}

// toyWordClassifier learns "up" (rising glide) and "down" (falling).
func toyWordClassifier(t *testing.T) *WordClassifier {
	t.Helper()
	wc := frontend.DefaultWordConfig()
	var rows [][]float32
	var labels []int
	for i := 0; i < 60; i++ {
		d := 0.3 + 0.01*float64(i%20)
		up := append(append(noise(800, uint32(i)), glide(400, 1500, d, uint32(i))...), noise(800, uint32(i+1))...)
		down := append(append(noise(800, uint32(i+7)), glide(1500, 400, d, uint32(i+100))...), noise(800, uint32(i+3))...)
		for c, sig := range [][]float32{up, down} {
			v, err := frontend.WordVector(wc, sig)
			if err != nil {
				t.Fatal(err)
			}
			rows, labels = append(rows, v), append(labels, c)
		}
	}
	x := linalg.NewGeneral32(len(rows), wc.Dim())
	for i, r := range rows {
		copy(linalg.Row32(x, i), r)
	}
	mp, _ := maxout.New(wc.Dim(), maxout.Params{M: 200, Q: 2}, 3)
	rls, _, err := FitRLS(mp, x, labels, 2, FitOptions{Lambda: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewWordClassifier(NewWordModel(wc, mp, rls, []string{"up", "down"}))
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
	var x []float32
	x = append(x, noise(4000, 1)...)
	x = append(x, glide(450, 1400, 0.4, 77)...)
	x = append(x, noise(4800, 2)...)
	x = append(x, glide(1400, 450, 0.35, 78)...)
	x = append(x, noise(4000, 3)...)
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
	a := &frontend.Audio{Rate: 8000, Samples: glide(400, 1500, 0.4, 5)}
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
