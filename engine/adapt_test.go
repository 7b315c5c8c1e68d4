package engine_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/maxout"
)

// glideVectors are word vectors of n rising (class 0) and n falling
// (class 1) glides, interleaved; shift moves every glide's frequencies.
func glideVectors(t testing.TB, wc frontend.WordConfig, n int, seed uint32, shift float64) (blas32.General, []int) {
	t.Helper()
	x := linalg.NewGeneral32(2*n, wc.Dim())
	y := make([]int, 2*n)
	for i := 0; i < n; i++ {
		s := seed + uint32(10*i)
		d := 0.3 + 0.01*float64(i%10)
		for c, sig := range [][]float32{toymodels.Glide(400*shift, 1500*shift, d, s), toymodels.Glide(1500*shift, 400*shift, d, s+1)} {
			sig = append(append(toymodels.Noise(800, s+2), sig...), toymodels.Noise(800, s+3)...)
			v, err := frontend.WordVector(wc, sig)
			if err != nil {
				t.Fatal(err)
			}
			copy(linalg.Row32(x, 2*i+c), v)
			y[2*i+c] = c
		}
	}
	return x, y
}

// adaptableModel trains a small up/down word model on voice-normalised
// glides and makes it adaptable with the given rounds.
func adaptableModel(t testing.TB, rounds []float64) (*engine.Model, blas32.General) {
	t.Helper()
	return adaptableModelOfSize(t, rounds, 60)
}

// adaptableModelOfSize is adaptableModel with units maxout units (40
// training rows: with fewer units the fits are primal).
func adaptableModelOfSize(t testing.TB, rounds []float64, units int) (*engine.Model, blas32.General) {
	t.Helper()
	wc := frontend.DefaultWordConfig()
	wc.Frames = 16
	x, y := glideVectors(t, wc, 20, 1, 1)
	rows := make([][]float32, x.Rows)
	for i := range rows {
		rows[i] = linalg.Row32(x, i)
	}
	voice := frontend.EstimateVoice(rows, wc.Audio.Mels, false)
	engine.NormaliseVoice(x, wc.Audio.Mels)
	mp, err := maxout.New(wc.Dim(), maxout.Params{M: units, Q: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	rls, _, err := classifier.FitRLS(mp, x, y, 2, classifier.FitOptions{Lambda: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	m := engine.NewWordModel(wc, mp, rls, []string{"up", "down"})
	if err := m.SetAdaptation(engine.Adaptation{VoiceNorm: true, VoiceMean: voice.Mean, Rounds: rounds, Seed: 1, Lambda: 1e-2}, x, y); err != nil {
		t.Fatal(err)
	}
	return m, x
}

// An adaptable model keeps its adaptation and training rows through a
// save and load, and adapts the same way afterwards.
func TestAdaptableModelRoundTrip(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	path := filepath.Join(t.TempDir(), "a.rfm")
	if err := engine.SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := engine.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	wc := frontend.DefaultWordConfig()
	wc.Frames = 16
	voice, _ := glideVectors(t, wc, 6, 900, 1.3)
	var got [2]*engine.VoiceAdaptation
	for i, model := range []*engine.Model{m, back} {
		c, err := engine.NewWordClassifier(model)
		if err != nil {
			t.Fatal(err)
		}
		if !c.CanAdapt() {
			t.Fatal("the model cannot adapt")
		}
		if got[i], err = c.AdaptToVoice(voice); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got[0].Scores.Data, got[1].Scores.Data) || len(got[1].Rounds) != 2 {
		t.Fatalf("adapted differently after loading (%d rounds)", len(got[1].Rounds))
	}
	// 12 recordings, 6 decided each way when the glides are recognised:
	// half of each class, rounded up, then all of them.
	if got[1].Rounds[0].Picked != 6 || got[1].Rounds[1].Picked != 12 {
		t.Errorf("rounds picked %+v, want 6 then 12", got[1].Rounds)
	}
}

// With more training rows than features, the rounds add the voice's rows
// to the training rows' accumulated statistics instead of refitting from
// all rows; they pick, decide and score as full refits do, up to rounding.
func TestCachedRefitsAdaptAsFullRefits(t *testing.T) {
	m, _ := adaptableModelOfSize(t, []float64{0.2, 0.5, 1}, 24)
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 10, 700, 1.25)
	got, err := c.AdaptToVoice(voice)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.AdaptToVoiceRefittingFully(voice)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Rounds, want.Rounds) {
		t.Fatalf("rounds %+v, full refits %+v", got.Rounds, want.Rounds)
	}
	if len(got.Rounds) != 3 || got.Rounds[2].Picked != voice.Rows {
		t.Fatalf("rounds %+v: want three, the last with all %d recordings", got.Rounds, voice.Rows)
	}
	for i, v := range want.Scores.Data {
		if d := math.Abs(float64(got.Scores.Data[i] - v)); d > 1e-4*(1+math.Abs(float64(v))) {
			t.Fatalf("score %d: %v cached, %v full", i, got.Scores.Data[i], v)
		}
	}
	// Accumulating the training statistics beforehand, while a session
	// might be using them, changes nothing.
	c2, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	go c2.PrepareAdaptation()
	if err := c2.PrepareAdaptation(); err != nil {
		t.Fatal(err)
	}
	again, err := c2.AdaptToVoice(voice)
	if err != nil || !slices.Equal(again.Scores.Data, got.Scores.Data) {
		t.Fatalf("after PrepareAdaptation: %v, scores equal %v", err, err == nil && slices.Equal(again.Scores.Data, got.Scores.Data))
	}
}

// The voice's mean spectrum is removed before scoring: the same offset per
// log-mel band on every word vector of a voice (a microphone's colour, as
// the vectors carry it) leaves the adapted scores as they were, up to
// rounding.
func TestAdaptToVoiceIgnoresAVoicesColour(t *testing.T) {
	m, _ := adaptableModel(t, nil)
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	wc := c.Config
	voice, _ := glideVectors(t, wc, 5, 500, 1)
	coloured := linalg.NewGeneral32(voice.Rows, voice.Cols)
	copy(coloured.Data, voice.Data)
	for i := 0; i < coloured.Rows; i++ {
		row := linalg.Row32(coloured, i)
		for t0 := 0; t0 < len(row); t0 += wc.Audio.Mels {
			for k := 0; k < wc.Audio.Mels; k++ {
				row[t0+k] += 0.02 * float32(k%7)
			}
		}
	}
	a, err := c.AdaptToVoice(voice)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.AdaptToVoice(coloured)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range a.Scores.Data {
		if math.Abs(float64(v-b.Scores.Data[i])) > 1e-4 {
			t.Fatalf("score %d: %v plain, %v coloured", i, v, b.Scores.Data[i])
		}
	}
	if c.CanAdapt() || len(b.Rounds) != 0 {
		t.Error("a model without rounds self-trained")
	}
}

// One recording of an unknown voice is normalised with the training
// voices' mean spectrum, not its own (which is as much its word's).
func TestSingleRecordingsGetTheTypicalVoice(t *testing.T) {
	m, _ := adaptableModel(t, nil)
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	a := &frontend.Audio{Rate: 8000, Samples: append(append(toymodels.Noise(800, 5), toymodels.Glide(400, 1500, 0.35, 5)...), toymodels.Noise(800, 6)...)}
	raw, err := c.RawVector(a)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Vector(a)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(raw)
	frontend.VoiceStats{Mean: m.Adapt.VoiceMean}.Normalise(want)
	if !slices.Equal(got, want) || slices.Equal(got, raw) {
		t.Fatal("Vector did not remove the training voices' mean spectrum")
	}
	m.Adapt.VoiceMean = m.Adapt.VoiceMean[:3]
	if _, err := engine.NewWordClassifier(m); !errors.Is(err, engine.ErrCorrupt) {
		t.Errorf("3-band voice mean: %v, want a corrupted-model error", err)
	}
}

// Damaged or impossible adaptations are refused when the model is
// prepared, not when a voice arrives.
func TestBadAdaptationsAreRefused(t *testing.T) {
	m, x := adaptableModel(t, []float64{1})
	y := m.Blobs["adapt.labels"]
	y.Data[3] = 7 // not one of the two classes
	if _, err := engine.NewWordClassifier(m); !errors.Is(err, engine.ErrCorrupt) {
		t.Errorf("label 7: %v, want a corrupted-model error", err)
	}
	delete(m.Blobs, "adapt.rows")
	if _, err := engine.NewWordClassifier(m); !errors.Is(err, engine.ErrCorrupt) {
		t.Errorf("no rows: %v, want a corrupted-model error", err)
	}
	for _, a := range []engine.Adaptation{
		{VoiceNorm: true},
		{VoiceNorm: true, VoiceMean: []float32{float32(math.NaN())}},
		{Rounds: []float64{0}, Lambda: 1},
		{Rounds: []float64{1.5}, Lambda: 1},
		{Rounds: []float64{1}},
		{Rounds: make([]float64, engine.MaxAdaptRounds+1), Lambda: 1},
	} {
		if err := m.SetAdaptation(a, x, make([]int, x.Rows)); err == nil {
			t.Errorf("%+v accepted", a)
		}
	}
	if err := m.SetAdaptation(engine.Adaptation{Rounds: []float64{1}, Lambda: 1}, x, nil); err == nil {
		t.Error("rounds without training rows accepted")
	}
}

// A model without adaptation stays format version 1, which older builds
// read; an adaptable one is version 2, and a version-1 file claiming an
// adaptation is refused as damaged.
func TestAdaptableModelsAreFormatVersion2(t *testing.T) {
	m, _ := adaptableModel(t, []float64{1})
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	adaptable := b.Bytes()
	if v := binary.LittleEndian.Uint32(adaptable[8:]); v != 2 {
		t.Fatalf("adaptable model written as version %d", v)
	}
	plain := *m
	plain.Adapt, plain.Blobs = nil, nil
	b.Reset()
	if err := plain.Write(&b); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(b.Bytes()[8:]); v != 1 {
		t.Fatalf("plain model written as version %d", v)
	}
	if _, err := engine.DecodeModel(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	forged := slices.Clone(adaptable[:len(adaptable)-sha256.Size])
	binary.LittleEndian.PutUint32(forged[8:], 1)
	sum := sha256.Sum256(forged)
	if _, err := engine.DecodeModel(append(forged, sum[:]...)); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("version 1 with an adaptation: %v", err)
	}
}
