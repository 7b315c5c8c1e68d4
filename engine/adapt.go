package engine

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Adaptation is how an isolated-word model meets a voice it was not
// trained on. A model trained on many voices still hears a new one worse
// than the voices it knows (experiments/journal/audio.md: leave-one-speaker-out accuracy
// rose from 77 % to 95 % on FSDD with the two steps below), so:
//
//   - VoiceNorm: every voice's mean log-mel spectrum was removed from its
//     word vectors in training (frontend.VoiceStats), and the same is done
//     to a new voice: estimated from its recordings when many are given
//     together (AdaptToVoice), otherwise taken to be VoiceMean, the average
//     of the training voices' means. One recording cannot stand for its
//     voice: its mean spectrum is as much the word's as the voice's, and
//     removing it gave 66.7 % leave-one-speaker-out accuracy on FSDD one
//     recording at a time, against 79.1 % with VoiceMean (experiments/journal/audio.md,
//     "Adapting to a voice in the product").
//   - Rounds: given many recordings of one voice, the read-out is refitted
//     once per round on its training rows plus the voice's recordings it is
//     surest of, class by class, under the labels it gives them
//     (self-training); round r takes that fraction of the recordings.
//
// Rounds need the training rows, which the model then carries as blobs.
type Adaptation struct {
	VoiceNorm bool      `json:"voice_norm"`
	VoiceMean []float32 `json:"voice_mean,omitempty"` // one value per log-mel band
	Rounds    []float64 `json:"rounds,omitempty"`
	// Seed is the fits' seed (it fixes nothing once λ is given, but the
	// refits pass it on as the training fit did).
	Seed uint64 `json:"seed"`
	// Lambda is the ridge parameter of the fit on the training rows; a
	// refit with more rows scales it by their number, as classifier.FitRLS's final
	// fit scales the λ its held-out rows chose.
	Lambda float64 `json:"lambda,omitempty"`
}

// Blob names of the training rows an adaptable model carries.
const (
	adaptRowsBlob   = "adapt.rows"
	adaptLabelsBlob = "adapt.labels"
)

// MaxAdaptRounds bounds Adaptation.Rounds: each is a refit of the read-out.
const MaxAdaptRounds = 40

// SetAdaptation makes m adaptable: a is stored with, when it has rounds,
// the rows the read-out was fitted on (as the map's inputs) and their
// labels.
func (m *Model) SetAdaptation(a Adaptation, rows blas32.General, labels []int) error {
	if err := a.validate(); err != nil {
		return err
	}
	m.Adapt = &a
	if len(a.Rounds) == 0 {
		return nil
	}
	if rows.Rows != len(labels) || rows.Rows == 0 {
		return fmt.Errorf("rfstream: adaptation needs the training rows: %d rows, %d labels", rows.Rows, len(labels))
	}
	if m.Blobs == nil {
		m.Blobs = map[string]blas32.General{}
	}
	y := linalg.NewGeneral32(len(labels), 1)
	for i, l := range labels {
		y.Data[i] = float32(l)
	}
	m.Blobs[adaptRowsBlob], m.Blobs[adaptLabelsBlob] = rows, y
	return nil
}

func (a Adaptation) validate() error {
	if a.VoiceNorm && len(a.VoiceMean) == 0 {
		return errors.New("rfstream: voice normalisation needs the training voices' mean spectrum")
	}
	for _, v := range a.VoiceMean {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("rfstream: voice mean %v", v)
		}
	}
	if len(a.Rounds) > MaxAdaptRounds {
		return fmt.Errorf("rfstream: %d adaptation rounds (at most %d)", len(a.Rounds), MaxAdaptRounds)
	}
	if len(a.Rounds) > 0 && !(a.Lambda > 0) {
		return fmt.Errorf("rfstream: adaptation rounds need the training fit's λ, have %v", a.Lambda)
	}
	for _, f := range a.Rounds {
		if !(f > 0 && f <= 1) {
			return fmt.Errorf("rfstream: adaptation round takes %v of the recordings, want a fraction in (0, 1]", f)
		}
	}
	return nil
}

// adaptationRows returns the training rows and labels of an adaptable
// word model, checked against its word vectors and classes.
func (c *WordClassifier) adaptationRows() (blas32.General, []int, error) {
	x, okx := c.Model.Blobs[adaptRowsBlob]
	y, oky := c.Model.Blobs[adaptLabelsBlob]
	if !okx || !oky {
		return x, nil, fmt.Errorf("%w: adaptable model without its training rows", ErrCorrupt)
	}
	if x.Cols != c.Config.Dim() || y.Cols != 1 || y.Rows != x.Rows || x.Rows == 0 {
		return x, nil, fmt.Errorf("%w: adaptation rows %d×%d with %d×%d labels for %d-value word vectors", ErrCorrupt, x.Rows, x.Cols, y.Rows, y.Cols, c.Config.Dim())
	}
	labels := make([]int, y.Rows)
	for i, v := range y.Data {
		l := int(v)
		if float32(l) != v || l < 0 || l >= c.Model.RLS.Classes {
			return x, nil, fmt.Errorf("%w: adaptation label %v of row %d is not a class", ErrCorrupt, v, i)
		}
		labels[i] = l
	}
	return x, labels, nil
}

// CanAdapt reports whether the model can self-train on a voice's
// recordings (AdaptToVoice with rounds).
func (c *WordClassifier) CanAdapt() bool {
	return c.Model.Adapt != nil && len(c.Model.Adapt.Rounds) > 0
}

// VoiceRound says what one self-training round did.
type VoiceRound struct {
	Fraction float64 // of the voice's recordings, taken class by class
	Picked   int     // recordings added to the training rows
	Changed  int     // recordings whose decision the refit changed
}

// VoiceAdaptation is the outcome of AdaptToVoice.
type VoiceAdaptation struct {
	// Scores are the class scores of every recording (rows in input
	// order) from the last read-out.
	Scores blas32.General
	Rounds []VoiceRound
	// ReadOut is the last round's read-out (nil without rounds).
	ReadOut *classifier.RLS
}

// AdaptToVoice scores word vectors (rows of raw, from RawVector) that are
// all recordings of one voice, adapting to it as the model's Adaptation
// says: the voice's statistics are estimated from all rows and removed,
// then each round refits the read-out on the training rows plus the
// recordings it is surest of and rescores. Without rounds it only
// normalises. raw is not changed.
func (c *WordClassifier) AdaptToVoice(raw blas32.General) (*VoiceAdaptation, error) {
	return c.adaptToVoice(raw, false)
}

// adaptToVoice is AdaptToVoice; fullRefit makes every round refit with
// classifier.FitRLS from the rows (the reference the tests hold voiceRefit to).
func (c *WordClassifier) adaptToVoice(raw blas32.General, fullRefit bool) (*VoiceAdaptation, error) {
	if raw.Cols != c.Config.Dim() {
		return nil, fmt.Errorf("rfstream: %d-value rows for %d-value word vectors", raw.Cols, c.Config.Dim())
	}
	if raw.Rows == 0 {
		return nil, errors.New("rfstream: no recordings to adapt to")
	}
	x := linalg.NewGeneral32(raw.Rows, raw.Cols)
	for i := 0; i < raw.Rows; i++ {
		copy(linalg.Row32(x, i), linalg.Row32(raw, i))
	}
	if a := c.Model.Adapt; a != nil && a.VoiceNorm {
		NormaliseVoice(x, c.Config.Audio.Mels)
	}
	return c.selfTrain(x, fullRefit)
}

// selfTrain scores the normalised word vectors x and runs the model's
// self-training rounds on them.
func (c *WordClassifier) selfTrain(x blas32.General, fullRefit bool) (*VoiceAdaptation, error) {
	// The voice's features are the same in every round: map them once.
	zx := features.Apply(c.Map, x, 0)
	score := func(r *classifier.RLS) blas32.General {
		out := linalg.NewGeneral32(x.Rows, r.Classes)
		r.Scores(out, zx)
		return out
	}
	res := &VoiceAdaptation{Scores: score(c.Model.RLS)}
	if !c.CanAdapt() {
		return res, nil
	}
	refit, err := c.voiceRefit(x, zx, fullRefit)
	if err != nil {
		return nil, err
	}
	all := make([]int, x.Rows)
	for i := range all {
		all[i] = i
	}
	for _, f := range c.Model.Adapt.Rounds {
		rows, labels := classifier.SurestPerClass(res.Scores, all, f)
		if len(rows) == 0 {
			break
		}
		r, err := refit(rows, labels)
		if err != nil {
			return nil, fmt.Errorf("rfstream: adaptation round %d: %w", len(res.Rounds)+1, err)
		}
		next := score(r)
		before, after := classifier.Argmax(res.Scores), classifier.Argmax(next)
		changed := 0
		for i := range after {
			if after[i] != before[i] {
				changed++
			}
		}
		res.Scores, res.ReadOut = next, r
		res.Rounds = append(res.Rounds, VoiceRound{Fraction: f, Picked: len(rows), Changed: changed})
	}
	return res, nil
}

// trainingAccumulator returns the statistics of the training rows,
// accumulating them on first use.
func (c *WordClassifier) trainingAccumulator(trainX blas32.General, trainY []int) (*classifier.RLSAccumulator, error) {
	c.training.once.Do(func() {
		acc := classifier.NewRLSAccumulator(c.Map.OutDim(), c.Model.RLS.Classes)
		c.training.err = acc.AddMapped(c.Map, trainX, trainY, 4096)
		c.training.acc = acc
	})
	return c.training.acc, c.training.err
}

// PrepareAdaptation accumulates, if it has not yet, what every
// self-training refit of the model shares (its training rows' statistics:
// about a second for the default adaptable model), so that the first
// adaptation does not wait for it. It does nothing for a model that
// cannot adapt or refits in the dual form.
func (c *WordClassifier) PrepareAdaptation() error {
	if !c.CanAdapt() {
		return nil
	}
	trainX, trainY, err := c.adaptationRows()
	if err != nil || trainX.Rows < c.Map.OutDim() {
		return err
	}
	_, err = c.trainingAccumulator(trainX, trainY)
	return err
}

// trainingStats holds ZᵀZ and ZᵀY of an adaptable model's training rows
// for the self-training refits, computed on first use.
type trainingStats struct {
	once sync.Once
	acc  *classifier.RLSAccumulator
	err  error
	slot chan struct{} // one session self-training at a time
}

func newTrainingStats() *trainingStats { return &trainingStats{slot: make(chan struct{}, 1)} }

// voiceRefit returns the refit of a self-training round: the read-out
// fitted to the training rows plus the given rows of the voice's x (zx
// their features) under the given labels, with λ grown with the rows as
// classifier.FitRLS's refit after choosing it grows it.
//
// When the fit is primal (at least as many training rows as features), the
// training rows' share of ZᵀZ and ZᵀY is the same in every round, so it is
// accumulated once (and kept for the classifier's later adaptations) and
// each round adds only the voice's rows to a copy: one pass of the ~3500
// training rows through the map instead of one per round. The sums then
// come in another order than classifier.FitRLS's, which moves scores in their last
// bits (the tests check that decisions stay).
func (c *WordClassifier) voiceRefit(x, zx blas32.General, full bool) (func(rows, labels []int) (*classifier.RLS, error), error) {
	a := c.Model.Adapt
	trainX, trainY, err := c.adaptationRows()
	if err != nil {
		return nil, err
	}
	classes := c.Model.RLS.Classes
	lambda := func(rows int) float64 { return a.Lambda * float64(trainX.Rows+rows) / float64(trainX.Rows) }
	if full || trainX.Rows < c.Map.OutDim() {
		return func(rows, labels []int) (*classifier.RLS, error) {
			return classifier.RefitWithRows(c.Map, trainX, trainY, classes, a.Lambda, a.Seed, x, rows, labels)
		}, nil
	}
	base, err := c.trainingAccumulator(trainX, trainY)
	if err != nil {
		return nil, err
	}
	return func(rows, labels []int) (*classifier.RLS, error) {
		acc := base.Clone()
		picked := linalg.NewGeneral32(len(rows), zx.Cols)
		for i, r := range rows {
			copy(linalg.Row32(picked, i), linalg.Row32(zx, r))
		}
		if err := acc.Add(picked, labels); err != nil {
			return nil, err
		}
		return acc.Solve(lambda(len(rows)))
	}, nil
}

// voiceEstimate is a session's estimate of a voice's mean spectrum at a
// recording whose own mean is own, after n committed recordings whose
// means sum to sum: (prior·voiceMean + sum + own) / (prior + n + 1).
func voiceEstimate(voiceMean []float32, prior float64, sum []float64, n int, own []float32) []float32 {
	est := make([]float32, len(own))
	for i := range est {
		est[i] = float32((prior*float64(voiceMean[i]) + sum[i] + float64(own[i])) / (prior + float64(n+1)))
	}
	return est
}

// NormaliseAsFirst normalises raw (a word vector from RawVector), in
// place, as a VoiceSession of a model whose Adaptation.VoiceMean is
// voiceMean normalises a voice's first recording with the given prior
// (VoiceSession.Prior): mostly with the training voices' average, a little
// with the recording's own mean. Training rows normalised this way teach a
// model what a voice it has not heard yet looks like (train digits
// --alone-copies).
func NormaliseAsFirst(raw, voiceMean []float32, prior float64) {
	own := frontend.EstimateVoice([][]float32{raw}, len(voiceMean), false).Mean
	est := voiceEstimate(voiceMean, prior, make([]float64, len(voiceMean)), 0, own)
	frontend.VoiceStats{Mean: est}.Normalise(raw)
}

// NormaliseVoice removes, in place, the statistics of the voice whose
// word vectors are the rows of x (speaker-level CMVN, mean only).
func NormaliseVoice(x blas32.General, mels int) {
	rows := make([][]float32, x.Rows)
	for i := range rows {
		rows[i] = linalg.Row32(x, i)
	}
	st := frontend.EstimateVoice(rows, mels, false)
	for _, r := range rows {
		st.Normalise(r)
	}
}
