package streaming

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/engine"
)

// The decoder stage turns each stream's scores (word model) or HMM-state
// log-likelihoods (connected model) into results on the stream's result
// subject, in the order of its segments. Its state per stream is under its
// own lock (decoderStage.mu), apart from the frontend's, so the two stages
// may run in one process without waiting for each other.

// decoderStage is the decoder stage: its streams' state, the streams it
// has ended, and the queue its worker takes their messages from.
type decoderStage struct {
	*core
	mu      sync.Mutex // guards streams and ended
	streams map[string]*decStream
	ended   *endedStreams
	queue   *fairQueue // the streams' messages (fair.go)
}

func newDecoderStage(c *core) *decoderStage {
	return &decoderStage{core: c, streams: map[string]*decStream{}, ended: newEndedStreams(c.p.MaxEnded),
		queue: newFairQueue(c.p.MaxStreamQueue, c.p.MaxStageQueue)}
}

// start subscribes the decoder to what the features stage sends it and
// starts its worker.
func (s *decoderStage) start(svc micro.Service) error {
	_, toDecoder := s.p.audioKinds()
	err := s.storedInput(svc, toDecoder, Wildcard(s.p.Name, toDecoder), s.admitScores)
	s.serveTurns(s.queue, s.decItem)
	return err
}

// admitScores is the decoder's subscription callback. A stream whose
// scores queue past MaxStreamQueue is ended by its closing item with the
// words decoded until then; its later messages find it ended and are
// dropped.
func (s *decoderStage) admitScores(m *nats.Msg, replayed bool) {
	stream := StreamOf(m.Subject)
	if !s.owns(stream) {
		return
	}
	if !s.queue.push(stream, work{m: m, size: len(m.Data), replayed: replayed}, false) {
		s.stats.dropped.Add(1)
		s.queue.push(stream, closing(m.Subject, fmt.Sprintf("the stream has more segments queued at the decoder than the %d bytes a stream may (serve --max-stream-queue-mib)", s.p.MaxStreamQueue)), true)
	}
}

// decStream is the decoder stage's state for one stream.
type decStream struct {
	reorder
	tr    engine.Transcript           // word model
	ct    *engine.ConnectedTranscript // connected model
	count int                         // segments announced by the EOS marker; -1 before it
	voice *engine.VoiceProgress       // from the EOS marker, for the end-of-stream result
	last  time.Time
	// lastEnd is where the final segments taken so far end (seconds), so
	// where a gap after them starts; streamEnd is the stream's length from the
	// EOS marker (HdrEnd), nil before it.
	lastEnd   float64
	streamEnd *float64
	gaps      []engine.Gap
	// part is the frontend part (HdrPart) whose segments the reorder
	// window numbers; a later part replaces it (newPart).
	part int
}

// onScores handles one message from the features stage: the reorder window
// puts it in sequence, each message now in order becomes a result, and once
// the end-of-stream marker's count of segments is reached the stream's
// end-of-stream result follows. A gap is waited for until the stream goes
// idle or the messages held past it reach the decoder's bound
// (decoderOverBound); then it is skipped, its time span reported, and the
// words around it kept.
func (s *decoderStage) onScores(m *nats.Msg) {
	if stream := StreamOf(m.Subject); s.owns(stream) {
		s.handleScores(stream, m)
	}
}

// decItem is the decoder worker's handler for one queued item
// (pipeline.go, serveTurns): a message from the features stage, or the
// item that ends a stream whose queue went over its bound (admitScores).
func (s *decoderStage) decItem(stream string, w work) {
	if w.refuse == "" {
		s.handleScores(stream, w.m)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, done := s.ended.get(stream); done {
		return
	}
	s.errorResult(stream, "%s; the stream is ended with the words decoded so far", w.refuse)
	st := s.streams[stream]
	if st == nil {
		s.publishResult(stream, engine.Result{EOS: true, Final: true, Error: "stream ended at the decoder: " + w.refuse})
		s.ended.add(stream, endedStream{at: time.Now()})
		return
	}
	s.giveUp(stream, st, "the decoder ended the stream over its queue bound", true)
}

// handleScores is onScores for one of this decoder's streams.
func (s *decoderStage) handleScores(stream string, m *nats.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, done := s.ended.get(stream); done {
		// A redelivered copy after the stream's final result.
		s.stats.duplicates.Add(1)
		return
	}
	st := s.streams[stream]
	if st == nil {
		if len(s.streams) >= 2*s.p.MaxStreams {
			// Its frontend admitted it (MaxStreams), so this is a stray:
			// one end-of-stream error result, and its later messages are
			// dropped as copies after the end.
			s.publishResult(stream, engine.Result{EOS: true, Final: true,
				Error: fmt.Sprintf("the decoder serves %d streams, the most it may; stream refused", len(s.streams))})
			s.ended.add(stream, endedStream{at: time.Now()})
			return
		}
		st = &decStream{reorder: reorder{pending: map[int]*nats.Msg{}}, count: -1}
		if c := s.p.Connected; c != nil {
			st.ct = engine.NewConnectedTranscript(c, s.p.Spotter)
		} else {
			st.tr = engine.Transcript{Labels: s.p.Words.Model.Labels}
		}
		s.streams[stream] = st
	}
	st.last = time.Now()
	defer func() { st.last = time.Now() }()
	part, err := headerInt(m, HdrPart, 0)
	switch {
	case err != nil || part < 0:
		s.errorResult(stream, "segment message with a %s header %s that is not a sequence number; dropped", HdrPart, clipQuote(m.Header.Get(HdrPart)))
		return
	case part < st.part:
		// Numbered by a frontend the stream has since moved on from.
		s.stats.duplicates.Add(1)
		return
	case part > st.part:
		s.newPart(stream, st, part)
	}
	if headerBool(m, HdrEOS) {
		n, err := headerInt(m, HdrCount, -1)
		if err != nil || n < 0 {
			// Still the stream's end: what arrived is its transcript.
			s.errorResult(stream, "end-of-stream marker without a valid %s", HdrCount)
			s.giveUp(stream, st, "its end-of-stream marker did not say how many segments came before it", false)
			return
		}
		st.count = n
		if e := m.Header.Get(HdrEnd); e != "" {
			if v, err := strconv.ParseFloat(e, 64); err == nil && v >= 0 && !math.IsInf(v, 0) {
				st.streamEnd = &v
			}
		}
		if m.Header.Get(HdrVoiceRecordings) != "" {
			n, err1 := headerInt(m, HdrVoiceRecordings, -1)
			k, err2 := headerInt(m, HdrVoiceAdaptedOn, -1)
			if err1 != nil || err2 != nil || n < 0 || k < 0 || k > n {
				s.errorResult(stream, "end-of-stream marker with a voice progress of %s recordings, adapted on %s", clipQuote(m.Header.Get(HdrVoiceRecordings)), clipQuote(m.Header.Get(HdrVoiceAdaptedOn)))
			} else {
				st.voice = &engine.VoiceProgress{Recordings: n, AdaptedOn: k}
			}
		}
	} else {
		seq, err := headerSeq(m)
		if err != nil {
			s.errorResult(stream, "scores %v", err)
			return
		}
		if _, dup := st.pending[seq]; !dup && seq > st.next {
			// Gaps are given up on, earliest first, until m fits.
			for len(st.pending) > 0 && s.decoderOverBound(st, m) {
				s.skipGap(stream, st, fmt.Sprintf("the decoder held %d messages (%d bytes) past it, its bound", len(st.pending), st.bytes))
			}
		}
		if !st.add(seq, m) {
			s.stats.duplicates.Add(1)
			return
		}
	}
	s.drain(stream, st)
	if st.count >= 0 && st.next >= st.count {
		s.endDecoded(stream, st)
	}
}

// Bounds on what the decoder holds for one stream past a gap: more
// messages than the frontend's window, since features workers in a queue
// group (and a durable consumer's redelivery) may reorder a stream's
// segments widely, and 4 × MaxHeldBytes, since one connected-model
// utterance's log-likelihoods may take most of a server's 1 MiB message.
const decoderWindowFactor, decoderBytesFactor = 16, 4

// decoderOverBound reports whether holding m would take st past the
// decoder's bound.
func (s *decoderStage) decoderOverBound(st *decStream, m *nats.Msg) bool {
	return len(st.pending) >= decoderWindowFactor*s.p.Window || st.bytes+len(m.Data) > decoderBytesFactor*s.p.MaxHeldBytes
}

// drain turns a stream's held messages into results while they are in
// sequence.
func (s *decoderStage) drain(stream string, st *decStream) {
	for {
		msg, ok := st.take()
		if !ok {
			return
		}
		if why := msg.Header.Get(HdrGap); why != "" {
			// Audio that never reached the frontend. Its words that did
			// (closed before it) may still follow, so the gap starts where
			// the audio stopped, or where the last word closed when that
			// is later (a part that took the stream up: what its
			// predecessor heard after that word is unknown).
			end := headerFloat(msg, HdrEnd)
			s.reportGap(stream, st, engine.Gap{Start: min(max(headerFloat(msg, HdrStart), st.lastEnd), end), End: &end, Reason: why})
			continue
		}
		if headerBool(msg, HdrFinal) {
			// A gap after it starts where the last closed word ended.
			st.lastEnd = max(st.lastEnd, headerFloat(msg, HdrEnd))
		}
		if headerBool(msg, HdrSkipped) {
			continue // a partial shed by the features stage: no result
		}
		seg := engine.Segment{Seq: st.next - 1, Start: headerFloat(msg, HdrStart), End: headerFloat(msg, HdrEnd), Final: headerBool(msg, HdrFinal)}
		if e := msg.Header.Get(HdrError); e != "" {
			s.publishResult(stream, st.fail(seg, errors.New(e)))
		} else {
			s.publishResult(stream, st.result(s.p.Connected, seg, msg.Data))
		}
	}
}

// skipGap gives up on the segments missing before the earliest one held,
// if any are held: it reports the gap's time span, from the end of the
// segments before it to the start of the one after it, in an error result
// that keeps the words heard so far, and goes on with what is held.
func (s *decoderStage) skipGap(stream string, st *decStream, why string) {
	if len(st.pending) == 0 {
		return
	}
	from, to := st.skip()
	end := headerFloat(st.pending[to+1], HdrStart)
	s.stats.lost.Add(countedLost(from, to))
	s.reportGap(stream, st, engine.Gap{Start: st.lastEnd, End: &end, Reason: fmt.Sprintf("segments %d..%d never arrived; %s", from, to, why)})
	s.drain(stream, st)
}

// reportGap records a gap and says so in an error result that carries the
// words heard so far.
func (s *decoderStage) reportGap(stream string, st *decStream, g engine.Gap) {
	if len(g.Reason) > maxGapReason {
		g.Reason = strings.ToValidUTF8(g.Reason[:maxGapReason], "") + "…"
	}
	st.gaps = appendGap(st.gaps, g)
	span := fmt.Sprintf("%.2fs on", g.Start)
	if g.End != nil {
		span = fmt.Sprintf("%.2f-%.2fs", g.Start, *g.End)
	}
	heard := st.end()
	s.publishResult(stream, engine.Result{Text: heard.Text, Words: heard.Words, Gaps: []engine.Gap{g},
		Error: fmt.Sprintf("gap %s: %s; the words around it are kept", span, g.Reason)})
}

// maxGaps bounds the gaps a stream's end-of-stream result lists, and
// maxGapReason the length of each reason, so that a client whose every
// message jumps its offset (each a gap to the frontend) costs the decoder a
// bounded amount however long the stream runs.
const (
	maxGaps      = 64
	maxGapReason = 256
)

// appendGap adds g to gaps; past maxGaps it widens the last gap to cover g
// instead, so the list still spans every stretch that was missing.
func appendGap(gaps []engine.Gap, g engine.Gap) []engine.Gap {
	if len(gaps) < maxGaps {
		return append(gaps, g)
	}
	last := &gaps[len(gaps)-1]
	last.End = g.End
	const merged = "later gaps merged into this one (the stream had more than the gaps a result lists)"
	if !strings.HasSuffix(last.Reason, merged) {
		last.Reason += "; " + merged
	}
	return gaps
}

// newPart turns a stream over to the segments of a frontend that took it
// up mid-way (HdrPart part, numbered from 0 again), with s.mu held: the
// earlier part's held segments are decoded, skipping the gaps among them,
// and what it never delivered falls in the gap the new part's first
// segment, a gap marker from the stream's start, reports.
func (s *decoderStage) newPart(stream string, st *decStream, part int) {
	for len(st.pending) > 0 {
		s.skipGap(stream, st, "the frontend that numbered them stopped, and another took the stream up")
	}
	st.reorder = reorder{pending: map[int]*nats.Msg{}}
	st.count, st.streamEnd, st.part = -1, nil, part
}

// giveUp ends a stream whose segments stopped short (lost between the
// stages) or whose end-of-stream marker was malformed, with s.mu held:
// every gap among the held segments is skipped and reported, then the
// missing tail (unless the stream's length in segments is unknown because
// its malformed marker did arrive), and the end-of-stream result carries
// every word decoded.
func (s *decoderStage) giveUp(stream string, st *decStream, why string, tail bool) {
	for len(st.pending) > 0 {
		s.skipGap(stream, st, why)
	}
	switch {
	case !tail:
	case st.count < 0:
		s.reportGap(stream, st, engine.Gap{Start: st.lastEnd, Reason: "nothing after it arrived, not even the end-of-stream marker; " + why})
	case st.next < st.count:
		s.stats.lost.Add(countedLost(st.next, st.count-1))
		s.reportGap(stream, st, engine.Gap{Start: st.lastEnd, End: st.streamEnd,
			Reason: fmt.Sprintf("segments %d..%d never arrived; %s", st.next, st.count-1, why)})
	}
	s.endDecoded(stream, st)
}

// endDecoded publishes a stream's end-of-stream result and forgets it.
func (s *decoderStage) endDecoded(stream string, st *decStream) {
	r := st.end()
	if len(st.gaps) > 0 {
		r.Gaps = st.gaps
		r.NoSpeech = false // what the gaps held is unknown
	}
	s.publishResult(stream, r)
	delete(s.streams, stream)
	s.ended.add(stream, endedStream{at: time.Now()})
}

// result turns a segment's scores (word model) or log-likelihoods (connected
// model) into the stream's result.
func (st *decStream) result(c *engine.Connected, seg engine.Segment, data []byte) engine.Result {
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

func (st *decStream) fail(seg engine.Segment, err error) engine.Result {
	if st.ct != nil {
		return st.ct.Error(seg, err)
	}
	return st.tr.Error(seg, err)
}

func (st *decStream) end() engine.Result {
	if st.ct != nil {
		return st.ct.End()
	}
	r := st.tr.End()
	r.Voice = st.voice
	return r
}

// endDecoderIdle closes a stream whose messages stopped short of its end,
// with s.mu held (the sweep's): the words decoded are kept, and the
// gaps, held segments skipped over and the missing tail, reported.
func (s *decoderStage) endDecoderIdle(stream string, st *decStream) {
	s.giveUp(stream, st, fmt.Sprintf("the decoder waited %v for them", 2*s.p.IdleTimeout), true)
}

// restartIdleClocks counts every stream's idle time from now (the sweep's,
// after the connection was away).
func (s *decoderStage) restartIdleClocks(now time.Time) {
	s.mu.Lock()
	for _, st := range s.streams {
		st.last = now
	}
	s.mu.Unlock()
}

// expire ends the decoder's idle streams and forgets ended streams (the
// sweep's, pipeline.go), as frontendStage.expire does, after twice the
// idle timeout.
func (s *decoderStage) expire(now time.Time) {
	s.mu.Lock()
	var idle []string
	for name, st := range s.streams {
		if now.Sub(st.last) > 2*s.p.IdleTimeout {
			idle = append(idle, name)
		}
	}
	s.ended.expire(now.Add(-10 * s.p.IdleTimeout))
	s.mu.Unlock()
	for i, name := range idle {
		s.mu.Lock()
		if st := s.streams[name]; st != nil && time.Since(st.last) > 2*s.p.IdleTimeout && !s.queue.busy(name) {
			s.endDecoderIdle(name, st)
		}
		s.mu.Unlock()
		if !s.pace(i) {
			return
		}
	}
}
