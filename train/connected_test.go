package train

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/maxout"
)

// The tone models the root package's tests load (testdata/tones-*.rfm)
// are the ones trainToneModel makes: they give the same words, within two
// frames, on strings neither saw. go test -run ToneModelFixtures -update
// rewrites them.
func TestToneModelFixtures(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var s []float32
	for _, w := range []string{"hi", "lo", "lo", "hi"} {
		s = append(s, datasets.Silence(3000, fixtures.ToneFloor, rng)...)
		s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
	}
	s = append(s, datasets.Silence(3000, fixtures.ToneFloor, rng)...)
	for _, kind := range []string{"rls", "softmax"} {
		path := filepath.Join("..", "testdata", "tones-"+kind+".rfm")
		m := trainToneModel(t, kind)
		if *update {
			if err := engine.SaveModel(path, m); err != nil {
				t.Fatal(err)
			}
		}
		stored, err := engine.LoadModel(path)
		if err != nil {
			t.Fatalf("%v (go test -run ToneModelFixtures -update writes it)", err)
		}
		want, err := recognizeConnected(m, &frontend.Audio{Rate: 8000, Samples: s})
		if err != nil {
			t.Fatal(err)
		}
		got, err := recognizeConnected(stored, &frontend.Audio{Rate: 8000, Samples: s})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Words) != 4 || len(got.Words) != len(want.Words) {
			t.Fatalf("%s: the fixture says %v, training gives %v", kind, got.Words, want.Words)
		}
		for i := range got.Words {
			// Backends and processors round differently, and the softmax
			// fit's optimiser carries that into its weights: boundaries may
			// move by a frame or two.
			g, w := got.Words[i], want.Words[i]
			if g.Word != w.Word || math.Abs(g.Start-w.Start) > 0.025 || math.Abs(g.End-w.End) > 0.025 {
				t.Fatalf("%s: the fixture says %v, training gives %v", kind, got.Words, want.Words)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite the tone model fixtures in ../testdata")

func trainToneModel(t *testing.T, kind string) *engine.Model {
	return trainNamedTones(t, kind, map[string]string{"lo": "lo", "hi": "hi"})
}

// trainNamedTones is trainToneModel with the lo and hi tones labelled by
// names (the word each tone is: its label in the model).
func trainNamedTones(t *testing.T, kind string, names map[string]string) *engine.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var utts []Utterance
	for i := 0; i < 60; i++ {
		w := []string{"lo", "hi"}[i%2]
		s := fixtures.ToneWord(w, 0.2+0.2*rng.Float64(), 0.05+0.25*rng.Float64(), 8000)
		s = append(append(datasets.Silence(int(8000*(0.1+0.3*rng.Float64())), fixtures.ToneFloor, rng), s...),
			datasets.Silence(int(8000*(0.1+0.3*rng.Float64())), fixtures.ToneFloor, rng)...)
		utts = append(utts, Utterance{Samples: s, Words: []string{names[w]}})
	}
	in := engine.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = 3, 1, kind
	mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 128, Q: 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, rep, err := Connected(utts, ConnectedOptions{Input: in, Decoder: engine.DefaultConnectedDecoder(), Map: mp.Recipe(),
		Words: []string{names["hi"], names["lo"]}, Passes: 2, HeldOut: 0.2, Seed: 3})
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
				s = append(s, datasets.Silence(int(8000*(0.15+0.1*float64(i))), fixtures.ToneFloor, rng)...)
				start := float64(len(s)) / 8000
				s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
				want = append(want, [2]float64{start, float64(len(s)) / 8000})
			}
			s = append(s, datasets.Silence(2400, fixtures.ToneFloor, rng)...)
			rec, err := engine.NewConnected(m)
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
			m2, err := engine.DecodeModel(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			res2, err := recognizeConnected(m2, &frontend.Audio{Rate: 16000, Samples: upsample2(s)})
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

// TestBootstrapSpans: a string with known word times is labelled silence
// outside the words' speech, each word's states in order inside it.
func TestBootstrapSpans(t *testing.T) {
	in := engine.ConnectedInput{StatesPerWord: 2, SilenceStates: 1}
	words, sil, err := in.Units([]string{"a", "b"}, 0.5)
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
	dev := toneDev()
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
	c, err := engine.NewConnected(m)
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

// toneDev is four dev strings of 2-3 tone words with pauses.
func toneDev() []DevUtterance {
	rng := rand.New(rand.NewPCG(7, 7))
	var dev []DevUtterance
	for k := 0; k < 4; k++ {
		var s []float32
		var words []string
		for i := 0; i < 2+k%2; i++ {
			w := []string{"lo", "hi"}[(i+k)%2]
			s = append(s, datasets.Silence(2000, fixtures.ToneFloor, rng)...)
			s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
			words = append(words, w)
		}
		s = append(s, datasets.Silence(2000, fixtures.ToneFloor, rng)...)
		dev = append(dev, DevUtterance{Audio: &frontend.Audio{Rate: 8000, Samples: s}, Words: words})
	}
	return dev
}

// A recipe that holds the prior scale (TunePriorScale) tunes over the
// default grid's word penalties and acoustic scales at that prior scale
// only: its trials are the full grid's trials at that prior scale, score for
// score, and the model gets its best of them with the held prior scale.
func TestTunePriorScaleHoldsThePriorScale(t *testing.T) {
	m := trainToneModel(t, "rls")
	dev := toneDev()
	full, err := TuneConnected(m, dev, DigitStringOptions{}.TuneGrid())
	if err != nil {
		t.Fatal(err)
	}
	const held = 0.3
	o := DigitStringOptions{TunePriorScale: held}
	trials, err := TuneConnected(m, dev, o.TuneGrid())
	if err != nil {
		t.Fatal(err)
	}
	g := DefaultTuneGrid()
	if len(full) != len(g.WordPenalties)*len(g.AcousticScales)*len(g.PriorScales) || len(trials) != len(g.WordPenalties)*len(g.AcousticScales) {
		t.Fatalf("%d and %d trials for the full and the held grid", len(full), len(trials))
	}
	var atHeld []TuneTrial
	for _, tr := range full {
		if tr.PriorScale == held {
			atHeld = append(atHeld, tr)
		}
	}
	if !reflect.DeepEqual(trials, atHeld) {
		t.Fatalf("held-prior trials %v\nare not the full grid's at prior %g: %v", trials, held, atHeld)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	best := BestTrial(trials)
	if c.Decoder.PriorScale != held || c.Decoder.WordPenalty != best.WordPenalty || c.Decoder.AcousticScale != best.AcousticScale {
		t.Errorf("model decoder %+v, want the best held-prior trial %+v", c.Decoder, best)
	}
}

// recognizeConnected decodes one recording with a connected model, its map
// and decoder built for that one call.
func recognizeConnected(m *engine.Model, a *frontend.Audio) (engine.Result, error) {
	c, err := engine.NewConnected(m)
	if err != nil {
		return engine.Result{}, err
	}
	return c.Recognize(a)
}
