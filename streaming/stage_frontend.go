package streaming

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/engine"
)

// The frontend stage turns each stream's PCM into segments for the
// features stage: word vectors for a word model, frames for a connected
// one. Its state per stream is under one lock (frontendStage.mu), so it
// handles one message at a time, whatever the stream. Read top-down, one
// PCM message goes admitPCM (the audio rate and queue bounds, admit.go) →
// frontItem, in the stream's turn → handlePCM (its sequence number,
// duplicates, ended streams) → advance (the reorder window) → frontMessage
// (headers, the stream's segmenter and voice session) → placeSegment (the
// stream's time over missing audio, audiogap.go) → publishSegment (set
// aside while the voice self-trains: release) → publishSegmentNow (the
// word vector or frames, out). A stream ends through endSegments →
// finishStream → endMessage, or, gone quiet, through endIdle, which expire
// calls for the sweep (pipeline.go). Named voices' sessions and their
// files are voices.go's (voiceSessions).

// frontendStage is the frontend stage: its streams' state, the streams it
// has ended, its named voices, the queue its worker takes the streams'
// messages from and their audio rate bound.
type frontendStage struct {
	*core
	mu      sync.Mutex // guards streams, ended and voices
	streams map[string]*frontStream
	// byVoice counts the live streams of each voice named by subject
	// (MaxVoiceStreams).
	byVoice  map[string]int
	ended    *endedStreams
	voices   *voiceSessions
	queue    *fairQueue     // the streams' messages (fair.go)
	buckets  *audioBuckets  // the streams' audio rate bound (admit.go)
	releases sync.WaitGroup // held segments not yet released (release)
}

// frontStream is the frontend stage's state for one stream.
type frontStream struct {
	reorder
	seg   *engine.Segmenter
	voice *engine.VoiceSession // isolated words: the stream's voice
	// voiceName is the voice the stream named (HdrVoice, or its subject),
	// whose session it shares with the voice's other streams; "" for a
	// session of its own.
	voiceName string
	// subjectVoice is the voice in the stream's subject (VoiceSubject),
	// "" for KindPCM; it is part of the stream's name (VoiceStream), so
	// every message of the stream comes by the same subject.
	subjectVoice string
	rate         int
	segments     int // segments (and gap markers) published: the next one's Rfs-Seq
	samples      int // PCM samples accepted, at rate
	// pos is the stream's length so far, at rate: the samples accepted
	// and the stretches of audio that never arrived (skipAudio). lostMsgs
	// counts the messages skipped since the last one handled, chunk the
	// samples of the last one handled (to estimate a missing stretch
	// without HdrOffset), and cuts maps the segmenter's time, which knows
	// only the audio that arrived, to the stream's.
	pos      int64
	lostMsgs int
	chunk    int
	cuts     []audioCut
	// part is the PCM sequence number from which this frontend has had
	// the stream (HdrPart): 0 unless it took the stream up mid-way.
	part int
	last time.Time
	// held are segments set aside, in order, until the voice session's
	// self-training they need has finished (release); heldEnd: the
	// stream's end-of-stream marker follows them.
	held    []engine.Segment
	heldEnd bool
	// takenUp: the stream's first message came from the store, stored
	// before this frontend started (a durable pipeline's restarted frontend
	// taking its open streams up again, resume.go), and replayedUpTo is the
	// highest Rfs-Seq of such a message. rejoined is how many of its next
	// final words its named voice already holds, committed by the frontend
	// before this one (VoiceSession.Open): they are not committed again.
	// Its predecessor heard only stored messages, so the count ends where
	// they do, short of rejoined when the store had lost the stream's
	// first ones (kept an hour).
	takenUp      bool
	replayedUpTo int
	rejoined     int
	// tooBig are the payload sizes of messages over MaxChunkBytes, by
	// sequence number, held in the window without their payloads until
	// their turn comes to be refused.
	tooBig map[int]int
}

func newFrontendStage(c *core) *frontendStage {
	s := &frontendStage{core: c, streams: map[string]*frontStream{}, byVoice: map[string]int{}, ended: newEndedStreams(c.p.MaxEnded),
		queue: newFairQueue(c.p.MaxStreamQueue, c.p.MaxStageQueue), buckets: newAudioBuckets(c.p.MaxAudioRate, c.p.MaxAudioBurst, c.p.MaxStreams+c.p.MaxEnded)}
	s.buckets.voiceRate, s.buckets.voiceBurst = c.p.MaxVoiceAudioRate, c.p.MaxVoiceAudioBurst
	s.voices = &voiceSessions{core: c, byName: map[string]*namedVoice{}, live: s.liveVoices}
	return s
}

// start subscribes the frontend to its streams' PCM and to requests to
// forget a voice, and starts its worker.
func (s *frontendStage) start(svc micro.Service) error {
	// One token after pcm and forget, two after voice: a plain stream's
	// name can never be a voice's stream's.
	err := s.storedInput(svc, KindPCM, Subject(s.p.Name, KindPCM, "*"), s.admitPCM)
	if err == nil {
		err = s.storedInput(svc, KindVoice, VoiceSubject(s.p.Name, "*", "*"), s.admitPCM)
	}
	s.serveTurns(s.queue, s.frontItem)
	if err == nil {
		err = s.endpoint(svc, KindForget, Subject(s.p.Name, KindForget, "*"), "", s.onForget)
	}
	if s.p.Words != nil && !s.p.NoSelfTrain {
		// The sessions' first self-training need not pay for what all of
		// them share (an error comes back then).
		go s.p.Words.PrepareAdaptation()
	}
	return err
}

// admitPCM is the frontend's subscription callback (PCM and voice
// subjects).
func (s *frontendStage) admitPCM(m *nats.Msg, replayed bool) {
	stream := StreamOf(m.Subject)
	if !s.owns(stream) {
		return // another shard's stream: it answers, even to refuse
	}
	w := work{m: m, size: len(m.Data), replayed: replayed}
	if len(m.Data) > MaxChunkBytes {
		// Refused in its turn (frontMessage), but its payload is not
		// kept meanwhile.
		w.m = &nats.Msg{Subject: m.Subject, Header: m.Header}
	}
	drop, why := false, ""
	if !replayed { // its bucket was charged when it first came
		drop, why = s.buckets.take(stream, m, len(w.m.Data))
	}
	if drop {
		s.stats.dropped.Add(1)
		return
	}
	if why == "" && !s.queue.push(stream, w, false) {
		why = fmt.Sprintf("the stream has more audio queued at the frontend than the %d bytes a stream may (serve --max-stream-queue-mib)", s.p.MaxStreamQueue)
	}
	if why != "" {
		s.buckets.refuse(stream)
		s.stats.dropped.Add(1)
		s.queue.push(stream, closing(m.Subject, why), true)
	}
}

// frontItem is the frontend worker's handler for one queued item
// (pipeline.go, serveTurns): a PCM message, or the item that ends a stream
// admission refused (admitPCM).
func (s *frontendStage) frontItem(stream string, w work) {
	if w.refuse != "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, done := s.ended.get(stream); done {
			return // it had ended before the message it was refused for
		}
		s.errorResult(stream, "%s; the stream is ended with the audio taken before, and its later messages are dropped", w.refuse)
		s.endRefused(stream, "it went over a bound")
		return
	}
	s.handlePCM(w.m, w.size, w.replayed)
}

// onPCM handles one PCM message at once (tests; the stage itself queues
// them per stream first: admitPCM).
func (s *frontendStage) onPCM(m *nats.Msg) {
	if stream := StreamOf(m.Subject); s.owns(stream) {
		s.handlePCM(m, len(m.Data), false)
	}
}

// handlePCM handles one PCM message of one of this frontend's streams;
// size is its payload's size as it arrived (admitPCM keeps no payload over
// MaxChunkBytes); replayed, whether it was stored before the stage started.
func (s *frontendStage) handlePCM(m *nats.Msg, size int, replayed bool) {
	stream := StreamOf(m.Subject)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.messages.Add(1)
	// Errors about a stream that has ended are marked as such, since the
	// stream's last stored result tells a restarted stage whether it is
	// open (resume.go).
	_, ended := s.ended.get(stream)
	complain := s.errorResult
	if ended {
		complain = s.endedError
	}
	if v := m.Header.Get(HdrEOS); v != "" && v != "0" && v != "1" {
		// The client meant to end the stream; taking it at its word keeps
		// it from waiting a minute for its end-of-stream result.
		complain(stream, "%s header %s is not 1 (or 0); taken as the end of the stream", HdrEOS, clipQuote(v))
		m.Header.Set(HdrEOS, "1")
	}
	seq, err := headerSeq(m)
	if err != nil {
		complain(stream, "%v", err)
		if headerBool(m, HdrEOS) {
			// The client has said its last word: without this, a stream
			// whose end-of-stream message had no usable number waited for
			// the idle timeout, or never got its end-of-stream result.
			s.endRefused(stream, "its end-of-stream message was refused")
		}
		return
	}
	if e, done := s.ended.get(stream); done {
		if seq < e.next {
			s.stats.duplicates.Add(1) // a late copy of a message already handled
			return
		}
		s.endedResult(stream)
		return
	}
	st := s.streams[stream]
	if st == nil {
		if err := checkStreamName(stream); err != nil {
			s.refuseName(stream, err)
			return
		}
		if len(s.streams) >= s.p.MaxStreams {
			s.refuseStream(stream)
			return
		}
		voice := voiceOf(s.p.Name, m.Subject)
		if voice != "" && s.byVoice[voice] >= s.p.MaxVoiceStreams {
			s.refuseVoiceStream(stream, voice)
			return
		}
		st = &frontStream{reorder: reorder{pending: map[int]*nats.Msg{}}, subjectVoice: voice, takenUp: replayed, replayedUpTo: -1}
		s.streams[stream] = st
		if voice != "" {
			s.byVoice[voice]++
		}
	}
	if replayed {
		st.replayedUpTo = max(st.replayedUpTo, seq)
	}
	st.last = time.Now()
	if size > MaxChunkBytes && seq >= st.next {
		// Refused in its turn (frontMessage), but its payload is not held
		// meanwhile: only its headers wait in the window.
		if st.tooBig == nil {
			st.tooBig = map[int]int{}
		}
		st.tooBig[seq] = size
		m = &nats.Msg{Subject: m.Subject, Header: m.Header}
	}
	if _, dup := st.pending[seq]; !dup && seq > st.next && st.bytes+len(m.Data) > s.p.MaxHeldBytes {
		// Checked before the message is held, so a stream that withholds
		// a message holds at most MaxHeldBytes, not Window full messages.
		s.errorResult(stream, "holding %d bytes past the gap at message %d, and message %d would take it over the %d bytes a stream may hold; giving up on the gap",
			st.bytes, st.next, seq, s.p.MaxHeldBytes)
		if s.advance(stream, st, true) {
			s.endFront(stream, st)
			s.endedResult(stream)
			return
		}
		if seq < st.next {
			s.errorResult(stream, "message %d came after the stream stopped waiting for it; dropped", seq)
			return
		}
	}
	if !st.add(seq, m) {
		s.stats.duplicates.Add(1)
		return
	}
	// Idle time counts from the end of the work, so a stage starved of CPU
	// does not take its own slowness for a silent client.
	defer func() { st.last = time.Now() }()
	if s.advance(stream, st, false) {
		s.endFront(stream, st)
	}
}

// refuseStream turns away a new stream while MaxStreams are served, with
// s.mu held: its one end-of-stream result is an error that says why, and
// its later messages are dropped as copies of an ended stream's (until the
// ended stream is forgotten, 10 idle timeouts on, when a retry may start).
func (s *frontendStage) refuseStream(stream string) {
	s.publishResult(stream, engine.Result{EOS: true, Final: true,
		Error: fmt.Sprintf("stream refused: this pipeline serves %d streams, the most it takes (serve --max-streams); try again later", len(s.streams))})
	s.ended.add(stream, endedStream{at: time.Now(), next: MaxSeq + 1})
}

// refuseVoiceStream turns away a new stream of a voice that has
// MaxVoiceStreams streams live, as refuseStream does, with s.mu held: under
// per-client accounts a voice is a client, so no client holds more than
// its share of the pipeline's streams.
func (s *frontendStage) refuseVoiceStream(stream, voice string) {
	s.publishResult(stream, engine.Result{EOS: true, Final: true,
		Error: fmt.Sprintf("stream refused: the voice %q has %d streams live, the most one voice may (serve --max-voice-streams); end one first", voice, s.byVoice[voice])})
	s.ended.add(stream, endedStream{at: time.Now(), next: MaxSeq + 1})
}

// forget drops a stream's state, with s.mu held.
func (s *frontendStage) forget(stream string, st *frontStream) {
	delete(s.streams, stream)
	if v := st.subjectVoice; v != "" {
		if s.byVoice[v]--; s.byVoice[v] <= 0 {
			delete(s.byVoice, v)
		}
	}
}

// refuseName turns away a new stream whose name is no valid stream (or
// voice) name, as refuseStream does, with s.mu held.
func (s *frontendStage) refuseName(stream string, err error) {
	s.publishResult(stream, engine.Result{EOS: true, Final: true, Error: "stream refused: " + err.Error()})
	s.ended.add(stream, endedStream{at: time.Now(), next: MaxSeq + 1})
}

// endFront forgets an ended stream's state, remembering its end, with
// s.mu held.
func (s *frontendStage) endFront(stream string, st *frontStream) {
	s.forget(stream, st)
	s.ended.add(stream, endedStream{at: time.Now(), next: st.next})
}

// endRefused ends a stream whose end-of-stream message was refused for its
// sequence number, or which went over an admission bound (what says which),
// with s.mu held: what it holds is handled, gaps skipped and reported, and
// the stream gets its one end-of-stream result (an error one if it never
// started). A stream already ended has had its result.
func (s *frontendStage) endRefused(stream, what string) {
	if _, done := s.ended.get(stream); done {
		return
	}
	st := s.streams[stream]
	switch {
	case st == nil:
		s.endUnstarted(stream, what+", and no earlier message arrived")
		s.ended.add(stream, endedStream{at: time.Now()})
		return
	case s.advance(stream, st, true):
	case st.seg == nil:
		s.endUnstarted(stream, what+", and no earlier message was accepted")
	default:
		s.endSegments(stream, st)
	}
	s.endFront(stream, st)
}

// advance handles a stream's held messages in sequence, with s.mu held.
// A gap is waited for until more than Window later messages are held (or
// at once with force); then it is reported lost and skipped. It reports
// whether the stream ended.
func (s *frontendStage) advance(stream string, st *frontStream, force bool) bool {
	for {
		msg, ok := st.take()
		if !ok {
			if len(st.pending) == 0 || (!force && len(st.pending) <= s.p.Window) {
				return false
			}
			from, to := st.skip()
			st.lostMsgs += to - from + 1
			s.stats.lost.Add(countedLost(from, to))
			s.errorResult(stream, "messages %d..%d never arrived; continuing without them", from, to)
			continue
		}
		if s.frontMessage(stream, st, msg) {
			return true
		}
	}
}

// frontMessage handles one in-order PCM message with s.mu held and
// reports whether the stream ended.
func (s *frontendStage) frontMessage(stream string, st *frontStream, m *nats.Msg) bool {
	eos := headerBool(m, HdrEOS)
	fail := func(format string, args ...any) bool {
		s.errorResult(stream, format, args...)
		switch {
		case !eos:
		case st.seg != nil:
			s.endSegments(stream, st)
		default:
			s.endUnstarted(stream, "its last message was refused, and no earlier one was accepted")
		}
		return eos
	}
	if n, big := st.tooBig[st.next-1]; big { // take has moved next past it
		delete(st.tooBig, st.next-1)
		return fail("message %d of %d bytes exceeds the %d-byte limit; dropped", st.next-1, n, MaxChunkBytes)
	}
	rate, err := headerInt(m, HdrRate, st.rate)
	if err != nil {
		return fail("%v", err)
	}
	voice := m.Header.Get(HdrVoice)
	switch {
	case st.subjectVoice != "":
		if voice != "" && voice != st.subjectVoice {
			return fail("%s header %s differs from the voice %q of the subject; message dropped", HdrVoice, clipQuote(voice), st.subjectVoice)
		}
		voice = st.subjectVoice
	case voice != "" && s.p.VoicesBySubject:
		return fail("this pipeline takes a voice's name from the subject (%s), not from the %s header; message dropped",
			VoiceSubject(s.p.Name, "<voice>", stream), HdrVoice)
	case voice != "" && s.p.Shards > 1:
		// The header's voice could be another shard's.
		return fail("this pipeline's streams are split between %d frontends, which find a voice by its subject (%s), not by the %s header; message dropped",
			s.p.Shards, VoiceSubject(s.p.Name, "<voice>", stream), HdrVoice)
	}
	if voice != "" && voice != st.voiceName { // checked once, not on every message
		if err := CheckName("voice", voice); err != nil {
			return fail("voice: %v; message dropped", err)
		}
	}
	if st.seg == nil {
		if rate <= 0 {
			return fail("the first message of a stream needs an %s header", HdrRate)
		}
		seg, err := s.p.newSegmenter(rate)
		if err != nil {
			return fail("%v", err)
		}
		st.seg, st.rate = seg, rate
		st.part = st.next - 1 // take has moved next past this message
		st.voiceName = voice
		switch {
		case s.p.Words == nil: // a connected-word model has no voice sessions
		case voice != "":
			// A named voice is claimed when its stream starts, so a live
			// stream keeps its session from being evicted.
			st.voice = s.voices.streamVoice(stream, voice)
			s.voices.rejoinVoice(stream, st)
		default:
			st.voice = s.voices.newVoiceSession()
		}
	} else if rate != st.rate {
		return fail("sample rate changed from %d to %d Hz within the stream; message dropped", st.rate, rate)
	} else if voice != "" && voice != st.voiceName {
		return fail("voice changed from %q to %q within the stream; message dropped", st.voiceName, voice)
	}
	enc := EncS16
	if m.Header != nil && m.Header.Get(HdrEncoding) != "" {
		enc = m.Header.Get(HdrEncoding)
	}
	pcm, err := DecodePCM(m.Data, enc)
	if err != nil {
		return fail("%v", err)
	}
	offset, err := headerOffset(m)
	if err != nil {
		return fail("%v", err)
	}
	if missing := st.missing(offset, len(pcm)); missing > 0 {
		s.skipAudio(stream, st, missing)
	}
	st.lostMsgs, st.chunk = 0, len(pcm)
	st.samples += len(pcm)
	st.pos += int64(len(pcm))
	if st.next-1 > st.replayedUpTo { // take has moved next past this message
		st.rejoined = 0 // no frontend before this one heard it
	}
	for _, seg := range st.seg.Push(pcm) {
		s.placeSegment(stream, st, seg)
	}
	if eos {
		s.endSegments(stream, st)
	}
	return eos
}

// skipAudio moves the stream's clock over missing samples and sends the
// decoder a gap marker for them, with s.mu held.
func (s *frontendStage) skipAudio(stream string, st *frontStream, missing int64) {
	rate := float64(st.rate)
	from, to := float64(st.pos)/rate, float64(st.pos+missing)/rate
	at := float64(st.samples) / rate
	for len(st.cuts) > 1 && st.cuts[1].at < at-cutsKept {
		st.cuts = st.cuts[1:]
	}
	st.cuts = append(st.cuts, audioCut{at: at, shift: to - at})
	st.pos += missing
	s.publishSegment(stream, st, engine.Segment{Start: from, End: to}) // no Audio: a gap marker
}

// placeSegment gives a segment the stream's times and publishes it, unless
// its audio straddles a missing stretch, with s.mu held. The segmenter
// knows only the audio that arrived, so it may join a word before the
// stretch with one after it: such a word is dropped, and its final
// segment's span, in the stream's time, sent as a gap marker instead.
func (s *frontendStage) placeSegment(stream string, st *frontStream, seg engine.Segment) {
	for _, c := range st.cuts {
		if seg.Start < c.at && seg.End > c.at {
			if seg.Final {
				s.publishSegment(stream, st, engine.Segment{Start: st.streamTime(seg.Start), End: st.streamTime(seg.End), Final: true})
			}
			return
		}
	}
	seg.Start, seg.End = st.streamTime(seg.Start), st.streamTime(seg.End)
	s.publishSegment(stream, st, seg)
}

// publishSegment computes a segment's word vector, or for a connected
// model its frames before splicing (frontend work), and hands it to the
// features stage. A segment whose voice session is busy self-training
// (and every later one of its stream) is set aside instead, so that the
// stage, which serves all streams on one goroutine, never waits for it.
func (s *frontendStage) publishSegment(stream string, st *frontStream, seg engine.Segment) {
	if len(st.held) > 0 {
		st.held = append(st.held, seg)
		return
	}
	if st.voice != nil {
		if busy := sessionBusy(st.voice); busy != nil {
			st.held = append(st.held, seg)
			s.releases.Add(1)
			go s.release(stream, st, busy)
			return
		}
	}
	s.publishSegmentNow(stream, st, seg)
}

// sessionBusy is VoiceSession.Busy (tests replace it).
var sessionBusy = (*engine.VoiceSession).Busy

// release publishes a stream's held segments once busy is closed, in
// order, setting them aside again if a later one needs a self-training
// still running, then the end-of-stream marker if it came meanwhile.
func (s *frontendStage) release(stream string, st *frontStream, busy <-chan struct{}) {
	defer s.releases.Done()
	<-busy
	s.mu.Lock()
	defer s.mu.Unlock()
	held := st.held
	st.held = nil
	for i, seg := range held {
		if busy := sessionBusy(st.voice); busy != nil {
			st.held = held[i:]
			s.releases.Add(1)
			go s.release(stream, st, busy)
			return
		}
		s.publishSegmentNow(stream, st, seg)
	}
	if st.heldEnd {
		st.heldEnd = false
		s.finishStream(stream, st) // the words it held have joined the voice
	}
}

func (s *frontendStage) publishSegmentNow(stream string, st *frontStream, seg engine.Segment) {
	kind, _ := s.p.audioKinds()
	m := nats.NewMsg(Subject(s.p.Name, kind, stream))
	m.Header.Set(HdrSeq, strconv.Itoa(st.segments))
	m.Header.Set(HdrPart, strconv.Itoa(st.part))
	m.Header.Set(HdrStart, strconv.FormatFloat(seg.Start, 'g', -1, 64))
	m.Header.Set(HdrEnd, strconv.FormatFloat(seg.End, 'g', -1, 64))
	m.Header.Set(HdrFinal, boolHeader(seg.Final))
	if s.p.Connected != nil && s.p.VoiceDir != "" && st.voiceName != "" {
		m.Header.Set(HdrVoice, st.voiceName) // the features stage scores it with what the voice was taught
	}
	if seg.Audio == nil { // a gap marker (skipAudio, placeSegment)
		why := fmt.Sprintf("the audio from %.2fs to %.2fs never reached the frontend", seg.Start, seg.End)
		if seg.Final {
			why = fmt.Sprintf("a word from %.2fs to %.2fs straddled audio that never reached the frontend; dropped", seg.Start, seg.End)
		}
		m.Header.Set(HdrGap, why)
		m.Header.Set(HdrFinal, "0")
		st.segments++
		s.nc.PublishMsg(m)
		return
	}
	var v []float32
	var err error
	if c := s.p.Connected; c != nil {
		var x blas32.General
		if x, err = c.BaseFrames(seg.Audio); err == nil {
			v = x.Data[:x.Rows*x.Cols]
		}
	} else if v, err = s.p.Words.SegmentVector(seg); err == nil {
		// As engine.WordSpotter: the stream's voice session (its own,
		// or its named voice's), which final segments join, and once the session has self-trained its
		// read-out travels with the vector (the features stage keeps no
		// state per stream).
		commit := seg.Final
		if commit && st.rejoined > 0 {
			st.rejoined-- // its predecessor committed it (rejoinVoice)
			commit = false
		}
		var named *namedVoice
		if nv := s.voices.byName[st.voiceName]; st.voiceName != "" && nv != nil && nv.session == st.voice {
			named = nv
		}
		if commit && named != nil {
			named.last = time.Now()
			if named.session.Open == nil {
				named.session.Open = map[string]int{}
			}
			named.session.Open[stream]++
		}
		if e := st.voice.Normalise(v, commit); e != nil {
			// Only a self-training can fail here (as in WordSpotter, the
			// word goes on with the read-out in use).
			s.errorResult(stream, "word at %.2fs: %v", seg.Start, e)
		}
		if r := st.voice.ReadOut(); r != nil {
			m.Header.Set(HdrReadOut, strconv.Itoa(r.Classes))
			v = append(v, r.W.Data[:r.Dim*r.Classes]...)
		}
	}
	switch {
	case err != nil:
		m.Header.Set(HdrError, err.Error())
	case 4*len(v) > maxPayload(s.nc):
		m.Header.Set(HdrError, fmt.Sprintf("segment of %d values is more than the server's %d-byte message limit", len(v), maxPayload(s.nc)))
	default:
		m.Data = EncodeF32(v)
	}
	st.segments++
	s.nc.PublishMsg(m)
}

func (s *frontendStage) endSegments(stream string, st *frontStream) {
	for _, seg := range st.seg.Flush() {
		s.placeSegment(stream, st, seg)
	}
	if len(st.held) > 0 {
		st.heldEnd = true
		return
	}
	s.finishStream(stream, st)
}

// finishStream sends a stream's end-of-stream marker once its words have
// all joined its voice, with s.mu held. When the stream named a voice and
// VoiceDir keeps it, the voice file is written first, off the lock, and
// the marker follows the write, so a client that has the stream's last
// result finds the file written; a failed write is reported to the stream
// before the marker.
func (s *frontendStage) finishStream(stream string, st *frontStream) {
	end := s.endMessage(stream, st)
	v := s.voices.byName[st.voiceName]
	if st.voiceName == "" || v == nil || v.session != st.voice {
		s.nc.PublishMsg(end)
		return
	}
	v.closeOpen(stream)
	asked, err := s.voices.saveVoice(st.voiceName, v, func(err error) {
		if err != nil {
			s.errorResult(stream, "saving the voice: %v", err)
		}
		s.nc.PublishMsg(end)
	})
	if err != nil {
		s.errorResult(stream, "saving the voice: %v", err)
	}
	if !asked {
		s.nc.PublishMsg(end)
	}
}

// endMessage is a stream's end-of-stream marker for the next stage.
func (s *frontendStage) endMessage(stream string, st *frontStream) *nats.Msg {
	kind, _ := s.p.audioKinds()
	m := nats.NewMsg(Subject(s.p.Name, kind, stream))
	m.Header.Set(HdrEOS, "1")
	m.Header.Set(HdrCount, strconv.Itoa(st.segments))
	m.Header.Set(HdrPart, strconv.Itoa(st.part))
	if st.rate > 0 {
		// The stream's length, where a gap in its last segments ends.
		m.Header.Set(HdrEnd, strconv.FormatFloat(float64(st.pos)/float64(st.rate), 'g', -1, 64))
	}
	if st.voice != nil {
		if p := st.voice.Progress(); p != nil {
			m.Header.Set(HdrVoiceRecordings, strconv.Itoa(p.Recordings))
			m.Header.Set(HdrVoiceAdaptedOn, strconv.Itoa(p.AdaptedOn))
		}
	}
	return m
}

// endIdle ends a stream that went quiet without its end-of-stream message
// (lost, or the client died), with s.mu held: it reports the fact, handles
// what it holds skipping any gap, and closes the stream so the client still
// gets one end-of-stream result.
func (s *frontendStage) endIdle(stream string, st *frontStream) {
	s.errorResult(stream, "stream idle for %v without end-of-stream; ending it with the audio that arrived", s.p.IdleTimeout)
	if s.advance(stream, st, true) {
		return
	}
	if st.seg == nil {
		s.endUnstarted(stream, fmt.Sprintf("no message from %d on with an %s header arrived", st.next, HdrRate))
		return
	}
	s.endSegments(stream, st)
}

// endUnstarted gives a stream that ends before any message started it its
// one end-of-stream result, which its client waits for.
func (s *frontendStage) endUnstarted(stream, why string) {
	s.publishResult(stream, engine.Result{EOS: true, Final: true, Error: "stream never started: " + why})
}

// restartIdleClocks counts every stream's idle time from now (the sweep's,
// after the connection was away).
func (s *frontendStage) restartIdleClocks(now time.Time) {
	s.mu.Lock()
	for _, st := range s.streams {
		st.last = now
	}
	s.mu.Unlock()
}

// expire ends the frontend's idle streams and forgets ended streams and
// idle voices (the sweep's, pipeline.go). The idle streams are listed
// under s.mu and then ended one at a time, each under the lock only for
// its own end, so that other streams' messages are handled in between:
// thousands of streams expiring together once held the lock for seconds.
func (s *frontendStage) expire(now time.Time) {
	s.mu.Lock()
	var idle []string
	for name, st := range s.streams {
		if now.Sub(st.last) > s.p.IdleTimeout {
			idle = append(idle, name)
		}
	}
	s.ended.expire(now.Add(-10 * s.p.IdleTimeout))
	s.voices.expire(now)
	s.mu.Unlock()
	for i, name := range idle {
		s.mu.Lock()
		// Still idle: a message may have come since the list was made.
		if st := s.streams[name]; st != nil && time.Since(st.last) > s.p.IdleTimeout && !s.queue.busy(name) {
			s.endIdle(name, st)
			s.forget(name, st)
			s.ended.add(name, endedStream{at: time.Now(), next: st.next})
		}
		s.mu.Unlock()
		if !s.pace(i) {
			return
		}
	}
}

// liveVoices are the voices named by streams that have not ended.
func (s *frontendStage) liveVoices() map[string]bool {
	live := map[string]bool{}
	for _, st := range s.streams {
		if st.voiceName != "" {
			live[st.voiceName] = true
		}
	}
	return live
}

// onForget forgets a named voice at a client's request (KindForget): its
// session leaves memory and its voice file is deleted, unless a live
// stream names the voice.
func (s *frontendStage) onForget(m *nats.Msg) {
	name := StreamOf(m.Subject)
	if !s.owns(name) {
		return // the voice's shard answers
	}
	answer := ForgetAnswer{Voice: name}
	var err error
	if err = CheckName("voice", name); err == nil {
		s.mu.Lock()
		answer.Forgotten, err = s.voices.forget(name)
		s.mu.Unlock()
	}
	if err != nil {
		answer.Error = err.Error()
	}
	b, _ := json.Marshal(answer)
	s.nc.Publish(Subject(s.p.Name, KindForgotten, name), b)
}
