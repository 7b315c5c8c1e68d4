package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// VoiceSession follows one voice through recordings heard one after
// another (a live session): each is normalised with the session's estimate
// of the voice's mean spectrum, which starts at the training voices'
// average (Adaptation.VoiceMean) and moves toward the voice's own as its
// recordings arrive. Prior is how many recordings' worth of weight the
// average keeps: after n recordings the estimate is
// (Prior·VoiceMean + Σ recording means) / (Prior + n). A model without
// voice normalisation gets its vectors unchanged.
//
// With SelfTrain (the default for a model that can adapt), the session
// also does what AdaptToVoice does, at checkpoints: once n = 10, 20, 40, …,
// 1280 recordings are committed, the model's self-training rounds run over all
// of them, normalised with the session's estimate at that moment and
// starting from the model's own read-out, and the last round's read-out
// scores the recordings from the (n + n/2)-th on (Score). The rounds run
// in the background meanwhile (about 3 s for the default adaptable model),
// so a live stream does not wait for them; that they take effect at a
// fixed recording, not when they finish, keeps a session's decisions the
// same however fast its recordings come.
type VoiceSession struct {
	c         *WordClassifier
	Prior     float64
	SelfTrain bool
	// TeachPull is how near its read-out the one refitted to the taught
	// words is kept (classifier.RefitToward's relMu; WordTeachPull unless
	// set).
	TeachPull float64
	// TeachWeight, when positive, refits the read-out to the taught words
	// with the model's training rows instead (each taught word counted
	// TeachWeight times among them), not toward the session's read-out;
	// for a model that carries its training rows (CanAdapt).
	TeachWeight float64

	sum       []float64 // Σ over committed recordings of their mean spectra
	n         int
	raw       [][]float32     // committed recordings' vectors before normalisation, when self-training
	readOut   *classifier.RLS // the read-out in use; nil: the model's
	adaptedOn int             // recordings readOut was self-trained on
	pending   *sessionRefit
	// Open is the caller's count, by stream, of the recordings that each
	// stream still open has committed; the session keeps it, in its voice
	// file too, and never reads it. A streaming frontend restarted in a
	// durable pipeline takes its open streams up again from their first
	// stored message, and learns from it how many of a stream's words the
	// voice it reads back already holds, so that they join it once.
	Open map[string]int

	// What the voice was taught (Teach): word vectors before
	// normalisation, their classes, and the sum of their mean spectra,
	// which counts in the voice's estimate as its recordings' do.
	taught       [][]float32
	taughtLabels []int
	taughtSum    []float64
	taughtOut    *taughtReadOut
}

// sessionRefit is a checkpoint's self-training, running or done.
type sessionRefit struct {
	on, applyAt int       // recordings it trains on; the first recording it scores
	est         []float32 // the voice estimate its recordings are normalised with
	done        chan struct{}
	readOut     *classifier.RLS
	err         error
}

// DefaultVoicePrior is VoiceSession.Prior unless set otherwise: the
// training voices' average counts as ten recordings, the number from which
// adapting to a voice (AdaptToVoice on 10 recordings, one per digit) had
// most of its gain on FSDD (experiments/journal/audio.md, "Adapting to a voice in the
// product").
const DefaultVoicePrior = 10

// FirstSessionCheckpoint is how many committed recordings a self-training
// session waits for before its first self-training; later checkpoints
// come at twice the previous count. Ten is where AdaptToVoice had most of
// its gain on FSDD (91.7 % on ten recordings, one per digit, against 95.1 %
// on all 500).
const FirstSessionCheckpoint = 10

// LastSessionCheckpoint is the last checkpoint: a longer session keeps its
// read-out from then on and no more vectors, so a stream that runs for
// days holds at most this many (6.5 MB for the default model) and its
// self-training costs stay bounded.
const LastSessionCheckpoint = FirstSessionCheckpoint << 7 // 1280

// NewVoiceSession starts a session of one voice; it self-trains when the
// model can adapt.
func (c *WordClassifier) NewVoiceSession() *VoiceSession {
	mels := c.Config.Audio.Mels
	return &VoiceSession{c: c, Prior: DefaultVoicePrior, SelfTrain: c.CanAdapt(), TeachPull: WordTeachPull, sum: make([]float64, mels), taughtSum: make([]float64, mels)}
}

// Clone returns an independent copy of the session, for writing it out
// while the session goes on (the streaming stage keeps its lock only for
// the copy). It costs little whatever the session's length: the kept
// recordings' vectors and the read-outs are shared, since neither session
// ever changes them, and the copy's list of recordings is capped at its
// length, so that a recording appended to either lands in memory the other
// does not read. A self-training still running is shared too; each
// session takes its read-out on its own.
func (s *VoiceSession) Clone() *VoiceSession {
	c := *s
	c.sum = slices.Clone(s.sum)
	c.raw = s.raw[:len(s.raw):len(s.raw)]
	c.Open = maps.Clone(s.Open)
	c.taught = s.taught[:len(s.taught):len(s.taught)]
	c.taughtLabels = s.taughtLabels[:len(s.taughtLabels):len(s.taughtLabels)]
	c.taughtSum = slices.Clone(s.taughtSum)
	return &c
}

// Recordings is how many recordings the session has committed.
func (s *VoiceSession) Recordings() int { return s.n }

// AdaptedOn is how many recordings the read-out Score uses was
// self-trained on (0: the model's own).
func (s *VoiceSession) AdaptedOn() int { return s.adaptedOn }

// Progress is the session's VoiceProgress, or nil when the model does not
// normalise voices (a session then learns nothing).
func (s *VoiceSession) Progress() *VoiceProgress {
	if a := s.c.Model.Adapt; a == nil || !a.VoiceNorm {
		return nil
	}
	return &VoiceProgress{Recordings: s.n, AdaptedOn: s.adaptedOn}
}

// ReadOut is the read-out Score uses: the last self-training's that has
// taken effect, or nil for the model's.
func (s *VoiceSession) ReadOut() *classifier.RLS { return s.readOut }

// Busy returns, when Normalise of the next recording (final or partial)
// would wait for a checkpoint's self-training still running, a channel
// closed when it has finished; otherwise nil. A caller serving many
// sessions can set the recording aside until then instead of waiting.
func (s *VoiceSession) Busy() <-chan struct{} {
	p := s.pending
	if p == nil || s.n+1 < p.applyAt {
		return nil
	}
	select {
	case <-p.done:
		return nil
	default:
		return p.done
	}
}

// Normalise normalises raw (from RawVector), in place, with the estimate
// that includes it. With commit the recording joins the session; without,
// the session is unchanged (a partial segment, decided again when it is
// final). When the recording is one a checkpoint's read-out takes effect
// at, Normalise waits for that self-training if it is still running; if it
// failed, the read-out stays as it was and the error says why (the
// recording is normalised all the same).
func (s *VoiceSession) Normalise(raw []float32, commit bool) error {
	a := s.c.Model.Adapt
	if a == nil || !a.VoiceNorm {
		return nil
	}
	k := s.n + 1 // this recording's place in the session
	own := frontend.EstimateVoice([][]float32{raw}, len(s.sum), false).Mean
	est := s.estimate(own)
	if commit {
		for i, v := range own {
			s.sum[i] += float64(v)
		}
		s.n++
		if s.SelfTrain && s.n <= LastSessionCheckpoint {
			s.raw = append(s.raw, append([]float32(nil), raw...))
		}
	}
	frontend.VoiceStats{Mean: est}.Normalise(raw)
	var err error
	if p := s.pending; p != nil && k >= p.applyAt {
		<-p.done
		s.pending = nil
		if p.err != nil {
			err = p.err
		} else if p.readOut != nil {
			s.readOut, s.adaptedOn = p.readOut, p.on
		}
		if p.on == LastSessionCheckpoint {
			s.raw = nil // nothing will train on them again
		}
	}
	if commit && s.SelfTrain && isSessionCheckpoint(s.n) {
		if e := s.startSelfTrain(est); err == nil {
			err = e
		}
	}
	return err
}

func isSessionCheckpoint(n int) bool {
	if n > LastSessionCheckpoint {
		return false
	}
	c := FirstSessionCheckpoint
	for c < n {
		c *= 2
	}
	return c == n
}

// startSelfTrain starts the model's self-training rounds over the
// committed recordings, normalised with est, in the background. Its
// read-out takes effect at recording n + n/2, before the next checkpoint
// (2n), so at most one runs at a time per session.
func (s *VoiceSession) startSelfTrain(est []float32) error {
	if !s.c.CanAdapt() {
		return errors.New("rfstream: a self-training session needs a model that can adapt")
	}
	if len(s.raw) < s.n {
		// SelfTrain was turned on after the session began (or it was read
		// from a file written without it): the recordings are not all kept.
		return fmt.Errorf("rfstream: the session kept %d of its %d recordings (SelfTrain was off), so it cannot self-train on them", len(s.raw), s.n)
	}
	s.runSelfTrain(&sessionRefit{on: s.n, applyAt: s.n + s.n/2, est: est})
	return nil
}

// runSelfTrain starts p, the self-training of a checkpoint, in the
// background over the session's first p.on recordings.
func (s *VoiceSession) runSelfTrain(p *sessionRefit) {
	x := linalg.NewGeneral32(p.on, len(s.raw[0]))
	st := frontend.VoiceStats{Mean: p.est}
	for i, r := range s.raw[:p.on] {
		row := linalg.Row32(x, i)
		copy(row, r)
		st.Normalise(row)
	}
	p.done = make(chan struct{})
	s.pending = p
	go func() {
		defer close(p.done)
		// One self-training of a classifier at a time: each holds a copy
		// of the training statistics (72 MB for the default model), and
		// BLAS already uses every core.
		s.c.training.slot <- struct{}{}
		defer func() { <-s.c.training.slot }()
		res, err := s.c.selfTrain(x, false)
		if err != nil {
			p.err = fmt.Errorf("rfstream: self-training on the session's first %d recordings: %w", p.on, err)
			return
		}
		p.readOut = res.ReadOut
	}()
}

// Score returns the class scores of a vector Normalise has normalised,
// from the session's read-out (ReadOut) or the model's, refitted to what
// the voice was taught when it was (Teach).
func (s *VoiceSession) Score(v []float32) []float32 {
	x := blas32.General{Rows: 1, Cols: len(v), Stride: len(v), Data: v}
	return s.c.ScoreRowsWith(x, []*classifier.RLS{s.scoringReadOut()}).Data
}
