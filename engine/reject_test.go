package engine_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

// fillerToneModel is the softmax tone model with its "hi" word made the
// filler: a hi tone is then speech outside the vocabulary {lo}.
func fillerToneModel(t *testing.T, bias float64) *engine.Connected {
	t.Helper()
	m := softmaxToneModel(t)
	if m.Labels[0] != "hi" {
		t.Fatalf("tone model labels %v", m.Labels)
	}
	m.Labels = []string{engine.FillerLabel, "lo"}
	var dc engine.ConnectedDecoder
	if err := json.Unmarshal(m.Decoder, &dc); err != nil {
		t.Fatal(err)
	}
	dc.FillerBias = bias
	b, err := json.Marshal(dc)
	if err != nil {
		t.Fatal(err)
	}
	m.Decoder = b
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFillerRejects: where the decoder's path goes through the filler, the
// result has a rejected word (engine.RejectedWord, with its times) that Text
// leaves out, and the other words are as the model without a filler
// decodes them; recognising the recording whole and streaming it agree.
func TestFillerRejects(t *testing.T) {
	s := toneString([]string{"hi", "lo", "hi", "lo"}, 3)
	plain, err := engine.NewConnected(softmaxToneModel(t))
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.Recognize(&frontend.Audio{Rate: 8000, Samples: s})
	if err != nil || want.Text != "hi lo hi lo" {
		t.Fatalf("the tone model hears %q, %v", want.Text, err)
	}
	c := fillerToneModel(t, 0)
	got, err := c.Recognize(&frontend.Audio{Rate: 8000, Samples: s})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "lo lo" || len(got.Words) != 4 {
		t.Fatalf("with hi the filler: %q, words %+v", got.Text, got.Words)
	}
	for i, w := range got.Words {
		if w.Rejected != (i%2 == 0) || w.Rejected && w.Word != engine.RejectedWord || !w.Rejected && w.Word != "lo" {
			t.Errorf("word %d %+v", i, w)
		}
		if w.Start != want.Words[i].Start || w.End != want.Words[i].End {
			t.Errorf("word %d at %.2f-%.2f, without a filler %.2f-%.2f", i, w.Start, w.End, want.Words[i].Start, want.Words[i].End)
		}
	}
	st, err := engine.NewConnectedStream(c, engine.DefaultConnectedStreamConfig(), 8000)
	if err != nil {
		t.Fatal(err)
	}
	rs := append(st.Push(s), st.Flush()...)
	last := rs[len(rs)-1]
	if last.Text != got.Text || last.NoSpeech || len(last.Words) != len(got.Words) {
		t.Fatalf("stream: %+v, whole recording %+v", last, got)
	}
	for i := range last.Words {
		if last.Words[i].Rejected != got.Words[i].Rejected || last.Words[i].Word != got.Words[i].Word {
			t.Errorf("stream word %d %+v, whole %+v", i, last.Words[i], got.Words[i])
		}
	}
}

// TestFillerBias: the bias moves the decision the right way, to the limit:
// a very large one leaves no word accepted (the filler takes even the
// pauses), a very negative one rejects none; a model without a filler
// ignores it.
func TestFillerBias(t *testing.T) {
	s := toneString([]string{"hi", "lo", "lo"}, 4)
	a := &frontend.Audio{Rate: 8000, Samples: s}
	for _, c := range []struct {
		bias               float64
		text               string
		accepted, rejected int
	}{{1e4, "", 0, 1}, {-1e4, "lo lo lo", 3, 0}, {0, "lo lo", 2, 1}} {
		r, err := fillerToneModel(t, c.bias).Recognize(a)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, w := range r.Words {
			if w.Rejected {
				n++
			}
		}
		if r.Text != c.text || n != c.rejected || len(r.Words)-n != c.accepted {
			t.Errorf("bias %g: %q with %d rejected of %d words, want %q, %d rejected (%+v)", c.bias, r.Text, n, len(r.Words), c.text, c.rejected, r.Words)
		}
	}
	m := softmaxToneModel(t)
	plain, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.Recognize(a)
	if err != nil {
		t.Fatal(err)
	}
	plain.Decoder.FillerBias = 1e4
	if got, err := plain.Recognize(a); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a model without a filler changed with the bias: %+v vs %+v (%v)", got, want, err)
	}
}

func softmaxToneModel(t *testing.T) *engine.Model {
	t.Helper()
	m, err := engine.LoadModel("../testdata/tones-softmax.rfm")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
