package engine_test

import (
	"reflect"
	"testing"

	. "github.com/rfstream/rfstream/engine"
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

// A stream segment's word vector bounds the speech detector by the
// segmenter's background estimate; a segment without one (or a recording)
// gets the model's own detector. With a loud background around a word the
// two differ, so the test tells which one a segment got.
func TestSegmentVectorBoundsTheDetectorByTheBackground(t *testing.T) {
	c := toyWordClassifier(t)
	rate := c.Config.Audio.SampleRate
	seg, err := NewSegmenter(c.Config, DefaultSpotterConfig(), rate)
	if err != nil {
		t.Fatal(err)
	}
	var final *Segment
	for _, s := range append(seg.Push(toneInNoise(rate, 4, 2, 2.5, -30)), seg.Flush()...) {
		if s.Final {
			final = &s
		}
	}
	if final == nil || !final.HasBackground {
		t.Fatalf("no final segment with a background estimate: %+v", final)
	}
	got, err := c.SegmentVector(*final)
	if err != nil {
		t.Fatal(err)
	}
	want, err := frontend.WordVectorOverBackground(c.Config, final.Audio.Samples, final.BackgroundDB)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("a stream segment's vector is not the one bounded by its background")
	}
	raw, err := c.RawVector(final.Audio)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(raw, want) {
		t.Fatal("the bounded and the file detector give the same vector here: the test cannot tell them apart")
	}
	alone := *final
	alone.HasBackground = false
	if v, err := c.SegmentVector(alone); err != nil || !reflect.DeepEqual(v, raw) {
		t.Errorf("a segment without a background estimate: %v, want the recording's own vector", err)
	}
}

// The segments of one word share the analysis of its frames: every
// segment of a stream, partial or final, and in the order they come, has
// the vector WordVectorOverBackground computes from its samples alone.
func TestSegmentVectorsOfAGrowingWordAreTheWholeOnes(t *testing.T) {
	c := toyWordClassifier(t)
	seg, err := NewSegmenter(c.Config, DefaultSpotterConfig(), 8000)
	if err != nil {
		t.Fatal(err)
	}
	x := toymodels.UpDown()
	var segs []Segment
	for i := 0; i < len(x); i += 160 {
		segs = append(segs, seg.Push(x[i:min(i+160, len(x))])...)
	}
	segs = append(segs, seg.Flush()...)
	partials, finals := 0, 0
	for _, s := range segs {
		got, err := c.SegmentVector(s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := frontend.WordVectorOverBackground(c.Config, s.Audio.Samples, s.BackgroundDB)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("segment %d (final %v, %.2f–%.2f s): the shared analysis gives another vector", s.Seq, s.Final, s.Start, s.End)
		}
		if s.Final {
			finals++
		} else {
			partials++
		}
	}
	if finals != 2 || partials < 2*finals {
		t.Fatalf("%d partial and %d final segments: too few for the test to mean anything", partials, finals)
	}
}
