package rfstream_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
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
	rec, err := rfstream.NewRecognizer(c.Model)
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
	want := []rfstream.Hypothesis{h, {Label: c.Model.Labels[down], Conf: rfstream.Confidence(scores, down)}}
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

// A connected-word or phone model's recogniser decodes the recording as
// Connected does, and the string's confidence is its least sure word's.
func TestNewRecognizerOfAConnectedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var s []float32
	for _, w := range []string{"lo", "hi", "lo"} {
		s = append(s, datasets.Silence(2000, fixtures.ToneFloor, rng)...)
		s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
	}
	s = append(s, datasets.Silence(2400, fixtures.ToneFloor, rng)...)
	for _, task := range []string{rfstream.TaskConnected, rfstream.TaskPhones} {
		m, err := rfstream.Load("testdata/tones-rls.rfm")
		if err != nil {
			t.Fatal(err)
		}
		m.Task = task
		c, err := rfstream.NewConnected(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.Recognize(&frontend.Audio{Rate: 8000, Samples: s})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rfstream.NewRecognizer(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rec.Recognize(s, 8000)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != "lo hi lo" || got.Text != want.Text || !reflect.DeepEqual(got.Words, want.Words) || !got.Final || !got.EOS {
			t.Fatalf("%s: recognised %+v, Connected decodes %+v", task, got, want)
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

// An image model, a task nobody knows and a model that cannot be built
// are errors, never a recogniser.
func TestNewRecognizerRefuses(t *testing.T) {
	for _, task := range []string{rfstream.TaskImages, "no-such-task"} {
		rec, err := rfstream.NewRecognizer(&rfstream.Model{Task: task, Labels: []string{"x"}})
		want := fmt.Sprintf("model task %q cannot recognise recordings (known: connected, phones, words)", task)
		if rec != nil || err == nil || err.Error() != want {
			t.Errorf("task %q: recogniser %v, error %v, want %q", task, rec, err, want)
		}
	}
	for _, task := range []string{rfstream.TaskWords, rfstream.TaskConnected} {
		rec, err := rfstream.NewRecognizer(&rfstream.Model{Task: task, Labels: []string{"x"}, Input: []byte(`{}`)})
		if rec != nil || err == nil {
			t.Errorf("a %s model with nothing in it: recogniser %v, error %v", task, rec, err)
		}
	}
}

// A model file is loaded, given a recogniser and heard.
func ExampleNewRecognizer() {
	path, samples, done := exampleRecording()
	defer done()

	model, err := rfstream.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	recognizer, err := rfstream.NewRecognizer(model)
	if err != nil {
		log.Fatal(err)
	}
	result, err := recognizer.Recognize(samples, 8000)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(result.Text)
	// Output: up
}

// exampleRecording saves the toy up/down word model in a temporary folder
// and returns its path, 8 kHz samples of its word "up" (a rising glide),
// and a function that removes the folder.
func exampleRecording() (path string, samples []float32, done func()) {
	c, err := toymodels.Words()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rfstream-example-")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "updown.rfm")
	if err := rfstream.SaveModel(path, c.Model); err != nil {
		log.Fatal(err)
	}
	return path, toymodels.Glide(400, 1500, 0.35, 21), func() { os.RemoveAll(dir) }
}
