package engine_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// A session's estimate is (Prior·VoiceMean + Σ committed means + this
// recording's mean) / (Prior + n + 1); an uncommitted (partial) recording
// leaves the session as it was.
func TestVoiceSessionEstimate(t *testing.T) {
	m, _ := adaptableModel(t, nil)
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	wc := c.Config
	voice, _ := glideVectors(t, wc, 2, 300, 1.2)
	mels := wc.Audio.Mels
	row := func(i int) []float32 { return slices.Clone(linalg.Row32(voice, i)) }
	meanOf := func(v []float32) []float32 { return frontend.EstimateVoice([][]float32{v}, mels, false).Mean }
	s := c.NewVoiceSession()
	s.Normalise(row(0), true)
	s.Normalise(row(1), false) // partial: not counted
	s.Normalise(row(1), true)
	if s.Recordings() != 2 {
		t.Fatalf("%d recordings committed, want 2", s.Recordings())
	}
	got := row(2)
	s.Normalise(got, false)
	m0, m1, m2 := meanOf(row(0)), meanOf(row(1)), meanOf(row(2))
	est := make([]float32, mels)
	for k := range est {
		p := float64(engine.DefaultVoicePrior)
		est[k] = float32((p*float64(m.Adapt.VoiceMean[k]) + float64(m0[k]) + float64(m1[k]) + float64(m2[k])) / (p + 3))
	}
	want := row(2)
	frontend.VoiceStats{Mean: est}.Normalise(want)
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("value %d: %v, want %v", i, got[i], want[i])
		}
	}
	if s.Recordings() != 2 {
		t.Fatal("an uncommitted recording joined the session")
	}
}

// A self-training session self-trains at 10, 20, 40, … committed
// recordings, as AdaptToVoice does over those recordings, and each
// self-training scores from the (n + n/2)-th recording on: with no prior
// the session's estimate of the voice is the recordings' own, so from the
// 15th recording the session scores as AdaptToVoice's last read-out over
// the first ten does.
func TestSelfTrainingSessionAdaptsAtCheckpoints(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 16, 300, 1.3)
	row := func(i int) []float32 { return slices.Clone(linalg.Row32(voice, i)) }
	s := c.NewVoiceSession()
	if !s.SelfTrain {
		t.Fatal("a session of an adaptable model does not self-train")
	}
	s.Prior = 0
	// commit commits recordings from … to-1 (0-based), checking which
	// self-training each is scored with.
	commit := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			want := 0
			switch {
			case i+1 >= 30:
				want = 20
			case i+1 >= 15:
				want = 10
			}
			if i == 14 {
				// A partial segment does not count, but is scored as its
				// final segment will be.
				if err := s.Normalise(row(i), false); err != nil || s.AdaptedOn() != want || s.Recordings() != i {
					t.Fatalf("a partial segment: error %v, adapted on %d, %d recordings", err, s.AdaptedOn(), s.Recordings())
				}
			}
			if err := s.Normalise(row(i), true); err != nil {
				t.Fatal(err)
			}
			if s.AdaptedOn() != want {
				t.Fatalf("recording %d: scored with the self-training on %d, want %d", i+1, s.AdaptedOn(), want)
			}
		}
	}
	commit(0, 14)
	ref, err := c.AdaptToVoice(linalg.Rows32(voice, 0, 10))
	if err != nil {
		t.Fatal(err)
	}
	if ref.ReadOut == nil {
		t.Fatal("AdaptToVoice gave no read-out")
	}
	v := row(14)
	if err := s.Normalise(v, false); err != nil {
		t.Fatal(err)
	}
	got := s.Score(v)
	z := linalg.NewGeneral32(1, c.Map.OutDim())
	c.Map.Apply(z, blas32.General{Rows: 1, Cols: len(v), Stride: len(v), Data: v})
	want := linalg.NewGeneral32(1, ref.ReadOut.Classes)
	ref.ReadOut.Scores(want, z)
	for k := range got {
		if math.Abs(float64(got[k]-want.Data[k])) > 1e-3 {
			t.Fatalf("class %d: session %v, AdaptToVoice's read-out %v", k, got[k], want.Data[k])
		}
	}
	if slices.Equal(got, c.Score(v)) {
		t.Fatal("the self-trained session scores as the model does")
	}
	commit(14, 32)
	// Without SelfTrain nothing is kept and the model scores.
	p := c.NewVoiceSession()
	p.SelfTrain = false
	for i := 0; i < 20; i++ {
		if err := p.Normalise(row(i), true); err != nil {
			t.Fatal(err)
		}
	}
	v = row(20)
	p.Normalise(v, false)
	if p.AdaptedOn() != 0 || !slices.Equal(p.Score(v), c.Score(v)) {
		t.Fatal("a session without SelfTrain adapted")
	}
}

// A self-training that cannot run (a model without rounds, SelfTrain set
// by hand) is an error at the checkpoint, and the recording is normalised
// all the same.
func TestFailedSessionSelfTrainingLosesNoRecording(t *testing.T) {
	m, _ := adaptableModel(t, nil)
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 6, 300, 1.3)
	s, plain := c.NewVoiceSession(), c.NewVoiceSession()
	if s.SelfTrain {
		t.Fatal("a session of a model that cannot adapt self-trains")
	}
	s.SelfTrain = true
	for i := 0; i < 12; i++ {
		got, want := slices.Clone(linalg.Row32(voice, i)), slices.Clone(linalg.Row32(voice, i))
		err := s.Normalise(got, true)
		if (err != nil) != (i == 9) {
			t.Fatalf("recording %d: error %v", i+1, err)
		}
		plain.Normalise(want, true)
		if !slices.Equal(got, want) || !slices.Equal(s.Score(got), plain.Score(want)) {
			t.Fatalf("recording %d normalised or scored differently", i+1)
		}
	}
}
