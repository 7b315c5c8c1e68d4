package engine

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// taughtReadOut is a session's read-out refitted to its taught words, and
// what it was refitted from: the read-out it was kept near and the number
// of recordings in the voice estimate the words were normalised with.
type taughtReadOut struct {
	base    *classifier.RLS
	n       int
	readOut *classifier.RLS
}

// Teach teaches the session that raw (a word vector from RawVector,
// unchanged) is the word label: the recording counts in the voice's
// estimate as a heard one does, and from now on Score uses the read-out
// refitted to every word taught (classifier.RefitToward, kept near the
// model's read-out or the session's self-trained one). It does not count
// as a recording heard (Recordings), so the self-training checkpoints stay
// where they were. A label the model does not have is refused by name.
func (s *VoiceSession) Teach(raw []float32, label string) error {
	l, err := teachableLabel(s.c.Model.Labels, label)
	if err != nil {
		return err
	}
	if len(raw) != s.c.Config.Dim() {
		return fmt.Errorf("rfstream: a %d-value word vector for a model of %d", len(raw), s.c.Config.Dim())
	}
	if len(s.taught) >= MaxTaught {
		return fmt.Errorf("rfstream: the voice has been taught %d recordings, the most it takes", MaxTaught)
	}
	t := *s
	t.taught = append(s.taught[:len(s.taught):len(s.taught)], append([]float32(nil), raw...))
	t.taughtLabels = append(s.taughtLabels[:len(s.taughtLabels):len(s.taughtLabels)], l)
	t.taughtSum = append([]float64(nil), s.taughtSum...)
	if a := s.c.Model.Adapt; a != nil && a.VoiceNorm {
		for i, v := range frontend.EstimateVoice([][]float32{raw}, len(t.taughtSum), false).Mean {
			t.taughtSum[i] += float64(v)
		}
	}
	t.taughtOut = nil
	if t.TeachWeight > 0 {
		if _, _, err := s.c.trainingRowsToRefit(); err != nil {
			return err
		}
	} else {
		// Refitted from the training rows, the read-out costs a
		// feature-sized solve: it is refitted when first scored.
		if _, err := t.refitTaught(); err != nil {
			return err
		}
	}
	s.taught, s.taughtLabels, s.taughtSum, s.taughtOut = t.taught, t.taughtLabels, t.taughtSum, t.taughtOut
	return nil
}

// Taught is how many words the voice was taught.
func (s *VoiceSession) Taught() int { return len(s.taught) }

// TaughtWords are the words taught, in order.
func (s *VoiceSession) TaughtWords() []string {
	out := make([]string, len(s.taughtLabels))
	for i, l := range s.taughtLabels {
		out[i] = s.c.Model.Labels[l]
	}
	return out
}

// estimate is the voice's mean spectrum at a recording whose own mean is
// own: the training voices' average weighted by Prior, the recordings
// heard and the words taught.
func (s *VoiceSession) estimate(own []float32) []float32 {
	a := s.c.Model.Adapt
	sum := make([]float64, len(s.sum))
	for i := range sum {
		sum[i] = s.sum[i] + s.taughtSum[i]
	}
	return voiceEstimate(a.VoiceMean, s.Prior, sum, s.n+len(s.taught), own)
}

// scoringReadOut is the read-out Score uses: the session's (ReadOut, nil
// for the model's) refitted to the taught words. Should the refit fail
// (it cannot for finite vectors) the session's own is used.
func (s *VoiceSession) scoringReadOut() *classifier.RLS {
	if len(s.taught) == 0 {
		return s.readOut
	}
	r, err := s.refitTaught()
	if err != nil {
		return s.readOut
	}
	return r
}

// refitTaught refits the session's read-out to the taught words,
// normalised with the voice's estimate as it stands, unless the last
// refit was from the same read-out and estimate.
func (s *VoiceSession) refitTaught() (*classifier.RLS, error) {
	base := s.readOut
	if base == nil {
		base = s.c.Model.RLS
	}
	if t := s.taughtOut; t != nil && t.base == base && t.n == s.n {
		return t.readOut, nil
	}
	x := linalg.NewGeneral32(len(s.taught), s.c.Config.Dim())
	var st frontend.VoiceStats
	if a := s.c.Model.Adapt; a != nil && a.VoiceNorm {
		// The estimate before any new recording: weights as in estimate,
		// without a recording of its own.
		est := make([]float32, len(s.sum))
		w := s.Prior + float64(s.n+len(s.taught))
		for i := range est {
			est[i] = float32((s.Prior*float64(a.VoiceMean[i]) + s.sum[i] + s.taughtSum[i]) / w)
		}
		st.Mean = est
	}
	for i, r := range s.taught {
		row := linalg.Row32(x, i)
		copy(row, r)
		if st.Mean != nil {
			st.Normalise(row)
		}
	}
	z := features.Apply(s.c.Map, x, 0)
	var r *classifier.RLS
	var err error
	if s.TeachWeight > 0 {
		r, err = s.c.refitWithTaught(z, s.taughtLabels, s.TeachWeight)
	} else {
		r, err = classifier.RefitToward(base, z, s.taughtLabels, s.TeachPull)
	}
	if err != nil {
		return nil, err
	}
	s.taughtOut = &taughtReadOut{base: base, n: s.n, readOut: r}
	return r, nil
}

// refitWithTaught fits the read-out again to the model's training rows
// plus the features z of a voice's taught words (labels), each counted
// weight times, with λ grown with the rows as a self-training refit grows
// it. It needs a model that carries its training rows and fits them in the
// primal form (the default adaptable model).
func (c *WordClassifier) refitWithTaught(z blas32.General, labels []int, weight float64) (*classifier.RLS, error) {
	trainX, trainY, err := c.trainingRowsToRefit()
	if err != nil {
		return nil, err
	}
	base, err := c.trainingAccumulator(trainX, trainY)
	if err != nil {
		return nil, err
	}
	taught := classifier.NewRLSAccumulator(base.Dim(), base.Classes())
	if err := taught.Add(z, labels); err != nil {
		return nil, err
	}
	acc := base.Clone()
	if err := acc.MergeWeighted(taught, weight); err != nil {
		return nil, err
	}
	return acc.Solve(c.Model.Adapt.Lambda * float64(acc.N()) / float64(trainX.Rows))
}

// trainingRowsToRefit returns the model's training rows when a voice's
// read-out can be refitted with them (refitWithTaught): an adaptable model
// with at least as many rows as features, whose statistics are kept.
func (c *WordClassifier) trainingRowsToRefit() (blas32.General, []int, error) {
	if !c.CanAdapt() {
		return blas32.General{}, nil, errors.New("rfstream: refitting to taught words with the training rows needs an adaptable model")
	}
	trainX, trainY, err := c.adaptationRows()
	if err != nil {
		return trainX, nil, err
	}
	if trainX.Rows < c.Map.OutDim() {
		return trainX, nil, fmt.Errorf("rfstream: refitting to taught words with the training rows needs as many rows as features (%d < %d)", trainX.Rows, c.Map.OutDim())
	}
	return trainX, trainY, nil
}
