package engine_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// An isolated-word model's recogniser answers as its classifier does:
// the best label and its confidence, then the three best alternatives
// (here both words), at the model's rate or any other.
func TestNewRecognizerOfAWordModel(t *testing.T) {
	c, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := engine.NewRecognizer(c.Model)
	if err != nil {
		t.Fatal(err)
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.Glide(400, 1500, 0.35, 11)}
	h, scores, err := c.Classify(a)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rec.Recognize(a.Samples, a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "up" || res.Text != h.Label || res.Conf != h.Conf || !res.Final || !res.EOS || len(res.Words) != 0 {
		t.Fatalf("recognised %+v, the classifier says %+v", res, h)
	}
	down := 1 - slices.Index(c.Model.Labels, "up")
	want := []engine.Hypothesis{h, {Label: c.Model.Labels[down], Conf: engine.Confidence(scores, down)}}
	if !reflect.DeepEqual(res.Alternatives, want) {
		t.Fatalf("alternatives %+v, want %+v", res.Alternatives, want)
	}
	if !reflect.DeepEqual(c.ResultOf(scores), res) {
		t.Fatalf("ResultOf the classifier's scores %+v, Recognize %+v", c.ResultOf(scores), res)
	}
	up16, err := frontend.Resample(a, 16000)
	if err != nil {
		t.Fatal(err)
	}
	if res16, err := rec.Recognize(up16.Samples, 16000); err != nil || res16.Text != "up" {
		t.Fatalf("at 16 kHz: %+v, %v", res16, err)
	}
}

// A connected-word or phone model's recogniser hears the recording as the
// live pipeline hears a stream of it: the stream's end-of-stream words,
// pushed in 100 ms chunks, and the string's confidence is its least sure
// word's.
func TestNewRecognizerOfAConnectedModelIsTheStream(t *testing.T) {
	s := toneString([]string{"lo", "hi", "lo"}, 8)
	for _, task := range []string{engine.TaskConnected, engine.TaskPhones} {
		m, err := engine.LoadModel("../testdata/tones-rls.rfm")
		if err != nil {
			t.Fatal(err)
		}
		m.Task = task
		stream, err := engine.NewStream(m, 8000)
		if err != nil {
			t.Fatal(err)
		}
		rs := streamIn100ms(s, stream.Push, stream.Flush)
		want := rs[len(rs)-1]
		rec, err := engine.NewRecognizer(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rec.Recognize(s, 8000)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != "lo hi lo" || got.Text != want.Text || !reflect.DeepEqual(got.Words, want.Words) || !got.Final || !got.EOS {
			t.Fatalf("%s: recognised %+v, the stream ends with %+v", task, got, want)
		}
		least := want.Words[0].Conf
		for _, w := range want.Words {
			least = min(least, w.Conf)
		}
		if got.Conf != least || !(got.Conf > 0) {
			t.Fatalf("%s: string confidence %v, its least sure word's %v", task, got.Conf, least)
		}
	}
}

// An isolated-word model's recogniser says there was no speech in
// silence, where its classifier alone would name a word.
func TestNewRecognizerOfAWordModelHearsNoSpeech(t *testing.T) {
	c, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := engine.NewRecognizer(c.Model)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]float32, 12000)
	if h, _, err := c.Classify(&frontend.Audio{Rate: 8000, Samples: noise}); err != nil || h.Label == "" {
		t.Fatalf("the classifier alone: %+v, %v", h, err)
	}
	res, err := rec.Recognize(noise, 8000)
	if err != nil || !res.NoSpeech || res.Text != "" || !res.EOS {
		t.Fatalf("silence: %+v, %v; want no speech", res, err)
	}
}

// An image model, a task nobody knows and a model that cannot be built
// are errors, never a recogniser.
func TestNewRecognizerRefuses(t *testing.T) {
	for _, task := range []string{engine.TaskImages, "no-such-task"} {
		rec, err := engine.NewRecognizer(&engine.Model{Task: task, Labels: []string{"x"}})
		want := fmt.Sprintf("model task %q cannot recognise recordings (known: connected, phones, words)", task)
		if rec != nil || err == nil || err.Error() != want {
			t.Errorf("task %q: recogniser %v, error %v, want %q", task, rec, err, want)
		}
	}
	for _, task := range []string{engine.TaskWords, engine.TaskConnected} {
		rec, err := engine.NewRecognizer(&engine.Model{Task: task, Labels: []string{"x"}, Input: []byte(`{}`)})
		if rec != nil || err == nil {
			t.Errorf("a %s model with nothing in it: recogniser %v, error %v", task, rec, err)
		}
	}
}
