package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"

	"github.com/rfstream/rfstream/engine"
)

// What the stages share: the Pipeline they run, Start, which subscribes
// them, core (the connection, the counters, the workers' loops, publishing
// results), Stats, Close, and the sweep that ends quiet streams. Each
// stage is a type of its own, with its state and methods in a file of its
// own, stage_<name>.go.

// Stage names, for running only some stages in a process.
const (
	StageFrontend = "frontend" // PCM → word vectors or frames (stateful per stream)
	StageFeatures = "features" // word vectors → class scores, frames → state log-likelihoods (stateless, queue group, batched)
	StageDecoder  = "decoder"  // scores → results, log-likelihoods → Viterbi → results (stateful per stream)
	StageTagger   = "tagger"   // images → top-k tags (stateless, queue group, batched)
)

// AllStages lists every stage.
var AllStages = []string{StageFrontend, StageFeatures, StageDecoder, StageTagger}

// Queue groups of the stateless stages: every member of a group gets a
// share of the messages, which is how they scale across processes.
const (
	QueueFeatures = "rfs-features"
	QueueTagger   = "rfs-tagger"
)

// Pipeline is what a set of stages runs.
type Pipeline struct {
	Name  string
	Words *engine.WordClassifier // isolated-word audio model
	// Connected is a connected-word audio model: the frontend cuts
	// utterances and sends their frames, the features stage turns frames
	// into HMM-state log-likelihoods, the decoder runs Viterbi over them.
	// A pipeline has at most one audio model, Words or Connected.
	Connected *engine.Connected
	// Spotter segments the audio (default: DefaultSpotterConfig for a word
	// model, Connected.StreamConfig for a connected or phone one).
	Spotter engine.SpotterConfig
	Images  *engine.ImageTagger // image model; nil when the pipeline has none
	TopK    int                 // tags per image (default 3)
	// IdleTimeout drops a stream's state after this long without a
	// message (default one minute), with an error result.
	IdleTimeout time.Duration
	// Window is how many messages past a gap are held for reordering
	// before the gap is declared lost (default 64).
	Window int
	// MaxHeldBytes bounds the PCM payload bytes the frontend holds for
	// one stream past a gap (default DefaultMaxHeldBytes). A message that
	// would take a stream's held bytes over it makes the stage give up on
	// the gap at once, as when more than Window messages are held, with an
	// error result that says why; the message is checked before it is held.
	MaxHeldBytes int
	// MaxStreams bounds the streams the frontend stage serves at once
	// (default DefaultMaxStreams), and so the memory they hold (each up to
	// MaxHeldBytes past a gap, plus its segmenter's audio). The first
	// message of a stream beyond it gets one end-of-stream error result
	// that says so, and the stream's later messages are dropped; the
	// streams already served are unaffected. The decoder takes up to twice
	// as many, as a stream's last segments reach it after the frontend has
	// let the stream go.
	MaxStreams int
	// MaxEnded bounds how many ended streams the frontend and the decoder
	// each remember (default DefaultMaxEnded; ended.go), on top of
	// forgetting them 10 idle timeouts after their end: beyond it the
	// oldest are forgotten first. A late copy of a forgotten stream's
	// message is then taken as a new stream's (an error result, or a new
	// stream under the old name).
	MaxEnded int
	// MaxAudioRate and MaxAudioBurst bound the audio one stream may send
	// the frontend: a token bucket of MaxAudioBurst seconds of audio
	// (default DefaultMaxAudioBurst), refilled at MaxAudioRate seconds of
	// audio per second of wall-clock time (default DefaultMaxAudioRate).
	// It is checked as each message arrives, before it is queued
	// (admit.go): the message that would pass it ends the stream with an
	// error result that says so, after the messages queued before it, and
	// the stream's later messages are dropped.
	MaxAudioRate, MaxAudioBurst float64
	// MaxVoiceAudioRate and MaxVoiceAudioBurst are the same bound on all
	// the streams of one voice named by subject (VoiceSubject) together,
	// whatever connections they come on (defaults
	// DefaultMaxVoiceAudioRate, DefaultMaxVoiceAudioBurst): a confined
	// client's streams are its voice's, so opening more streams or more
	// connections does not buy it more audio. The stream whose message
	// passes it is ended as by MaxAudioRate.
	MaxVoiceAudioRate, MaxVoiceAudioBurst float64
	// MaxStreamQueue bounds the payload bytes one stream may have waiting
	// at a stage for the stage's worker (default DefaultMaxStreamQueue),
	// checked before a message is queued: at the frontend and the decoder
	// the message that would pass it ends the stream with an error result,
	// at the features stage the segment is answered with an error.
	// MaxStageQueue bounds what all streams have waiting at a stage
	// (default DefaultMaxStageQueue): beyond it the subscription waits,
	// and the NATS client's pending limit for the subscription, also
	// MaxStageQueue, drops what comes on (a slow-consumer error, which
	// serve logs; docs/streaming.md says what a drop costs a stream).
	MaxStreamQueue, MaxStageQueue int
	// Batch is the most messages the features stage scores in one GEMM
	// (default 64); with ShedPartials it takes up to 8× as many and scores
	// those not shed. The tagger takes up to 8× as many.
	Batch int
	// Durable stores the pipeline's subjects in JetStream and feeds the
	// stateless stages from durable pull consumers with explicit acks
	// (durable.go); the server must have JetStream enabled.
	Durable bool
	// AckWait is how long a durable worker may hold a message before it
	// is redelivered to another (default DefaultAckWait).
	AckWait time.Duration
	// ShedPartials lets the features stage skip a partial word whose
	// stream has a later segment in the same batch: under a backlog the
	// stale guess is not worth a GEMM row, and the final one comes sooner.
	// Final words and end-of-stream results are never skipped, so only the
	// number of partial results changes.
	ShedPartials bool
	// NoSelfTrain keeps each stream's voice session from self-training
	// (engine.VoiceSession.SelfTrain) with an adaptable word model.
	// Self-training costs CPU (about 3 s of two cores a checkpoint for the
	// default adaptable model, one checkpoint at a time per model), and a
	// stream whose next word needs rounds still running waits for them
	// (set aside; other streams go on): with many long streams, turn it
	// off.
	NoSelfTrain bool
	// VoicesBySubject lets a stream name its voice only by its subject
	// (VoiceSubject): a KindPCM message with HdrVoice is refused. NATS
	// permissions on rfs.v1.<pipeline>.voice.<voice>.* (and on
	// rfs.v1.<pipeline>.forget.<voice>) then decide who may speak as, and
	// forget, which voice.
	VoicesBySubject bool
	// MaxVoiceStreams bounds the live streams of one voice named by
	// subject (VoiceSubject; default DefaultMaxVoiceStreams): under
	// per-client accounts a client speaks only as its voice, so this is
	// its share of MaxStreams. One more is refused with an error result.
	MaxVoiceStreams int
	// MaxVoices bounds how many named voices (HdrVoice) the frontend
	// stage keeps sessions for (default 64). A session holds up to
	// engine.LastSessionCheckpoint word vectors (about 6.5 MB for the
	// default adaptable model), so the bound is one on memory. A new voice
	// beyond it replaces the one heard least recently that no live stream
	// names; when every one is in use, the new stream gets a session of
	// its own and an error result says so.
	MaxVoices int
	// VoiceIdle drops a named voice's session after this long without a
	// word from any of its streams (default 24 h).
	VoiceIdle time.Duration
	// VoiceDir keeps named voices' sessions in this directory, one voice
	// file each (engine.VoiceSession.WriteTo) in a folder of the model's
	// (its fingerprint), so they outlive the process: a voice not in
	// memory is read from its file when a stream names it, and its file is
	// written when one of its streams ends (off the frontend's lock, before
	// the stream's end-of-stream marker goes on), when it is dropped from
	// memory (MaxVoices, VoiceIdle) and when the stages close. A file that
	// cannot be read (damaged, or another model's) is renamed aside with
	// ".bad", reported to the stream, and the voice starts afresh. Empty:
	// the sessions live in memory only. With a connected model it is where
	// the voices taught to the model are read from (`rfstream enroll`,
	// taught.go): a stream naming one is scored with what it was taught.
	VoiceDir string
	// Shards splits a pipeline's streams between this many Stages that run
	// the frontend and decoder (default 1: one of each per pipeline, which
	// sees every stream), in as many processes or on as many connections
	// of one; Shard, from 0 to Shards-1, is this one's share: the streams
	// ShardOf gives it. The others'
	// messages are left alone, unanswered, so every frontend and decoder
	// of a pipeline must be given the same Shards and each share must run
	// somewhere. A voice's streams share a shard, which needs the voice in
	// the subject (VoiceSubject): with Shards > 1 the HdrVoice header on
	// KindPCM is refused, as with VoicesBySubject.
	Shard, Shards int

	// Version is the version each stage announces in NATS micro
	// discovery (micro.go): semantic versioning, default
	// DefaultServiceVersion.
	Version string

	// hold, when set (by tests), runs in a stateless stage after a batch
	// is computed (the connected features stage: its first segment) and
	// before anything is published or acknowledged.
	hold func()
	// scored, when set (by tests), runs in the connected features stage
	// after each segment's log-likelihoods are published, with the
	// segment's stream.
	scored func(stream string)
}

// DefaultMaxHeldBytes is Pipeline.MaxHeldBytes's default: a window of 64
// messages of 100 ms of 48 kHz float audio (1.2 MB) fits, while a stream
// that withholds its first message and sends the rest at MaxChunkBytes
// is held to 8 of them instead of 64 (16 MiB).
const DefaultMaxHeldBytes = 2 << 20

// DefaultMaxVoiceStreams is Pipeline.MaxVoiceStreams's default: a person
// speaks in a stream or two at once, a client serving a few callers in
// tens; 64 streams of 1024 leave room for fifteen such clients.
const DefaultMaxVoiceStreams = 64

// DefaultMaxStreams is Pipeline.MaxStreams's default: above the 800
// concurrent real-time streams make bench-stream tries, while 1024 streams
// each holding MaxHeldBytes past a gap stay within 2 GiB.
const DefaultMaxStreams = 1024

func (p *Pipeline) defaults() {
	if p.TopK <= 0 {
		p.TopK = 3
	}
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = time.Minute
	}
	if p.Window <= 0 {
		p.Window = 64
	}
	if p.MaxHeldBytes <= 0 {
		p.MaxHeldBytes = DefaultMaxHeldBytes
	}
	if p.MaxStreams <= 0 {
		p.MaxStreams = DefaultMaxStreams
	}
	if p.MaxVoiceStreams <= 0 {
		p.MaxVoiceStreams = DefaultMaxVoiceStreams
	}
	if p.MaxEnded <= 0 {
		p.MaxEnded = DefaultMaxEnded
	}
	if p.Batch <= 0 {
		p.Batch = 64
	}
	if p.MaxAudioRate <= 0 {
		p.MaxAudioRate = DefaultMaxAudioRate
	}
	if p.MaxAudioBurst <= 0 {
		p.MaxAudioBurst = DefaultMaxAudioBurst
	}
	if p.MaxVoiceAudioRate <= 0 {
		p.MaxVoiceAudioRate = DefaultMaxVoiceAudioRate
	}
	if p.MaxVoiceAudioBurst <= 0 {
		p.MaxVoiceAudioBurst = DefaultMaxVoiceAudioBurst
	}
	if p.MaxStreamQueue <= 0 {
		p.MaxStreamQueue = DefaultMaxStreamQueue
	}
	if p.MaxStageQueue <= 0 {
		p.MaxStageQueue = DefaultMaxStageQueue
	}
	if p.MaxVoices <= 0 {
		p.MaxVoices = 64
	}
	if p.VoiceIdle <= 0 {
		p.VoiceIdle = 24 * time.Hour
	}
	if p.AckWait <= 0 {
		p.AckWait = DefaultAckWait
	}
	if p.Shards <= 0 {
		p.Shards = 1
	}
	if p.Version == "" {
		p.Version = DefaultServiceVersion
	}
	if p.Spotter == (engine.SpotterConfig{}) {
		p.Spotter = engine.DefaultSpotterConfig()
		if p.Connected != nil {
			p.Spotter = p.Connected.StreamConfig()
			// The stages decode each partial segment afresh (a segment
			// is a message, and the features stage keeps no stream's
			// frames): partials spaced as the utterance grows keep a
			// long utterance's cost linear in its length.
			p.Spotter.PartialGrowth = ConnectedPartialGrowth
		}
	}
}

// ConnectedPartialGrowth is the default SpotterConfig.PartialGrowth of a
// connected-word pipeline: a partial once the open utterance has grown by
// a quarter since the last, so no utterance is decoded more than 5 times
// over for its partials; under 1.2 s the partials still come every
// PartialEveryMs.
const ConnectedPartialGrowth = 0.25

// audioKinds are the subject kinds between the audio stages: what the
// frontend sends to the features stage, and what that sends the decoder.
func (p *Pipeline) audioKinds() (toFeatures, toDecoder string) {
	if p.Connected != nil {
		return KindFrames, KindLogLik
	}
	return KindVector, KindScores
}

// newSegmenter cuts a stream at rate for the pipeline's audio model.
func (p *Pipeline) newSegmenter(rate int) (*engine.Segmenter, error) {
	if p.Connected != nil {
		return engine.NewConnectedSegmenter(p.Connected, p.Spotter, rate)
	}
	return engine.NewSegmenter(p.Words.Config, p.Spotter, rate)
}

// Stats counts what the stages saw; all fields are totals since Start.
type Stats struct {
	Messages, Duplicates, Errors, Lost int64
	// Vectors counts the messages this process's features stage scored
	// (word vectors and end-of-stream markers).
	Vectors int64
	// Batches counts the batches the stateless stages handled: messages
	// per batch tells how well GEMMs were filled.
	Batches int64
	// Shed counts partial words skipped by ShedPartials.
	Shed int64
	// Dropped counts messages refused at admission (admit.go): those over
	// a stream's audio rate or queue bound, and the later messages of a
	// stream refused for it.
	Dropped int64
	// Voices is how many named voices' sessions (HdrVoice) the frontend
	// stage holds now: a count at the moment, not a total.
	Voices int
	// StorageErrors counts voice files that could not be read or
	// written, StorageError the last one's text: a write with no stream
	// to report to (a voice gone idle) is told here, and in $SRV.STATS.
	StorageErrors int64
	StorageError  string
}

type counters struct {
	messages, duplicates, errors, lost, vectors, batches, shed, dropped, storageErrors atomic.Int64
	storageError                                                                       atomic.Pointer[string]
}

// storageFault counts a voice file's failed read or write and keeps its
// text, the last one, for Stats.
func (c *counters) storageFault(err error) {
	c.storageErrors.Add(1)
	text := err.Error()
	c.storageError.Store(&text)
}

// core is what the stages of one Start share: the connection, the
// Pipeline, the micro services and durable consumers they read through,
// the stop channel and wait group of their goroutines, the counters, and
// publishing results.
type core struct {
	nc        *nats.Conn
	p         Pipeline
	services  []micro.Service // one a stage; their endpoints are its subscriptions (micro.go)
	consumers []jetstream.ConsumeContext
	stop      chan struct{}
	wg        sync.WaitGroup
	stats     counters
}

// Stages is a running set of stage workers on one connection: one of each
// stage (stage_<name>.go), sharing core, whatever stages Start was asked
// to run.
type Stages struct {
	*core
	front *frontendStage
	feat  *featuresStage
	dec   *decoderStage
	tag   *taggerStage
}

// work is one message for a stateless stage; ack, set for messages from a
// durable consumer, is called once the stage has published its output.
type work struct {
	m   *nats.Msg
	ack func()
	// size is the payload's size as it arrived (a PCM payload over
	// MaxChunkBytes is not kept: admitPCM); refuse, when set, makes the
	// item the one that ends its stream for going over an admission bound.
	size   int
	refuse string
	// replayed marks a message stored before its stage started, which
	// the stage takes up from the store (resume.go): it was admitted once
	// already, so it skips the audio rate bound and waits for room in its
	// stream's queue instead of ending the stream.
	replayed bool
	// readOut is a word segment's read-out (HdrReadOut), which the
	// features stage keeps apart from its word vector (splitReadOut), so
	// that a stream's segments queued one after another with the same
	// read-out hold one copy of it: the frontend sends it with every
	// segment, 120 KB for the default adaptable model against a 5 KB word
	// vector. paysReadOut: this item's queue cost counts it (fair.go).
	readOut     []byte
	paysReadOut bool
}

// Start subscribes the named stages (all when none are named).
func Start(nc *nats.Conn, p Pipeline, names ...string) (*Stages, error) {
	if err := CheckName("pipeline", p.Name); err != nil {
		return nil, err
	}
	p.defaults()
	if p.Shard < 0 || p.Shard >= p.Shards {
		return nil, fmt.Errorf("streaming: shard %d of %d (want 0 to %d)", p.Shard, p.Shards, p.Shards-1)
	}
	if len(names) == 0 {
		names = AllStages
	}
	c := &core{nc: nc, p: p, stop: make(chan struct{})}
	s := &Stages{core: c, front: newFrontendStage(c), feat: &featuresStage{core: c, queue: newFairQueue(p.MaxStreamQueue, p.MaxStageQueue)},
		dec: newDecoderStage(c), tag: &taggerStage{core: c}}
	if p.VoiceDir != "" && p.Words != nil {
		// The model's fingerprint names its voice folder; computing it
		// now (tens of ms for a large model) keeps it off a stream's path,
		// and a folder that cannot be made fails here, not at every
		// stream's end.
		model, err := p.Words.Fingerprint()
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(p.VoiceDir, model[:16]), 0o700); err != nil {
			return nil, fmt.Errorf("streaming: voice folder: %w", err)
		}
	}
	if p.Durable {
		// Whatever stages run here, the store exists before clients publish.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _, err := EnsureStore(ctx, nc, p.Name)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		svc, err := s.addService(n)
		if err != nil {
			s.Close()
			return nil, err
		}
		switch n {
		case StageFrontend, StageFeatures, StageDecoder:
			if (p.Words == nil) == (p.Connected == nil) {
				err = fmt.Errorf("streaming: stage %s needs one audio model, a word model or a connected one", n)
				break
			}
			switch n {
			case StageFrontend:
				err = s.front.start(svc)
			case StageFeatures:
				err = s.feat.start(svc)
			case StageDecoder:
				err = s.dec.start(svc)
			}
		case StageTagger:
			if p.Images == nil {
				err = errors.New("streaming: stage tagger needs an image model")
				break
			}
			err = s.tag.start(svc)
		default:
			err = fmt.Errorf("streaming: unknown stage %q (known: %v)", n, AllStages)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	s.wg.Add(1)
	go s.sweep()
	// A round trip makes sure the server has every subscription before
	// the caller starts publishing.
	if err := nc.Flush(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// loop runs a batching worker over a fair queue: it waits for a message,
// takes up to limit messages from the streams in turn (fairQueue.batch),
// and handles them together.
func (c *core) loop(q *fairQueue, limit int, handle func([]work)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			batch, ok := q.batch(limit)
			if !ok {
				return
			}
			c.stats.batches.Add(1)
			handle(batch)
		}
	}()
}

// serveTurns runs a stateful stage's worker: stream after stream in turn
// (fairQueue.turn), it handles the messages each turn allows, in order.
func (c *core) serveTurns(q *fairQueue, handle func(stream string, w work)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			stream, items, ok := q.turn()
			if !ok {
				return
			}
			for _, w := range items {
				handle(stream, w)
			}
			q.done(stream)
		}
	}()
}

// fill appends to batch what is already waiting on ch, up to limit
// messages in all.
func fill(batch []work, ch chan work, limit int) []work {
	for len(batch) < limit {
		select {
		case m := <-ch:
			batch = append(batch, m)
		default:
			return batch
		}
	}
	return batch
}

// ackAll acknowledges a batch of durable messages after its outputs were
// published on the same connection, so the server has the outputs before
// the acks.
func ackAll(batch []work) {
	for _, w := range batch {
		if w.ack != nil {
			w.ack()
		}
	}
}

// Stats returns the counters.
func (s *Stages) Stats() Stats {
	s.front.mu.Lock()
	voices := len(s.front.voices.byName)
	s.front.mu.Unlock()
	st := Stats{Voices: voices, Messages: s.stats.messages.Load(), Duplicates: s.stats.duplicates.Load(),
		Errors: s.stats.errors.Load(), Lost: s.stats.lost.Load(), Vectors: s.stats.vectors.Load(), Batches: s.stats.batches.Load(), Shed: s.stats.shed.Load(),
		Dropped: s.stats.dropped.Load(), StorageErrors: s.stats.storageErrors.Load()}
	if text := s.stats.storageError.Load(); text != nil {
		st.StorageError = *text
	}
	return st
}

// Close drains the subscriptions (messages already received are handled)
// and stops the workers.
func (s *Stages) Close() error {
	var errs []error
	for _, cc := range s.consumers {
		cc.Drain()
	}
	// Stopping a service drains its endpoints' subscriptions; wait for
	// the drains to deliver what they hold to the workers.
	deadline := time.Now().Add(5 * time.Second)
	errs = append(errs, s.stopServices(deadline)...)
	for _, cc := range s.consumers {
		select {
		case <-cc.Closed():
		case <-time.After(time.Until(deadline)):
		}
	}
	// What the subscriptions queued is handled (the frontend's first: it
	// may set segments aside for a self-training, which are published
	// once it ends).
	for !s.front.queue.empty() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s.front.releases.Wait()
	for len(s.tag.imageCh) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for _, q := range []*fairQueue{s.dec.queue, s.feat.queue, s.tag.requests} {
		for q != nil && !q.empty() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	for _, q := range []*fairQueue{s.front.queue, s.dec.queue, s.feat.queue, s.tag.requests} {
		if q != nil {
			q.close()
		}
	}
	s.wg.Wait()
	var errMu sync.Mutex
	keep := func(err error) {
		if err != nil {
			errMu.Lock()
			errs = append(errs, err)
			errMu.Unlock()
		}
	}
	s.front.mu.Lock()
	s.front.voices.saveAll(keep)
	s.front.mu.Unlock()
	s.front.voices.files.waitAll() // these writes, and ended streams' still running
	return errors.Join(errs...)
}

// sweep drops the state of streams that went quiet.
func (s *Stages) sweep() {
	defer s.wg.Done()
	tick := time.NewTicker(max(10*time.Millisecond, min(time.Second, s.p.IdleTimeout/4)))
	defer tick.Stop()
	reconnects := s.nc.Stats().Reconnects
	for {
		select {
		case <-s.stop:
			return
		case now := <-tick.C:
			// A stage cut off from its server hears nothing from any
			// stream, so that time is not the streams' silence: while the
			// connection is away nothing expires, and once it is back
			// every stream's idle clock starts again. Ending them instead
			// once ended every stream in flight during a server restart
			// that outlasted the idle timeout.
			if n := s.nc.Stats().Reconnects; !s.nc.IsConnected() || n != reconnects {
				reconnects = n
				s.front.restartIdleClocks(now)
				s.dec.restartIdleClocks(now)
				continue
			}
			s.front.expire(now)
			s.front.buckets.expire(now.Add(-s.p.IdleTimeout), s.front.queue.busy)
			// The decoder waits twice as long, so a stream the frontend
			// ends for idleness gets its end-of-stream result through it.
			s.dec.expire(now)
		}
	}
}

// Expiry is spread in time as well: after every expiryBatch streams ended,
// the sweep pauses expiryPause, so the results and end-of-stream markers
// of thousands of streams do not reach the next stage (and its one
// subscription) as one burst. Each idle stream's end is a stream of its
// own at the next stage, where turns by stream cannot keep it from
// standing before a live stream's message: only a low rate can. 5000
// streams take about 6 s to end; at 64 a pause they took 0.8 s and held a
// live stream's results back 57-130 ms at the 95th percentile on an idle
// two-core machine (3-9 ms at 8 a pause; experiments/journal/streaming.md).
const (
	expiryBatch = 8
	expiryPause = 10 * time.Millisecond
)

// pace lets other goroutines in after the i-th stream ended, pausing after
// every expiryBatch; it reports false when the stages are stopping.
func (c *core) pace(i int) bool {
	if (i+1)%expiryBatch != 0 {
		runtime.Gosched()
		return true
	}
	select {
	case <-c.stop:
		return false
	case <-time.After(expiryPause):
		return true
	}
}

// publishResult sends a result on a stream's result subject.
func (c *core) publishResult(stream string, r engine.Result) {
	c.nc.PublishMsg(c.resultMsg(stream, r))
}

// resultMsg is the message that carries r on stream's result subject.
func (c *core) resultMsg(stream string, r engine.Result) *nats.Msg {
	b, _ := json.Marshal(r)
	m := nats.NewMsg(Subject(c.p.Name, KindResult, stream))
	m.Data = b
	if r.EOS {
		m.Header.Set(HdrEOS, "1")
	}
	if r.Error != "" {
		c.stats.errors.Add(1)
	}
	return m
}

// endedResult answers a message that came after its stream's end.
func (c *core) endedResult(stream string) {
	c.endedError(stream, "stream %q has already ended; start a new stream name", stream)
}

// endedError is errorResult for a stream that has ended, marked as such
// (HdrEnded) for a restarted stage reading the store (resume.go).
func (c *core) endedError(stream, format string, args ...any) {
	m := c.resultMsg(stream, engine.Result{Error: fmt.Sprintf(format, args...)})
	m.Header.Set(HdrEnded, "1")
	c.nc.PublishMsg(m)
}

// errorResult sends a stream a result that carries only an error.
func (c *core) errorResult(stream, format string, args ...any) {
	c.publishResult(stream, engine.Result{Error: fmt.Sprintf(format, args...)})
}

// owns reports whether this process's frontend and decoder take stream
// (Pipeline.Shards).
func (c *core) owns(stream string) bool { return ShardOf(stream, c.p.Shards) == c.p.Shard }

// maxPayload is the largest message body the stages publish: the server's
// limit less room for headers.
func maxPayload(nc *nats.Conn) int { return int(nc.MaxPayload()) - 4096 }
