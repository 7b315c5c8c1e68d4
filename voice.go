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

// VoiceSession is what the model knows of one voice. It learns the voice
// two ways:
//
//   - Teach (enrolment, `rfstream enroll`): a recording of a known word,
//     such as the ten digits said once each when prompted; the model's
//     read-out is refitted to every word taught, so a voice the model never
//     heard is heard from then on as well as its training voices. Both
//     default models can be taught: DefaultModel(TaskConnected), which hears
//     strings of digits, and DefaultModel(TaskWords).
//   - Recognize, with an isolated-word model that normalises voices (such
//     as DefaultModel(TaskWords)), as `rfstream recognize --session` does:
//     each recording is normalised with the session's estimate of the
//     voice (its mean spectrum, from this recording and the ones before),
//     and once 10, 20, 40, … recordings have been heard the read-out
//     self-trains on them, so the voice is learnt as it speaks.
//
// Save keeps what the session has learnt and LoadVoiceSession goes on from
// it. A session's methods must not be called concurrently.
type VoiceSession struct {
	c  *engine.WordClassifier
	s  *engine.VoiceSession
	cv *engine.ConnectedVoice // a connected model's voice, instead of c and s
}

// NewVoiceSession starts a session of a voice not heard before.
func NewVoiceSession(m *Model) (*VoiceSession, error) {
	if m.Task == TaskConnected {
		c, err := engine.NewConnected(m)
		if err != nil {
			return nil, err
		}
		v, err := c.NewVoice()
		if err != nil {
			return nil, err
		}
		return &VoiceSession{cv: v}, nil
	}
	c, err := voiceClassifier(m)
	if err != nil {
		return nil, err
	}
	return &VoiceSession{c: c, s: c.NewVoiceSession()}, nil
}

// LoadVoiceSession goes on from the session Save wrote at path with the
// same model. A file written by another model is refused (ErrOtherModel),
// a damaged one too (ErrCorruptVoice); a missing one wraps fs.ErrNotExist.
func LoadVoiceSession(m *Model, path string) (*VoiceSession, error) {
	if m.Task == TaskConnected {
		c, err := engine.NewConnected(m)
		if err != nil {
			return nil, err
		}
		v, err := c.LoadVoice(path)
		if err != nil {
			return nil, err
		}
		return &VoiceSession{cv: v}, nil
	}
	c, err := voiceClassifier(m)
	if err != nil {
		return nil, err
	}
	s, err := c.LoadVoiceSession(path)
	if err != nil {
		return nil, err
	}
	return &VoiceSession{c: c, s: s}, nil
}

// VoicePath is where a folder of voices (`rfstream enroll --voices`, `serve
// --voices`, `recognize --voices`) keeps the voice named name for model m:
// in a folder of the model's own, so a voice learnt by one model is never
// read by another.
func VoicePath(m *Model, dir, name string) (string, error) {
	if m.Task == TaskConnected {
		c, err := engine.NewConnected(m)
		if err != nil {
			return "", err
		}
		return c.VoicePath(dir, name)
	}
	c, err := voiceClassifier(m)
	if err != nil {
		return "", err
	}
	return c.VoicePath(dir, name)
}

func voiceClassifier(m *Model) (*engine.WordClassifier, error) {
	if m.Task != TaskWords || m.Adapt == nil || !m.Adapt.VoiceNorm {
		return nil, fmt.Errorf("a voice session needs the connected model or an isolated-word model that normalises voices (rfstream train digits --speaker-norm mean), not this %s model", m.Task)
	}
	return engine.NewWordClassifier(m)
}

// Save writes what the session has learnt to path, through a temporary
// file renamed over it, so a crash leaves the old file or the new one.
func (v *VoiceSession) Save(path string) error {
	if v.cv != nil {
		return v.cv.Save(path)
	}
	return v.s.Save(path)
}

// SetSelfTraining turns the session's self-training on or off (it is on
// when the model can adapt). Off, the session still normalises the voice.
// A connected model's session does not self-train.
func (v *VoiceSession) SetSelfTraining(on bool) {
	if v.s != nil {
		v.s.SelfTrain = on && v.c.CanAdapt()
	}
}

// Recordings is how many recordings an isolated-word model's session has
// heard, over every session it goes on from (taught ones not counted).
func (v *VoiceSession) Recordings() int {
	if v.s == nil {
		return 0
	}
	return v.s.Recordings()
}

// AdaptedOn is how many recordings the read-out in use was self-trained on
// (0: the model's own, or one refitted only to taught words).
func (v *VoiceSession) AdaptedOn() int {
	if v.s == nil {
		return 0
	}
	return v.s.AdaptedOn()
}

// Taught is how many words the voice has been taught.
func (v *VoiceSession) Taught() int {
	if v.cv != nil {
		return v.cv.Taught()
	}
	return v.s.Taught()
}

// Teach teaches the voice that a recording (mono samples in [-1, 1] at
// rate Hz) is the word label, one of the model's words ("0" … "9" for the
// digit models). A recording that is not a word heard clearly is refused
// and teaches nothing: the error wraps engine.ErrTooQuiet, ErrClipped,
// ErrNoSpeech or ErrTooLong; so is a label the model does not have
// (engine.ErrNotInVocabulary, naming it).
func (v *VoiceSession) Teach(samples []float32, rate int, label string) error {
	if err := engine.CheckTeachable(samples, rate); err != nil {
		return err
	}
	a := &frontend.Audio{Rate: rate, Samples: samples}
	if v.cv != nil {
		return v.cv.Teach(a, label)
	}
	x, err := v.c.RawVector(a)
	if err != nil {
		return err
	}
	return v.s.Teach(x, label)
}

// Recognize hears the voice's next recording (mono samples in [-1, 1] at
// rate Hz): with a connected model as a string of words, as a Recognizer
// hears it (the live pipeline's way) with the voice's read-out; with an
// isolated-word model as one word, and the session adds it to what it
// knows of the voice.
func (v *VoiceSession) Recognize(samples []float32, rate int) (Result, error) {
	if v.cv != nil {
		return v.cv.Recognizer().Recognize(samples, rate)
	}
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
