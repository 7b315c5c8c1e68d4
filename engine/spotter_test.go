package engine_test

import (
	"math"
	"reflect"
	"testing"

	. "github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

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
