package engine

import (
	"fmt"
	"strings"
)

// Transcript turns scored segments, in order, into results: the running
// text of final words, plus the open word's best guess in a partial.
type Transcript struct {
	Labels []string
	words  []Word
	failed bool // a segment could not be scored: its word is unknown, not absent
}

// Add records the scores of one segment and returns the result to report.
func (t *Transcript) Add(seg Segment, scores []float32) Result {
	best := 0
	for i, v := range scores {
		if v > scores[best] {
			best = i
		}
	}
	w := Word{Word: t.Labels[best], Start: seg.Start, End: seg.End, Conf: Confidence(scores, best)}
	if seg.Final {
		t.words = append(t.words, w)
		return Result{Text: t.text(nil), Final: true, Words: append([]Word(nil), t.words...)}
	}
	return Result{Text: t.text(&w), Words: append(append([]Word(nil), t.words...), w)}
}

// Error reports a segment that could not be scored; the stream goes on.
func (t *Transcript) Error(seg Segment, err error) Result {
	t.failed = true
	return Result{Text: t.text(nil), Final: seg.Final, Words: append([]Word(nil), t.words...),
		Error: fmt.Sprintf("word at %.2fs: %v", seg.Start, err)}
}

// End is the last result of a stream; with no final word, and no segment
// that failed, it says there was no speech.
func (t *Transcript) End() Result {
	return Result{Text: t.text(nil), Final: true, EOS: true, Words: append([]Word(nil), t.words...), NoSpeech: len(t.words) == 0 && !t.failed}
}

func (t *Transcript) text(extra *Word) string {
	var parts []string
	for _, w := range t.words {
		parts = append(parts, w.Word)
	}
	if extra != nil {
		parts = append(parts, extra.Word)
	}
	return strings.Join(parts, " ")
}

// WordSpotter is the whole isolated-word recogniser in one process:
// segmenter, word vectors, map and read-out, transcript. The NATS pipeline
// runs the same steps as separate stages.
type WordSpotter struct {
	seg   *Segmenter
	cls   *WordClassifier
	voice *VoiceSession // a stream is one voice, estimated as it speaks
	tr    Transcript
}

// NewWordSpotter starts a recogniser for input at rate Hz.
func NewWordSpotter(c *WordClassifier, cfg SpotterConfig, rate int) (*WordSpotter, error) {
	seg, err := NewSegmenter(c.Config, cfg, rate)
	if err != nil {
		return nil, err
	}
	return &WordSpotter{seg: seg, cls: c, voice: c.NewVoiceSession(), tr: Transcript{Labels: c.Model.Labels}}, nil
}

// Session is the voice session the spotter's words join.
func (w *WordSpotter) Session() *VoiceSession { return w.voice }

// SetSession makes the spotter's words join s, a session other spotters
// of the same voice share (one spotter after another: a session is not
// safe for concurrent use), instead of a session of its own; call it
// before the first Push. So a voice's recordings, each its own stream,
// teach the session as one long stream would.
func (w *WordSpotter) SetSession(s *VoiceSession) { w.voice = s }

// SetSelfTrain turns the stream's session self-training (on by default
// when the model can adapt: VoiceSession.SelfTrain) on or off; call it
// before the first Push.
func (w *WordSpotter) SetSelfTrain(on bool) { w.voice.SelfTrain = on && w.cls.CanAdapt() }

// Push adds samples and returns the results they complete.
func (w *WordSpotter) Push(pcm []float32) []Result { return w.results(w.seg.Push(pcm), false) }

// Flush ends the stream; the last result has EOS set.
func (w *WordSpotter) Flush() []Result { return w.results(w.seg.Flush(), true) }

func (w *WordSpotter) results(segs []Segment, end bool) []Result {
	var out []Result
	for _, s := range segs {
		v, err := w.cls.SegmentVector(s)
		if err != nil {
			out = append(out, w.tr.Error(s, err))
			continue
		}
		// Only a final segment joins the voice's estimate: a partial one is
		// the same word, heard again when it ends.
		if err := w.voice.Normalise(v, s.Final); err != nil {
			// Only a self-training can fail here; the word is still
			// normalised and is recognised with the read-out in use.
			out = append(out, w.tr.Error(s, err))
		}
		out = append(out, w.tr.Add(s, w.voice.Score(v)))
	}
	if end {
		r := w.tr.End()
		r.Voice = w.voice.Progress()
		out = append(out, r)
	}
	return out
}
