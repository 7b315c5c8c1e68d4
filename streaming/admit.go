package streaming

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Admission: what a stateful or batched stage's subscription callback does
// with a message before the stage's worker sees it (fair.go). It must be
// cheap, as every stream's messages pass through it one after the other:
// it reads the stream's name, strips an oversized PCM payload (refused in
// its turn without it), checks the stream's audio rate (PCM) and what the
// stream has queued, and files the message in its stream's queue. A stream
// over a bound gets one closing item in its queue instead, after what it
// had queued, which ends it with an error result that says why; its later
// messages are dropped here. Everything else about a message is checked by
// the worker, in the stream's order. Each stage's callback is in the
// stage's file: admitPCM (stage_frontend.go), admitSegment
// (stage_features.go) and admitScores (stage_decoder.go); this file holds
// the bounds' defaults, the frontend's audio rate bound (audioBuckets) and
// the closing item.

// Defaults of the admission bounds (Pipeline.MaxAudioRate, MaxAudioBurst,
// MaxStreamQueue, MaxStageQueue). The product's own clients send at most
// 600 s of audio a stream (stream and recognize --max-seconds, the page's
// and /vosk's --socket-max-seconds), and `rfstream stream --fast` sends
// all of it at once: the burst takes that whole, and the rate ten streams'
// worth of live audio. A stream queue of 64 MiB takes 600 s of 48 kHz
// 16-bit audio sent at once, or a connected model's log-likelihoods for it;
// a stage's queue, four such streams.
const (
	DefaultMaxAudioRate   = 10    // seconds of audio per second, per stream
	DefaultMaxAudioBurst  = 600.0 // seconds of audio
	DefaultMaxStreamQueue = 64 << 20
	DefaultMaxStageQueue  = 256 << 20
	// A voice's streams together (Pipeline.MaxVoiceAudioRate, …Burst):
	// twice one stream's, so a client may still send a file at once
	// while it speaks live, but a thousand streams of one client are not
	// a thousand streams' allowance.
	DefaultMaxVoiceAudioRate  = 2 * DefaultMaxAudioRate
	DefaultMaxVoiceAudioBurst = 2 * DefaultMaxAudioBurst
)

// assumedRate is the sample rate the rate bound assumes for a message whose
// stream has not said its rate (its first message withheld, or lost): the
// highest common one, so that an unknown rate never counts against a
// well-behaved stream.
const assumedRate = 48000

// audioBuckets holds each stream's allowance of audio (a token bucket in
// seconds of audio, refilled at MaxAudioRate up to MaxAudioBurst) and
// whether the stream has been refused at admission.
type audioBuckets struct {
	mu          sync.Mutex
	rate, burst float64
	max         int // streams remembered at most, and voices
	streams     map[string]*audioBucket
	now         func() time.Time // tests replace it
	// The allowance of each voice named by subject, shared by its
	// streams (Pipeline.MaxVoiceAudioRate); 0: none.
	voiceRate, voiceBurst float64
	voices                map[string]*audioBucket
}

type audioBucket struct {
	seconds float64   // audio the stream may still send at once
	at      time.Time // when seconds was last refilled
	last    time.Time // its last message
	rate    int       // the sample rate its first message to name one gave
	refused bool      // its later messages are dropped
}

func newAudioBuckets(rate, burst float64, max int) *audioBuckets {
	return &audioBuckets{rate: rate, burst: burst, max: max, streams: map[string]*audioBucket{}, now: time.Now}
}

// take charges m's audio to stream's bucket. It reports drop for a stream
// already refused, and otherwise why m is over a bound ("" when it is
// not).
func (a *audioBuckets) take(stream string, m *nats.Msg, payload int) (drop bool, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	b := a.streams[stream]
	if b == nil {
		if len(a.streams) >= a.max {
			a.prune(now)
		}
		if len(a.streams) >= a.max {
			return false, fmt.Sprintf("this stage is tracking the audio rate of %d streams heard from within the idle timeout, the most it may", a.max)
		}
		b = &audioBucket{seconds: a.burst, at: now}
		a.streams[stream] = b
	}
	b.last = now
	if b.refused {
		return true, ""
	}
	// A rate out of the range the frontend takes is left for it to refuse
	// with that range, instead of skewing the bucket: Rfs-Rate 1 made a
	// chunk seem hours long and drew the rate-limit message.
	if r, err := strconv.Atoi(m.Header.Get(HdrRate)); err == nil && r >= 1000 && r <= 768000 && b.rate == 0 {
		b.rate = r
	}
	rate := b.rate
	if rate == 0 {
		rate = assumedRate
	}
	width := 2
	if m.Header.Get(HdrEncoding) == EncF32 {
		width = 4
	}
	audio := float64(payload/width) / float64(rate)
	if !b.spend(now, a.rate, a.burst, audio) {
		return false, fmt.Sprintf("audio sent faster than this pipeline takes from a stream: %.0f s at once, then %g s of audio a second (serve --max-audio-burst, --max-audio-rate)", a.burst, a.rate)
	}
	if voice, _, named := strings.Cut(stream, "."); named && a.voiceRate > 0 {
		// The stream's own charge stands: the stream is ended anyway.
		if why := a.spendVoice(now, voice, audio); why != "" {
			return false, why
		}
	}
	return false, ""
}

// spend refills b for the time since it was last and takes audio seconds
// from it, reporting whether it held them.
func (b *audioBucket) spend(now time.Time, rate, burst, audio float64) bool {
	b.seconds = min(burst, b.seconds+rate*now.Sub(b.at).Seconds())
	b.at = now
	if audio > b.seconds {
		return false
	}
	b.seconds -= audio
	return true
}

// spendVoice charges audio to voice's allowance, with a.mu held, and says
// why not when it is spent.
func (a *audioBuckets) spendVoice(now time.Time, voice string, audio float64) string {
	if a.voices == nil {
		a.voices = map[string]*audioBucket{}
	}
	v := a.voices[voice]
	if v == nil {
		if len(a.voices) >= a.max {
			// Full voices' buckets change nothing when forgotten.
			for name, old := range a.voices {
				if old.seconds+a.voiceRate*now.Sub(old.at).Seconds() >= a.voiceBurst {
					delete(a.voices, name)
				}
			}
		}
		if len(a.voices) >= a.max {
			return fmt.Sprintf("this stage is tracking the audio rate of %d voices, the most it may", a.max)
		}
		v = &audioBucket{seconds: a.voiceBurst, at: now}
		a.voices[voice] = v
	}
	v.last = now
	if !v.spend(now, a.voiceRate, a.voiceBurst, audio) {
		return fmt.Sprintf("voice %q's streams together sent audio faster than this pipeline takes from one voice, whatever streams or connections it comes on: %.0f s at once, then %g s of audio a second (serve --max-voice-audio-burst, --max-voice-audio-rate)", voice, a.voiceBurst, a.voiceRate)
	}
	return ""
}

// refuse marks stream refused: its later messages are dropped.
func (a *audioBuckets) refuse(stream string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b := a.streams[stream]; b != nil {
		b.refused = true
	}
}

// expire forgets the streams not heard from since cutoff for which busy
// (their queue at the stage) says nothing is waiting.
func (a *audioBuckets) expire(cutoff time.Time, busy func(string) bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, b := range a.streams {
		if b.last.Before(cutoff) && !busy(name) {
			delete(a.streams, name)
		}
	}
	for name, v := range a.voices {
		if v.last.Before(cutoff) {
			delete(a.voices, name)
		}
	}
}

// prune makes room, with a.mu held, by forgetting every stream that was
// not refused and whose bucket is full again (it has sent nothing for
// long enough that forgetting it changes nothing).
func (a *audioBuckets) prune(now time.Time) {
	for name, b := range a.streams {
		if !b.refused && b.seconds+a.rate*now.Sub(b.at).Seconds() >= a.burst {
			delete(a.streams, name)
		}
	}
}

// closing is the item that ends a stream over an admission bound.
func closing(subject, why string) work {
	return work{m: &nats.Msg{Subject: subject, Header: nats.Header{}}, refuse: why}
}
