package streaming

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream"
)

// The decoder stage turns each stream's scores (word model) or HMM-state
// log-likelihoods (connected model) into results on the stream's result
// subject, in the order of its segments. Its state per stream is under its
// own lock (s.decMu), apart from the frontend's, so the two stages may run
// in one process without waiting for each other.

// decStream is the decoder stage's state for one stream.
type decStream struct {
	reorder
	tr    rfstream.Transcript           // word model
	ct    *rfstream.ConnectedTranscript // connected model
	count int                           // segments announced by the EOS marker; -1 before it
	voice *rfstream.VoiceProgress       // from the EOS marker, for the end-of-stream result
	last  time.Time
}

// onScores handles one message from the features stage: the reorder window
// puts it in sequence, each message now in order becomes a result, and once
// the end-of-stream marker's count of segments is reached the stream's
// end-of-stream result follows.
func (s *Stages) onScores(m *nats.Msg) {
	stream := StreamOf(m.Subject)
	if !s.owns(stream) {
		return
	}
	s.decMu.Lock()
	defer s.decMu.Unlock()
	if _, done := s.decEnded[stream]; done {
		// A redelivered copy after the stream's final result.
		s.stats.duplicates.Add(1)
		return
	}
	st := s.dec[stream]
	if st == nil {
		st = &decStream{reorder: reorder{pending: map[int]*nats.Msg{}}, count: -1}
		if c := s.p.Connected; c != nil {
			st.ct = rfstream.NewConnectedTranscript(c, s.p.Spotter)
		} else {
			st.tr = rfstream.Transcript{Labels: s.p.Words.Model.Labels}
		}
		s.dec[stream] = st
	}
	st.last = time.Now()
	defer func() { st.last = time.Now() }()
	if headerBool(m, HdrEOS) {
		n, err := headerInt(m, HdrCount, -1)
		if err != nil || n < 0 {
			s.errorResult(stream, "end-of-stream marker without a valid %s", HdrCount)
			return
		}
		st.count = n
		if m.Header.Get(HdrVoiceRecordings) != "" {
			n, err1 := headerInt(m, HdrVoiceRecordings, -1)
			k, err2 := headerInt(m, HdrVoiceAdaptedOn, -1)
			if err1 != nil || err2 != nil || n < 0 || k < 0 || k > n {
				s.errorResult(stream, "end-of-stream marker with a voice progress of %q recordings, adapted on %q", m.Header.Get(HdrVoiceRecordings), m.Header.Get(HdrVoiceAdaptedOn))
			} else {
				st.voice = &rfstream.VoiceProgress{Recordings: n, AdaptedOn: k}
			}
		}
	} else {
		seq, err := headerSeq(m)
		if err != nil {
			s.errorResult(stream, "scores %v", err)
			return
		}
		if !st.add(seq, m) {
			s.stats.duplicates.Add(1)
			return
		}
	}
	for {
		msg, ok := st.take()
		if !ok {
			break
		}
		if headerBool(msg, HdrSkipped) {
			continue // a partial shed by the features stage: no result
		}
		seg := rfstream.Segment{Seq: st.next - 1, Start: headerFloat(msg, HdrStart), End: headerFloat(msg, HdrEnd), Final: headerBool(msg, HdrFinal)}
		if e := msg.Header.Get(HdrError); e != "" {
			s.publishResult(stream, st.fail(seg, errors.New(e)))
		} else {
			s.publishResult(stream, st.result(s.p.Connected, seg, msg.Data))
		}
	}
	if st.count >= 0 && st.next >= st.count {
		s.publishResult(stream, st.end())
		delete(s.dec, stream)
		s.decEnded[stream] = time.Now()
	}
}

// result turns a segment's scores (word model) or log-likelihoods (connected
// model) into the stream's result.
func (st *decStream) result(c *rfstream.Connected, seg rfstream.Segment, data []byte) rfstream.Result {
	v, err := DecodeF32(data)
	if c == nil {
		if err != nil || len(v) != len(st.tr.Labels) {
			return st.tr.Error(seg, fmt.Errorf("scores of %d bytes for %d labels", len(data), len(st.tr.Labels)))
		}
		return st.tr.Add(seg, v)
	}
	k := c.Classes()
	if err != nil || len(v) == 0 || len(v)%k != 0 {
		return st.ct.Error(seg, fmt.Errorf("log-likelihoods of %d bytes for %d states", len(data), k))
	}
	words, err := c.DecodeWords(blas32.General{Rows: len(v) / k, Cols: k, Stride: k, Data: v})
	if err != nil {
		return st.ct.Error(seg, err)
	}
	return st.ct.Add(seg, words)
}

func (st *decStream) fail(seg rfstream.Segment, err error) rfstream.Result {
	if st.ct != nil {
		return st.ct.Error(seg, err)
	}
	return st.tr.Error(seg, err)
}

func (st *decStream) end() rfstream.Result {
	if st.ct != nil {
		return st.ct.End()
	}
	r := st.tr.End()
	r.Voice = st.voice
	return r
}

// endDecoderIdle closes a stream whose scores stopped short of its
// end-of-stream marker (segments lost between the stages), with s.decMu
// held: an error result names what is missing, then the end-of-stream
// result carries the words that were decoded.
func (s *Stages) endDecoderIdle(stream string, st *decStream) {
	missing := "the end-of-stream marker"
	if st.count >= 0 {
		missing = fmt.Sprintf("segments %d..%d", st.next, st.count-1)
	}
	s.stats.lost.Add(1)
	s.errorResult(stream, "decoder idle for %v: %s never arrived; ending the stream", 2*s.p.IdleTimeout, missing)
	r := st.end()
	r.NoSpeech = false // what the lost segments held is unknown
	s.publishResult(stream, r)
}
