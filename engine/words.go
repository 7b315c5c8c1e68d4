package engine

import (
	"encoding/json"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// TaskWords is the Model.Task of isolated-word models: one fixed-size
// vector per recording (frontend.WordVector), one label per word.
const TaskWords = "words"

// NewWordModel bundles a trained isolated-word recogniser.
func NewWordModel(wc frontend.WordConfig, m features.Map, rls *classifier.RLS, labels []string) *Model {
	in, _ := json.Marshal(wc)
	return &Model{Task: TaskWords, Labels: labels, Input: in, Map: m.Recipe(), RLS: rls}
}

// WordConfig returns the word representation an isolated-word model
// was trained on.
func (m *Model) WordConfig() (frontend.WordConfig, error) {
	var wc frontend.WordConfig
	if m.Task != TaskWords {
		return wc, fmt.Errorf("rfstream: model task %q is not %q", m.Task, TaskWords)
	}
	if err := json.Unmarshal(m.Input, &wc); err != nil {
		return wc, fmt.Errorf("rfstream: word model input: %w", err)
	}
	if err := wc.Audio.Validate(); err != nil {
		return wc, err
	}
	return wc, nil
}

// WordClassifier scores whole-word recordings with a word model.
type WordClassifier struct {
	Model  *Model
	Config frontend.WordConfig
	Map    features.Map

	training *trainingStats // an adaptable model's training rows, accumulated once
	print    *modelPrint    // the model's fingerprint, computed once (voice files)
}

// NewWordClassifier prepares a word model for use.
func NewWordClassifier(m *Model) (*WordClassifier, error) {
	wc, err := m.WordConfig()
	if err != nil {
		return nil, err
	}
	fm, err := m.FeatureMap()
	if err != nil {
		return nil, err
	}
	if fm.InDim() != wc.Dim() {
		return nil, fmt.Errorf("rfstream: word model's map takes %d inputs, its word vectors have %d", fm.InDim(), wc.Dim())
	}
	if m.RLS == nil {
		return nil, fmt.Errorf("rfstream: word model has no read-out")
	}
	c := &WordClassifier{Model: m, Config: wc, Map: fm, training: newTrainingStats(), print: &modelPrint{}}
	if m.Adapt != nil {
		if err := m.Adapt.validate(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if n := len(m.Adapt.VoiceMean); n != 0 && n != wc.Audio.Mels {
			return nil, fmt.Errorf("%w: voice mean of %d bands for %d-band word vectors", ErrCorrupt, n, wc.Audio.Mels)
		}
		if c.CanAdapt() {
			if _, _, err := c.adaptationRows(); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// Vector computes the word vector of a recording at any rate: the
// frontend half of classification. A model trained on voice-normalised
// vectors (Adaptation.VoiceNorm) gets the training voices' average mean
// spectrum removed: one recording does not tell its voice (a VoiceSession
// follows a voice heard one recording after another; AdaptToVoice
// estimates it from many recordings at once).
func (c *WordClassifier) Vector(a *frontend.Audio) ([]float32, error) {
	v, err := c.RawVector(a)
	if err == nil {
		c.NormaliseAlone(v)
	}
	return v, err
}

// NormaliseAlone normalises a raw word vector (RawVector) of a recording
// heard on its own, in place, as Vector does: with the training voices'
// average mean spectrum, when the model normalises voices at all.
func (c *WordClassifier) NormaliseAlone(v []float32) {
	if a := c.Model.Adapt; a != nil && a.VoiceNorm {
		frontend.VoiceStats{Mean: a.VoiceMean}.Normalise(v)
	}
}

// RawVector is the word vector of a recording before any voice
// normalisation (Vector applies it).
func (c *WordClassifier) RawVector(a *frontend.Audio) ([]float32, error) {
	a, err := c.atModelRate(a)
	if err != nil {
		return nil, err
	}
	return frontend.WordVector(c.Config, a.Samples)
}

// atModelRate returns a resampled to the model's rate (a itself when it
// is at that rate already).
func (c *WordClassifier) atModelRate(a *frontend.Audio) (*frontend.Audio, error) {
	if a.Rate == c.Config.Audio.SampleRate {
		return a, nil
	}
	return frontend.Resample(a, c.Config.Audio.SampleRate)
}

// SegmentVector is RawVector for a segment a Segmenter cut from a stream.
// Around the word lie the segmenter's padding and the stream's pauses,
// which the model's speech detector, made for recordings trimmed to the
// word, keeps as speech when the background is loud. Where the segment
// carries the segmenter's estimate of that background, frames less than
// 6 dB over it are not speech (frontend.WordVectorOverBackground; chosen
// on five voices' streams, experiments/journal/audio.md).
func (c *WordClassifier) SegmentVector(s Segment) ([]float32, error) {
	if !s.HasBackground {
		return c.RawVector(s.Audio)
	}
	a, err := c.atModelRate(s.Audio)
	if err != nil {
		return nil, err
	}
	if s.word != nil {
		return s.word.VectorOverBackground(c.Config, a.Samples, s.BackgroundDB)
	}
	return frontend.WordVectorOverBackground(c.Config, a.Samples, s.BackgroundDB)
}

// ScoreRows maps word vectors (rows) and returns their class scores: the
// map-and-read-out half, batched.
func (c *WordClassifier) ScoreRows(x blas32.General) blas32.General { return c.ScoreRowsWith(x, nil) }

// ScoreRowsWith is ScoreRows with, for each row whose readOuts entry is
// not nil, that read-out in place of the model's (a session's own,
// VoiceSession.ReadOut). The map runs on all rows at once.
func (c *WordClassifier) ScoreRowsWith(x blas32.General, readOuts []*classifier.RLS) blas32.General {
	z := linalg.NewGeneral32(x.Rows, c.Map.OutDim())
	c.Map.Apply(z, x)
	s := linalg.NewGeneral32(x.Rows, c.Model.RLS.Classes)
	if len(readOuts) < x.Rows || slices.Contains(readOuts, nil) {
		c.Model.RLS.Scores(s, z)
	}
	for i, r := range readOuts {
		if r != nil {
			r.Scores(linalg.Rows32(s, i, i+1), linalg.Rows32(z, i, i+1))
		}
	}
	return s
}

// Score returns the class scores of one word vector.
func (c *WordClassifier) Score(v []float32) []float32 {
	return c.ScoreRows(blas32.General{Rows: 1, Cols: len(v), Stride: len(v), Data: v}).Data
}

// Classify recognises one word from samples at any rate.
func (c *WordClassifier) Classify(a *frontend.Audio) (Hypothesis, []float32, error) {
	v, err := c.Vector(a)
	if err != nil {
		return Hypothesis{}, nil, err
	}
	s := c.Score(v)
	best := 0
	for i, x := range s {
		if x > s[best] {
			best = i
		}
	}
	return Hypothesis{Label: c.Model.Labels[best], Conf: Confidence(s, best)}, s, nil
}

// Recognize classifies a recording at any rate as one of the model's words
// (Recognizer): Text is the best label, Conf its confidence, Alternatives
// the three best.
func (c *WordClassifier) Recognize(samples []float32, rate int) (Result, error) {
	v, err := c.Vector(&frontend.Audio{Rate: rate, Samples: samples})
	if err != nil {
		return Result{}, err
	}
	return c.ResultOf(c.Score(v)), nil
}

// ResultOf is the result one row of the model's class scores gives: the
// best label with its confidence and the three best alternatives. Scores
// from a VoiceSession or AdaptToVoice are read the same way.
func (c *WordClassifier) ResultOf(scores []float32) Result {
	best := TopK(scores, c.Model.Labels, 3)
	res := Result{Text: best[0].Label, Final: true, EOS: true, Conf: best[0].Score}
	for _, t := range best {
		res.Alternatives = append(res.Alternatives, Hypothesis{Label: t.Label, Conf: t.Score})
	}
	return res
}
