package rfstream

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// toneWord is a synthetic "word": a tone with two harmonics whose pitch
// names it, with a short attack and release.
func toneWord(word string, dur, amp float64, rate int) []float32 {
	f0 := map[string]float64{"lo": 300, "hi": 1100}[word]
	n := int(dur * float64(rate))
	out := make([]float32, n)
	for i := range out {
		t := float64(i) / float64(rate)
		env := math.Min(1, math.Min(t, dur-t)/0.01)
		v := math.Sin(2*math.Pi*f0*t) + 0.5*math.Sin(2*math.Pi*2*f0*t) + 0.25*math.Sin(2*math.Pi*3*f0*t)
		out[i] = float32(amp * env * v / 1.75)
	}
	return out
}

const toneFloor = 1e-3

func trainToneModel(t *testing.T, kind string) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var utts []TrainUtterance
	for i := 0; i < 60; i++ {
		w := []string{"lo", "hi"}[i%2]
		s := toneWord(w, 0.2+0.2*rng.Float64(), 0.05+0.25*rng.Float64(), 8000)
		s = append(append(datasets.Silence(int(8000*(0.1+0.3*rng.Float64())), toneFloor, rng), s...),
			datasets.Silence(int(8000*(0.1+0.3*rng.Float64())), toneFloor, rng)...)
		utts = append(utts, TrainUtterance{Samples: s, Words: []string{w}})
	}
	in := DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = 3, 1, kind
	mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 128, Q: 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, rep, err := TrainConnected(utts, ConnectedTrainOptions{Input: in, Decoder: DefaultConnectedDecoder(), Map: mp.Recipe(),
		Words: []string{"hi", "lo"}, Passes: 2, HeldOut: 0.2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Passes) != 3 || rep.Passes[0].Labels != "uniform" || rep.Passes[2].Labels != "aligned" {
		t.Fatalf("passes %+v", rep.Passes)
	}
	for _, p := range rep.Passes {
		if p.HeldOutFrameAcc < 0.8 {
			t.Errorf("%s pass %d: held-out frame accuracy %.3f", kind, p.Pass, p.HeldOutFrameAcc)
		}
	}
	return m
}

// TestConnectedRecognisesToneStrings trains on isolated synthetic words
// and recognises a string of them: the words come out in order, each
// boundary within 30 ms of where the word was put, with both classifiers,
// and the model survives a save and load unchanged in its results.
func TestConnectedRecognisesToneStrings(t *testing.T) {
	for _, kind := range []string{"softmax", "rls"} {
		t.Run(kind, func(t *testing.T) {
			m := trainToneModel(t, kind)
			rng := rand.New(rand.NewPCG(9, 9))
			words := []string{"lo", "hi", "hi", "lo"}
			var s []float32
			var want [][2]float64
			for i, w := range words {
				s = append(s, datasets.Silence(int(8000*(0.15+0.1*float64(i))), toneFloor, rng)...)
				start := float64(len(s)) / 8000
				s = append(s, toneWord(w, 0.3, 0.2, 8000)...)
				want = append(want, [2]float64{start, float64(len(s)) / 8000})
			}
			s = append(s, datasets.Silence(2400, toneFloor, rng)...)
			rec, err := NewConnected(m)
			if err != nil {
				t.Fatal(err)
			}
			res, err := rec.Recognize(&frontend.Audio{Rate: 8000, Samples: s})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "lo hi hi lo" || !res.Final {
				t.Fatalf("recognised %q, want \"lo hi hi lo\"", res.Text)
			}
			for i, w := range res.Words {
				if math.Abs(w.Start-want[i][0]) > 0.03 || math.Abs(w.End-want[i][1]) > 0.03 {
					t.Errorf("word %d %q at %.3f–%.3f s, put at %.3f–%.3f s", i, w.Word, w.Start, w.End, want[i][0], want[i][1])
				}
				if !(w.Conf > 0.5 && w.Conf <= 1) {
					t.Errorf("word %d confidence %v", i, w.Conf)
				}
			}
			var b bytes.Buffer
			if err := m.Write(&b); err != nil {
				t.Fatal(err)
			}
			m2, err := DecodeModel(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			res2, err := RecognizeConnected(m2, &frontend.Audio{Rate: 16000, Samples: upsample2(s)})
			if err != nil {
				t.Fatal(err)
			}
			if res2.Text != res.Text {
				t.Errorf("after save, load and a 16 kHz input: %q, before: %q", res2.Text, res.Text)
			}
		})
	}
}

func upsample2(s []float32) []float32 {
	a, err := frontend.Resample(&frontend.Audio{Rate: 8000, Samples: s}, 16000)
	if err != nil {
		panic(err)
	}
	return a.Samples
}

// TestSpliceMatchesExtractor: training splices stored frames itself; it
// must give exactly the frontend's spliced frames.
func TestSpliceMatchesExtractor(t *testing.T) {
	cfg := DefaultConnectedInput().Audio
	rng := rand.New(rand.NewPCG(4, 4))
	s := append(toneWord("lo", 0.3, 0.2, 8000), datasets.Silence(1000, 0.01, rng)...)
	want, err := frontend.ExtractFrames(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	base := cfg
	base.Splice = 0
	frames, _ := frontend.ExtractFrames(base, s)
	got := linalg.NewGeneral32(frames.Rows, cfg.Dim())
	spliceInto(got, frames, 0, frames.Rows, cfg.Splice)
	if got.Rows != want.Rows {
		t.Fatalf("%d spliced rows, frontend gave %d", got.Rows, want.Rows)
	}
	for i := range want.Data[:want.Rows*want.Cols] {
		if got.Data[i] != want.Data[i] {
			t.Fatalf("value %d: %v, frontend %v", i, got.Data[i], want.Data[i])
		}
	}
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

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestConnectedStream: two strings separated by a long pause come out as
// two final results whose words and times match decoding each string
// whole, the last result has EOS, and pushing the samples in chunks of 1,
// 160 or all at once gives identical results.
func TestConnectedStream(t *testing.T) {
	m := trainToneModel(t, "softmax")
	c, err := NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var s []float32
	for _, w := range []string{"hi", "lo", "", "lo", "lo"} {
		if w == "" {
			s = append(s, datasets.Silence(12000, toneFloor, rng)...) // 1.5 s: ends the first utterance
			continue
		}
		s = append(s, datasets.Silence(2000, toneFloor, rng)...)
		s = append(s, toneWord(w, 0.3, 0.2, 8000)...)
	}
	s = append(s, datasets.Silence(4000, toneFloor, rng)...)
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

// TestBootstrapSpans: a string with known word times is labelled silence
// outside the words' speech, each word's states in order inside it.
func TestBootstrapSpans(t *testing.T) {
	in := ConnectedInput{StatesPerWord: 2, SilenceStates: 1}
	words, sil, err := connectedUnits([]string{"a", "b"}, in, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// 30 frames: word b loud in frames 5-9, word a loud in 18-23.
	energy := make([]float64, 30)
	for i := range energy {
		energy[i] = -10
		if (i >= 5 && i < 10) || (i >= 18 && i < 24) {
			energy[i] = 0
		}
	}
	labels, err := bootstrapSpans(30, energy, [][2]float64{{0.03, 0.12}, {0.16, 0.26}}, []decode.Unit{words[1], words[0]}, sil, 0.01, 35)
	if err != nil {
		t.Fatal(err)
	}
	s := 4 // the silence class
	want := []int{s, s, s, s, s, 2, 2, 2, 3, 3, s, s, s, s, s, s, s, s, 0, 0, 0, 1, 1, 1, s, s, s, s, s, s}
	if !reflect.DeepEqual(labels, want) {
		t.Fatalf("labels\n%v\nwant\n%v", labels, want)
	}
	if _, err := bootstrapSpans(30, energy, [][2]float64{{0.03, 0.12}}, []decode.Unit{words[1], words[0]}, sil, 0.01, 35); err == nil {
		t.Error("one span for two words accepted")
	}
}

// TestTuneConnected: tuning on tone strings tries every grid point, keeps a
// setting with the lowest WER and writes it into the model.
func TestTuneConnected(t *testing.T) {
	m := trainToneModel(t, "rls")
	rng := rand.New(rand.NewPCG(7, 7))
	var dev []DevUtterance
	for k := 0; k < 4; k++ {
		var s []float32
		var words []string
		for i := 0; i < 2+k%2; i++ {
			w := []string{"lo", "hi"}[(i+k)%2]
			s = append(s, datasets.Silence(2000, toneFloor, rng)...)
			s = append(s, toneWord(w, 0.3, 0.2, 8000)...)
			words = append(words, w)
		}
		s = append(s, datasets.Silence(2000, toneFloor, rng)...)
		dev = append(dev, DevUtterance{Audio: &frontend.Audio{Rate: 8000, Samples: s}, Words: words})
	}
	grid := TuneGrid{WordPenalties: []float64{0, -5}, AcousticScales: []float64{1, 0.5}, PriorScales: []float64{1, 0.3}}
	trials, err := TuneConnected(m, dev, grid)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 8 {
		t.Fatalf("%d trials, want 8", len(trials))
	}
	best := trials[0]
	for _, tr := range trials {
		if tr.WER < best.WER {
			best = tr
		}
	}
	c, err := NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	if c.Decoder.WordPenalty != best.WordPenalty || c.Decoder.AcousticScale != best.AcousticScale || c.Decoder.PriorScale != best.PriorScale {
		t.Errorf("model decoder %+v, best trial %+v", c.Decoder, best)
	}
	if best.WER != 0 {
		t.Errorf("best dev WER %.3f on clean tone strings", best.WER)
	}
	if _, err := TuneConnected(m, nil, grid); err == nil {
		t.Error("tuning without dev strings accepted")
	}
}

// TestBaseFramesSpliceToFrames: the frontend half a pipeline sends between
// processes, spliced on the other side, is exactly the model's input.
func TestBaseFramesSpliceToFrames(t *testing.T) {
	c, err := NewConnected(trainToneModel(t, "softmax"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	a := &frontend.Audio{Rate: 8000, Samples: append(datasets.Silence(1600, toneFloor, rng), toneWord("hi", 0.3, 0.2, 8000)...)}
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
