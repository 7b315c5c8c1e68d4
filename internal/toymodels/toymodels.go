package toymodels

import (
	"encoding/json"
	"math"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/train"
)

// Glide is a synthetic "word": a tone sweeping from f0 to f1 Hz over dur
// seconds at 8 kHz under a sine envelope, with faint noise from seed so no
// two utterances are equal.
func Glide(f0, f1, dur float64, seed uint32) []float32 {
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

// Noise is n samples of faint white noise.
func Noise(n int, seed uint32) []float32 {
	x := make([]float32, n)
	lcg := seed
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		x[i] = 0.002 * (float32(lcg>>8)/float32(1<<24) - 0.5)
	}
	return x
}

// UpDown is a stream of silence, "up" (a rising glide), silence, "down"
// (a falling one), silence: 0.5 + 0.4 + 0.6 + 0.35 + 0.5 s at 8 kHz.
func UpDown() []float32 {
	var x []float32
	x = append(x, Noise(4000, 1)...)
	x = append(x, Glide(450, 1400, 0.4, 77)...)
	x = append(x, Noise(4800, 2)...)
	x = append(x, Glide(1400, 450, 0.35, 78)...)
	return append(x, Noise(4000, 3)...)
}

// Words trains a word model that tells "up" from "down".
func Words() (*engine.WordClassifier, error) {
	wc := frontend.DefaultWordConfig()
	x := linalg.NewGeneral32(120, wc.Dim())
	labels := make([]int, 120)
	for i := 0; i < 60; i++ {
		d := 0.3 + 0.01*float64(i%20)
		up := append(append(Noise(800, uint32(i)), Glide(400, 1500, d, uint32(i))...), Noise(800, uint32(i+1))...)
		down := append(append(Noise(800, uint32(i+7)), Glide(1500, 400, d, uint32(i+100))...), Noise(800, uint32(i+3))...)
		for c, sig := range [][]float32{up, down} {
			v, err := frontend.WordVector(wc, sig)
			if err != nil {
				return nil, err
			}
			copy(linalg.Row32(x, 2*i+c), v)
			labels[2*i+c] = c
		}
	}
	mp, err := maxout.New(wc.Dim(), maxout.Params{M: 200, Q: 2}, 3)
	if err != nil {
		return nil, err
	}
	rls, _, err := classifier.FitRLS(mp, x, labels, 2, classifier.FitOptions{Lambda: 1e-2})
	if err != nil {
		return nil, err
	}
	return engine.NewWordClassifier(engine.NewWordModel(wc, mp, rls, []string{"up", "down"}))
}

// VoiceWords is Words trained on voice-normalised vectors (all training
// glides one voice), so a stream of it is followed by a VoiceSession.
func VoiceWords() (*engine.WordClassifier, error) { return voiceWords(nil) }

// AdaptableWords is VoiceWords with two self-training rounds, so a
// stream's VoiceSession self-trains.
func AdaptableWords() (*engine.WordClassifier, error) { return voiceWords([]float64{0.5, 1}) }

func voiceWords(rounds []float64) (*engine.WordClassifier, error) {
	w, err := Words()
	if err != nil {
		return nil, err
	}
	wc := w.Config
	x := linalg.NewGeneral32(120, wc.Dim())
	labels := make([]int, 120)
	rows := make([][]float32, 120)
	for i := 0; i < 60; i++ {
		d := 0.3 + 0.01*float64(i%20)
		for c, f := range [][2]float64{{400, 1500}, {1500, 400}} {
			sig := append(append(Noise(800, uint32(i+11)), Glide(f[0], f[1], d, uint32(i+200*c))...), Noise(800, uint32(i+5))...)
			v, err := frontend.WordVector(wc, sig)
			if err != nil {
				return nil, err
			}
			rows[2*i+c] = linalg.Row32(x, 2*i+c)
			copy(rows[2*i+c], v)
			labels[2*i+c] = c
		}
	}
	voice := frontend.EstimateVoice(rows, wc.Audio.Mels, false)
	engine.NormaliseVoice(x, wc.Audio.Mels)
	rls, _, err := classifier.FitRLS(w.Map, x, labels, 2, classifier.FitOptions{Lambda: 1e-2})
	if err != nil {
		return nil, err
	}
	m := engine.NewWordModel(wc, w.Map, rls, w.Model.Labels)
	if err := m.SetAdaptation(engine.Adaptation{VoiceNorm: true, VoiceMean: voice.Mean, Rounds: rounds, Seed: 1, Lambda: 1e-2}, x, labels); err != nil {
		return nil, err
	}
	return engine.NewWordClassifier(m)
}

// Connected trains a connected-word model on isolated "up" and "down"
// glides (3 states a word, 1 of silence, softmax read-out, two passes of
// align-and-retrain), which then decodes strings of them.
func Connected() (*engine.Connected, error) {
	var utts []train.Utterance
	for i := 0; i < 60; i++ {
		d := 0.25 + 0.01*float64(i%15)
		w, sig := "up", Glide(400, 1500, d, uint32(i))
		if i%2 == 1 {
			w, sig = "down", Glide(1500, 400, d, uint32(i+100))
		}
		s := append(append(Noise(800+40*(i%10), uint32(i+7)), sig...), Noise(1200+40*(i%7), uint32(i+3))...)
		utts = append(utts, train.Utterance{Samples: s, Words: []string{w}})
	}
	in := engine.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates = 3, 1
	mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 128, Q: 2}, 5)
	if err != nil {
		return nil, err
	}
	m, _, err := train.Connected(utts, train.ConnectedOptions{Input: in, Decoder: engine.DefaultConnectedDecoder(),
		Map: mp.Recipe(), Words: []string{"up", "down"}, Passes: 2, HeldOut: 0.2, Seed: 3})
	if err != nil {
		return nil, err
	}
	return engine.NewConnected(m)
}

// Bars is an 8×8 image with a bright horizontal (class 0) or vertical
// (class 1) bar at row or column p, pixels in [0, 1].
func Bars(class, p int) []float32 {
	v := make([]float32, 64)
	for i := 0; i < 8; i++ {
		if class == 0 {
			v[p*8+i] = 1
		} else {
			v[i*8+p] = 1
		}
	}
	return v
}

// Images trains an image model that tells horizontal from vertical bars.
func Images() (*engine.ImageTagger, error) {
	x := linalg.NewGeneral32(64, 64)
	labels := make([]int, 64)
	for i := 0; i < 64; i++ {
		labels[i] = i % 2
		copy(linalg.Row32(x, i), Bars(i%2, (i/2)%8))
	}
	if err := frontend.NormalizeRows(x); err != nil {
		return nil, err
	}
	mp, err := maxout.New(64, maxout.Params{M: 100, Q: 2}, 1)
	if err != nil {
		return nil, err
	}
	rls, _, err := classifier.FitRLS(mp, x, labels, 2, classifier.FitOptions{Lambda: 1e-3})
	if err != nil {
		return nil, err
	}
	in, _ := json.Marshal(engine.ImageInput{Height: 8, Width: 8, Scale: "byte/255", Normalize: "unit"})
	return engine.NewImageTagger(&engine.Model{Task: engine.TaskImages, Labels: []string{"horizontal", "vertical"},
		Input: in, Map: mp.Recipe(), RLS: rls})
}
