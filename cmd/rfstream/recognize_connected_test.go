package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/train"
)

// tone is a synthetic word: two harmonics of a pitch that names it.
func tone(word string, dur float64) []float32 {
	f0 := map[string]float64{"lo": 300, "hi": 1100}[word]
	out := make([]float32, int(dur*8000))
	for i := range out {
		t := float64(i) / 8000
		env := math.Min(1, math.Min(t, dur-t)/0.01)
		out[i] = float32(0.2 * env * (math.Sin(2*math.Pi*f0*t) + 0.5*math.Sin(4*math.Pi*f0*t)) / 1.5)
	}
	return out
}

// TestRecognizeConnectedModel: `recognize` dispatches a connected-digit
// model to the HMM decoder and prints the word string with each word's
// times and confidence.
func TestRecognizeConnectedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pad := func() []float32 { return datasets.Silence(int(8000*(0.1+0.3*rng.Float64())), 1e-3, rng) }
	var utts []train.Utterance
	for i := 0; i < 60; i++ {
		w := []string{"lo", "hi"}[i%2]
		s := append(append(pad(), tone(w, 0.2+0.2*rng.Float64())...), pad()...)
		utts = append(utts, train.Utterance{Samples: s, Words: []string{w}})
	}
	in := engine.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = 3, 1, "rls"
	mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 128, Q: 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := train.Connected(utts, train.ConnectedOptions{Input: in, Decoder: engine.DefaultConnectedDecoder(),
		Map: mp.Recipe(), Words: []string{"hi", "lo"}, Passes: 2, HeldOut: 0.2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "connected.rfm")
	if err := engine.SaveModel(model, m); err != nil {
		t.Fatal(err)
	}
	var s []float32
	var starts []float64
	for _, w := range []string{"lo", "hi", "lo"} {
		s = append(s, datasets.Silence(2000, 1e-3, rng)...)
		starts = append(starts, float64(len(s))/8000)
		s = append(s, tone(w, 0.3)...)
	}
	s = append(s, datasets.Silence(2400, 1e-3, rng)...)
	wav := filepath.Join(dir, "string.wav")
	writeWAV(t, wav, s)
	r := recognizeJSON(t, wav, "--model", model)
	if r.Text != "lo hi lo" || r.Task != engine.TaskConnected || len(r.Words) != 3 {
		t.Fatalf("recognised %+v, want \"lo hi lo\" in three words", r)
	}
	for i, w := range r.Words {
		if math.Abs(w.Start-starts[i]) > 0.03 || !(w.Conf > 0 && w.Conf <= 1) || w.Conf < r.Conf {
			t.Errorf("word %d: %+v (put at %.3f s; string confidence %.3f)", i, w, starts[i], r.Conf)
		}
	}
}
