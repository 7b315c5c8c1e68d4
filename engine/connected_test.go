package engine

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/maxout"
)

// toneModel loads a connected model of two tone "words", lo and hi, with
// the classifier kind given (rls or softmax): trained by the train package
// (its TestToneModelFixtures keeps the files equal to what training gives).
func toneModel(t testing.TB, kind string) *Model {
	t.Helper()
	m, err := LoadModel("../testdata/tones-" + kind + ".rfm")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestConnectedModelErrors: a connected model missing its parts is refused
// with an error, not a panic.
func TestConnectedModelErrors(t *testing.T) {
	in := DefaultConnectedInput()
	mp, _ := maxout.New(in.Audio.Dim(), maxout.Params{M: 8, Q: 2}, 1)
	base := func() *Model {
		return &Model{Task: TaskConnected, Labels: []string{"a"}, Input: mustMarshal(in), Decoder: mustMarshal(DefaultConnectedDecoder()), Map: mp.Recipe()}
	}
	cases := map[string]func(*Model){
		"wrong task":    func(m *Model) { m.Task = TaskWords },
		"no softmax":    func(m *Model) {},
		"unknown field": func(m *Model) { m.Input = []byte(`{"audio":{},"extra":1}`) },
		"no words":      func(m *Model) { m.Labels = nil },
		"bad map":       func(m *Model) { m.Map = features.Recipe{Kind: "nonesuch", In: 3} },
		"bad decoder":   func(m *Model) { m.Decoder = []byte(`{"self_loop":"x"}`) },
		"rls without one": func(m *Model) {
			m.Input = mustMarshal(ConnectedInput{Audio: in.Audio, StatesPerWord: 2, SilenceStates: 1, Classifier: "rls"})
		},
	}
	for name, mutate := range cases {
		m := base()
		mutate(m)
		if _, err := NewConnected(m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestConnectedStream: two strings separated by a long pause come out as
// two final results whose words and times match decoding each string
// whole, the last result has EOS, and pushing the samples in chunks of 1,
// 160 or all at once gives identical results.
func TestConnectedStream(t *testing.T) {
	m := toneModel(t, "softmax")
	c, err := NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var s []float32
	for _, w := range []string{"hi", "lo", "", "lo", "lo"} {
		if w == "" {
			s = append(s, datasets.Silence(12000, fixtures.ToneFloor, rng)...) // 1.5 s: ends the first utterance
			continue
		}
		s = append(s, datasets.Silence(2000, fixtures.ToneFloor, rng)...)
		s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
	}
	s = append(s, datasets.Silence(4000, fixtures.ToneFloor, rng)...)
	whole, err := c.Recognize(&frontend.Audio{Rate: 8000, Samples: s})
	if err != nil {
		t.Fatal(err)
	}
	var first []Result
	for _, chunk := range []int{len(s), 160, 1} {
		st, err := NewConnectedStream(c, DefaultConnectedStreamConfig(), 8000)
		if err != nil {
			t.Fatal(err)
		}
		var rs []Result
		for i := 0; i < len(s); i += chunk {
			rs = append(rs, st.Push(s[i:min(i+chunk, len(s))])...)
		}
		rs = append(rs, st.Flush()...)
		last := rs[len(rs)-1]
		if !last.EOS || last.Text != "hi lo lo lo" {
			t.Fatalf("chunk %d: last result %+v", chunk, last)
		}
		finals := 0
		for _, r := range rs {
			if r.Final && !r.EOS {
				finals++
			}
		}
		if finals != 2 {
			t.Errorf("chunk %d: %d final results, want 2 (one per utterance)", chunk, finals)
		}
		for i, w := range last.Words {
			if w.Word != whole.Words[i].Word || math.Abs(w.Start-whole.Words[i].Start) > 0.03 || math.Abs(w.End-whole.Words[i].End) > 0.03 {
				t.Errorf("chunk %d: word %d %+v, whole-file decoding %+v", chunk, i, w, whole.Words[i])
			}
		}
		if first == nil {
			first = rs
		} else if !reflect.DeepEqual(rs, first) {
			t.Errorf("chunks of %d gave different results than one push", chunk)
		}
	}
}

// TestBaseFramesSpliceToFrames: the frontend half a pipeline sends between
// processes, spliced on the other side, is exactly the model's input.
func TestBaseFramesSpliceToFrames(t *testing.T) {
	c, err := NewConnected(toneModel(t, "softmax"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	a := &frontend.Audio{Rate: 8000, Samples: append(datasets.Silence(1600, fixtures.ToneFloor, rng), fixtures.ToneWord("hi", 0.3, 0.2, 8000)...)}
	want, err := c.Frames(a)
	if err != nil {
		t.Fatal(err)
	}
	base, err := c.BaseFrames(a)
	if err != nil {
		t.Fatal(err)
	}
	if base.Cols != c.BaseDim() || base.Cols*(2*c.Input.Audio.Splice+1) != want.Cols {
		t.Fatalf("base frames %d wide, BaseDim %d, spliced %d", base.Cols, c.BaseDim(), want.Cols)
	}
	got := c.Splice(base)
	if got.Rows != want.Rows || !reflect.DeepEqual(got.Data[:got.Rows*got.Cols], want.Data[:want.Rows*want.Cols]) {
		t.Fatal("Splice(BaseFrames(a)) differs from Frames(a)")
	}
}

// A unit bigram stored in the model survives saving and makes the decoder
// a bigram loop; removing it restores the plain loop.
func TestUnitBigramInModel(t *testing.T) {
	m := toneModel(t, "rls")
	in := ConnectedInput{}
	if err := strictJSON(m.Input, &in); err != nil {
		t.Fatal(err)
	}
	if err := SetUnitBigram(m, [][]string{{"zz"}}, 0.5); err == nil {
		t.Fatal("a transcript with an unknown word was accepted")
	}
	if err := SetUnitBigram(m, [][]string{{"hi", "lo"}, {"lo"}, {"lo", "lo", "hi"}}, 0.5); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/p.rfm"
	if err := SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConnected(back)
	if err != nil {
		t.Fatal(err)
	}
	// Each unit is a chain of S states with self-loops (2S−1 arcs); the
	// bigram loop adds an arc between every pair of units but silence →
	// silence: n² word pairs and 2n to and from silence.
	n := len(m.Labels)
	units := n*(2*in.StatesPerWord-1) + 2*in.SilenceStates - 1
	if c.bigram == nil || c.graph.NumArcs() != units+n*n+2*n {
		t.Fatalf("bigram %v, %d arcs, want %d", c.bigram != nil, c.graph.NumArcs(), units+n*n+2*n)
	}
	if err := SetUnitBigram(back, nil, 0); err != nil {
		t.Fatal(err)
	}
	if c, err = NewConnected(back); err != nil || c.bigram != nil {
		t.Fatalf("bigram removed: %v", err)
	}
	back.Blobs[blobBigram] = back.Blobs[BlobLogPrior]
	if _, err := NewConnected(back); err == nil {
		t.Fatal("a bigram of the wrong shape was accepted")
	}
}
