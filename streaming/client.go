package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

// StreamOptions control how StreamAudio publishes.
type StreamOptions struct {
	ChunkMs  float64 // audio per message (default 100 ms)
	RealTime bool    // pace messages at the audio's own speed
	Encoding string  // EncS16 (default) or EncF32
	// Timeout is how long to wait, after the last message is published,
	// without hearing anything from the pipeline (default 30 s): each
	// result that arrives starts it again, so a long stream that a loaded
	// pipeline works through slowly is not given up while it progresses.
	// When it runs out the pipeline's stages are asked for their counters
	// (progress.go) and the wait starts again; when it runs out again they
	// are asked again, and while their counters move the pipeline is
	// behind, working on what came before, and the wait goes on. The
	// stream fails only when no stage answers, or none did anything
	// between two looks a Timeout apart (then after 2 × Timeout of
	// silence).
	Timeout time.Duration
	// Durable publishes through JetStream and waits for each message to be
	// stored (a durable pipeline must be serving); the message id
	// VoiceStream(Voice, stream)/<seq> lets the server drop a retried
	// copy.
	Durable bool
	// Voice names the voice speaking: the pipeline's streams that name the
	// same voice share one voice session, so with an adaptable word model
	// each recording learns from the ones before it
	// (engine.VoiceSession). The audio goes to the voice's subject
	// (VoiceSubject) and its results come from the voice's
	// (ResultSubject), both of which NATS permissions can restrict.
	// Empty: the stream is a voice of its own.
	Voice string
	// OnEOS, when set, is called right after the end-of-stream message is
	// published (the benchmark's latency clock).
	OnEOS func()
}

// StreamAudio publishes a recording to a pipeline as stream name, chunk by
// chunk, and calls onResult for every result until the end-of-stream one,
// which it returns.
func StreamAudio(ctx context.Context, nc *nats.Conn, pipeline, stream string, a *frontend.Audio, o StreamOptions, onResult func(engine.Result)) (engine.Result, error) {
	if err := CheckName("stream", stream); err != nil {
		return engine.Result{}, err
	}
	if o.Voice != "" {
		if err := CheckName("voice", o.Voice); err != nil {
			return engine.Result{}, err
		}
	}
	if o.ChunkMs <= 0 {
		o.ChunkMs = 100
	}
	if o.Encoding == "" {
		o.Encoding = EncS16
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	var js jetstream.JetStream
	if o.Durable {
		var err error
		if js, err = jetstream.New(nc); err != nil {
			return engine.Result{}, err
		}
	}
	results, stop, err := streamResults(ctx, nc, pipeline, ResultSubject(pipeline, o.Voice, stream), o.Durable)
	if err != nil {
		return engine.Result{}, err
	}
	defer stop()
	chunk := max(1, int(o.ChunkMs*float64(a.Rate)/1000))
	start := time.Now()
	var last engine.Result
	done := false
	handle := func(m *nats.Msg) error {
		var r engine.Result
		if err := json.Unmarshal(m.Data, &r); err != nil {
			return fmt.Errorf("streaming: result is not JSON: %w", err)
		}
		if onResult != nil {
			onResult(r)
		}
		// The end-of-stream result is the one returned, even when the
		// pipeline ended the stream before its last message (its idle
		// rule) and answers what follows with errors.
		if !done {
			last, done = r, r.EOS
		}
		return nil
	}
	for seq, off := 0, 0; off < len(a.Samples) || seq == 0; seq++ {
		end := min(off+chunk, len(a.Samples))
		if o.RealTime {
			// A live source has a chunk only once its last sample was
			// captured: publish it at the stream time of its end.
			due := start.Add(time.Duration(float64(end) / float64(a.Rate) * float64(time.Second)))
			for wait := time.Until(due); wait > 0; wait = time.Until(due) {
				select {
				case <-ctx.Done():
					return last, ctx.Err()
				case m := <-results:
					if err := handle(m); err != nil {
						return last, err
					}
				case <-time.After(wait):
				}
			}
		}
		payload, err := EncodePCM(a.Samples[off:end], o.Encoding)
		if err != nil {
			return last, err
		}
		m := nats.NewMsg(Subject(pipeline, KindPCM, stream))
		if o.Voice != "" {
			m.Subject = VoiceSubject(pipeline, o.Voice, stream)
		}
		m.Data = payload
		m.Header.Set(HdrSeq, strconv.Itoa(seq))
		m.Header.Set(HdrRate, strconv.Itoa(a.Rate))
		m.Header.Set(HdrEncoding, o.Encoding)
		m.Header.Set(HdrOffset, strconv.Itoa(off))
		if end == len(a.Samples) {
			m.Header.Set(HdrEOS, "1")
		}
		if js != nil {
			fault := func() string { return lookAtPipeline(ctx, nc, pipeline).storeFault() }
			if err := publishStored(ctx, js, m, VoiceStream(o.Voice, stream)+"/"+strconv.Itoa(seq), o.Timeout, fault); err != nil {
				var sf storeFaultError
				if errors.As(err, &sf) {
					return last, fmt.Errorf("streaming: the store of durable pipeline %q did not take message %d: %s", pipeline, seq, sf.text)
				}
				return last, fmt.Errorf("streaming: durable publish of message %d (is a --durable pipeline %q serving?): %w", seq, pipeline, err)
			}
		} else if err := nc.PublishMsg(m); err != nil {
			return last, err
		}
		if end == len(a.Samples) && o.OnEOS != nil {
			o.OnEOS()
		}
		off = end
	}
	// What the stages had done at the last silence (none yet): looked at
	// only once the pipeline has been silent, so a stream that hears its
	// results costs the stages nothing more.
	var before pipelineActivity
	timer := time.NewTimer(o.Timeout)
	defer timer.Stop()
	for !done {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-timer.C:
			now := lookAtPipeline(ctx, nc, pipeline)
			if len(now) == 0 {
				return last, fmt.Errorf("streaming: no end-of-stream result for %q: nothing heard for %v, and no stage of pipeline %q answers (is it serving?)", stream, o.Timeout, pipeline)
			}
			if fault := now.storeFault(); o.Durable && fault != "" {
				return last, fmt.Errorf("streaming: no end-of-stream result for %q: nothing heard for %v, and the store of durable pipeline %q fails: %s", stream, o.Timeout, pipeline, fault)
			}
			if before != nil && !now.movedSince(before) {
				return last, fmt.Errorf("streaming: no end-of-stream result for %q: nothing heard for %v, and pipeline %q's stages did nothing in the last %v (the stream's messages lost on the way?)", stream, 2*o.Timeout, pipeline, o.Timeout)
			}
			// Behind, not gone (or not known yet, at the first
			// silence): the stages are working through what came
			// before this stream's messages.
			before = now
			timer.Reset(o.Timeout)
		case m := <-results:
			if err := handle(m); err != nil {
				return last, err
			}
			timer.Reset(o.Timeout)
		}
	}
	return last, nil
}

// streamResults delivers a stream's results on the channel it returns until
// stop is called. For a durable pipeline it reads them from the store
// (readStored), so results published while the client's connection is
// away (a restarting server) still arrive; a client the server does not
// let read the store (no JetStream API permission) falls back to a core
// subscription, as without durable.
func streamResults(ctx context.Context, nc *nats.Conn, pipeline, subject string, durable bool) (chan *nats.Msg, func(), error) {
	results := make(chan *nats.Msg, 256)
	if durable {
		stopped := make(chan struct{})
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		cc, err := readStored(sctx, nc, pipeline, subject, time.Minute, nil, func(m *nats.Msg, _ bool) {
			select {
			case results <- m:
			case <-stopped:
			}
		})
		cancel()
		if err == nil {
			return results, func() { close(stopped); cc.Stop() }, nil
		}
	}
	sub, err := nc.ChanSubscribe(subject, results)
	if err != nil {
		return nil, nil, err
	}
	if err := nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, nil, err
	}
	// The server answers a refused subscription before the flush's PONG:
	// without this look, a client without the right to its results (a
	// guest of serve's embedded server) sent its whole stream and waited
	// 30 s to be told that no stage answers.
	if err := nc.LastError(); errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), subject) {
		sub.Unsubscribe()
		return nil, nil, fmt.Errorf("streaming: the server does not let this connection read the stream's results (%w): connect with credentials that may (serve's embedded server takes a client without any as a guest who may not)", err)
	}
	return results, func() { sub.Unsubscribe() }, nil
}

// publishStored publishes m through JetStream with message id id, and
// tries again (the id makes the server drop a second copy) until the store
// acknowledges it or patience runs out: while a restarting server is away
// the publish times out or finds no responder, and the message is stored
// once it is back. A store that is there but cannot write also leaves the
// publish unanswered: after the first miss, and every storeFaultLook
// after, storeFault asks the stages whether the store reported a write
// error, which ends the tries with a storeFaultError.
func publishStored(ctx context.Context, js jetstream.JetStream, m *nats.Msg, id string, patience time.Duration, storeFault func() string) error {
	deadline := time.Now().Add(patience)
	var look time.Time
	for {
		// A publish the dying server took without storing is never
		// acknowledged: a second's wait, not more, before the retry.
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := js.PublishMsg(pctx, m, jetstream.WithMsgID(id))
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		if storeFault != nil && time.Now().After(look) {
			if text := storeFault(); text != "" {
				return storeFaultError{text}
			}
			look = time.Now().Add(storeFaultLook)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// storeFaultLook spaces a publisher's questions about the store's health.
const storeFaultLook = 5 * time.Second

// storeFaultError is a stored publish given up because the store reported
// a write error; text is the stages' storage error.
type storeFaultError struct{ text string }

func (e storeFaultError) Error() string { return e.text }

// TagImages publishes encoded images (or raw u8 rasters when raw is set)
// as stream name and returns the replies in publishing order.
func TagImages(ctx context.Context, nc *nats.Conn, pipeline, stream string, images [][]byte, raw bool, timeout time.Duration) ([]TagsMessage, error) {
	if err := CheckName("stream", stream); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	replies := make(chan *nats.Msg, len(images)+16)
	sub, err := nc.ChanSubscribe(Subject(pipeline, KindTags, stream), replies)
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	sub.SetPendingLimits(-1, -1)
	if err := nc.Flush(); err != nil {
		return nil, err
	}
	for i, im := range images {
		m := nats.NewMsg(Subject(pipeline, KindImage, stream))
		m.Data = im
		m.Header.Set(HdrSeq, strconv.Itoa(i))
		if raw {
			m.Header.Set(HdrEncoding, EncU8)
		}
		if err := nc.PublishMsg(m); err != nil {
			return nil, err
		}
	}
	out := make([]TagsMessage, len(images))
	got := make([]bool, len(images))
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for n := 0; n < len(images); {
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-timer.C:
			return out, fmt.Errorf("streaming: %d of %d images tagged within %v", n, len(images), timeout)
		case m := <-replies:
			var t TagsMessage
			if err := decodeTags(m.Data, &t); err != nil {
				return out, fmt.Errorf("streaming: tags are not JSON: %w", err)
			}
			if t.Seq < 0 || t.Seq >= len(images) || got[t.Seq] {
				continue
			}
			out[t.Seq], got[t.Seq] = t, true
			n++
		}
	}
	return out, nil
}

// ForgetVoice asks a pipeline's frontend stage to forget a named voice
// (HdrVoice): its session leaves memory and its voice file is deleted. It
// reports whether the voice was known, and fails when a live stream names
// the voice or no frontend stage answers before ctx ends.
func ForgetVoice(ctx context.Context, nc *nats.Conn, pipeline, voice string) (bool, error) {
	if err := CheckName("voice", voice); err != nil {
		return false, err
	}
	sub, err := nc.SubscribeSync(Subject(pipeline, KindForgotten, voice))
	if err != nil {
		return false, err
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		return false, err
	}
	if err := nc.Publish(Subject(pipeline, KindForget, voice), nil); err != nil {
		return false, err
	}
	m, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		return false, fmt.Errorf("streaming: no answer from pipeline %q's frontend stage about voice %q: %w", pipeline, voice, err)
	}
	var a ForgetAnswer
	if err := json.Unmarshal(m.Data, &a); err != nil {
		return false, fmt.Errorf("streaming: answer about voice %q: %w", voice, err)
	}
	if a.Error != "" {
		return false, errors.New(a.Error)
	}
	return a.Forgotten, nil
}
