package rfstream

import (
	"errors"
	"fmt"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

// ErrSelfTraining is wrapped by the error VoiceSession.Recognize returns
// when the recording was heard but a self-training round it started or
// finished failed: the result is still good, and the session goes on with
// the read-out it had.
var ErrSelfTraining = errors.New("voice self-training failed")

// VoiceSession recognises recordings of one voice heard one after another,
// as `rfstream recognize --session` does: each recording is normalised
// with the session's estimate of the voice (its mean spectrum, from this
// recording and the ones before), and once 10, 20, 40, … recordings have
// been heard the model's read-out self-trains on them, so a voice the
// model never heard is learnt as it speaks. Save keeps what the session
// has learnt and LoadVoiceSession goes on from it. It needs an isolated-word
// model that normalises voices, such as DefaultModel(TaskWords).
type VoiceSession struct {
	c *engine.WordClassifier
	s *engine.VoiceSession
}

// NewVoiceSession starts a session of a voice not heard before.
func NewVoiceSession(m *Model) (*VoiceSession, error) {
	c, err := voiceClassifier(m)
	if err != nil {
		return nil, err
	}
	return &VoiceSession{c, c.NewVoiceSession()}, nil
}

// LoadVoiceSession goes on from the session Save wrote at path with the
// same model. A file written by another model is refused (ErrOtherModel),
// a damaged one too (ErrCorruptVoice); a missing one wraps fs.ErrNotExist.
func LoadVoiceSession(m *Model, path string) (*VoiceSession, error) {
	c, err := voiceClassifier(m)
	if err != nil {
		return nil, err
	}
	s, err := c.LoadVoiceSession(path)
	if err != nil {
		return nil, err
	}
	return &VoiceSession{c, s}, nil
}

// VoicePath is where a folder of voices (`serve --voices`, `recognize
// --voices`) keeps the voice named name for model m: in a folder of the
// model's own, so a voice learnt by one model is never read by another.
func VoicePath(m *Model, dir, name string) (string, error) {
	c, err := voiceClassifier(m)
	if err != nil {
		return "", err
	}
	return c.VoicePath(dir, name)
}

func voiceClassifier(m *Model) (*engine.WordClassifier, error) {
	if m.Task != TaskWords || m.Adapt == nil || !m.Adapt.VoiceNorm {
		return nil, fmt.Errorf("a voice session needs an isolated-word model that normalises voices (rfstream train digits --speaker-norm mean), not this %s model", m.Task)
	}
	return engine.NewWordClassifier(m)
}

// Save writes what the session has learnt to path, through a temporary
// file renamed over it, so a crash leaves the old file or the new one.
func (v *VoiceSession) Save(path string) error { return v.s.Save(path) }

// SetSelfTraining turns the session's self-training on or off (it is on
// when the model can adapt). Off, the session still normalises the voice.
func (v *VoiceSession) SetSelfTraining(on bool) { v.s.SelfTrain = on && v.c.CanAdapt() }

// Recordings is how many recordings the session has heard, over every
// session it goes on from.
func (v *VoiceSession) Recordings() int { return v.s.Recordings() }

// AdaptedOn is how many recordings the read-out in use was self-trained on
// (0: the model's own).
func (v *VoiceSession) AdaptedOn() int { return v.s.AdaptedOn() }

// Recognize hears the voice's next recording (mono samples in [-1, 1] at
// rate Hz) as one word, and adds it to what the session knows of the voice.
func (v *VoiceSession) Recognize(samples []float32, rate int) (Result, error) {
	x, err := v.c.RawVector(&frontend.Audio{Rate: rate, Samples: samples})
	if err != nil {
		return Result{}, err
	}
	// Normalise commits the recording before it self-trains, so a failed
	// round costs the session its new read-out, not this result.
	err = v.s.Normalise(x, true)
	res := v.c.ResultOf(v.s.Score(x))
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrSelfTraining, err)
	}
	return res, nil
}
