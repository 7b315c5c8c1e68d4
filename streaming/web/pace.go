package web

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Pacing: what holds the audio of all WebSockets together (the page's and
// the Vosk endpoint's) to what the pipeline can take. NATS has no flow
// control: a socket's audio, once published, waits in the NATS client of
// the frontend stage, and 64 sockets sending as fast as loopback carries
// them filled it past its limit in seconds (1.3 GB, and the NATS client
// then dropped every stream's messages, well-behaved ones too). A socket
// is the one place a sender can be slowed, by not reading it: TCP pushes
// back. So each socket's audio goes out at the pace of a live speaker
// (its own allowance: real time and a little more, with a short burst,
// which no other socket can take), and what comes faster shares one pool
// for the whole server, in bytes a second, taken in the order asked.
// A socket that would wait longer than maxPaceWait for the pool is closed
// with the reason, its audio so far keeping its result.

// The defaults of the pacing (Config.SocketPoolBytes, SocketPoolBurst). The
// pool is 2 MiB a second: 64 live 16 kHz streams' worth again, or 33 s of
// 16 kHz audio a second for one fast client; its burst is 8 MiB.
const (
	DefaultSocketPoolBytes = 2 << 20
	DefaultSocketPoolBurst = 8 << 20
)

// A socket's own allowance: ownPace seconds of audio a second, ownBurst
// seconds at once (a microphone that catches up after a stall).
const (
	ownPace  = 1.5
	ownBurst = 5.0
)

// maxPaceWait is how long a socket may wait for the pool before it is
// closed as too fast.
const maxPaceWait = 10 * time.Second

var errTooFast = errors.New("audio faster than the server takes it")

// bucket is a token bucket that may go into debt: take charges what it is
// asked and says how long until the debt is paid, so callers are served in
// the order they asked.
type bucket struct {
	rate, burst float64 // units a second, and at most at once
	tokens      float64
	at          time.Time
}

func (b *bucket) refill(now time.Time) {
	if b.at.IsZero() {
		b.tokens, b.at = b.burst, now
		return
	}
	b.tokens = min(b.burst, b.tokens+now.Sub(b.at).Seconds()*b.rate)
	b.at = now
}

// take charges n units and returns how long the caller must wait before
// they are its.
func (b *bucket) take(n float64, now time.Time) time.Duration {
	b.refill(now)
	b.tokens -= n
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// pool is the server's shared allowance of socket audio beyond each
// socket's own.
type pool struct {
	mu  sync.Mutex
	b   bucket
	now func() time.Time // tests replace it
}

func newPool(bytesPerSecond, burst int) *pool {
	return &pool{b: bucket{rate: float64(bytesPerSecond), burst: float64(burst)}, now: time.Now}
}

// reserve charges n bytes and returns the wait before they may go; a wait
// over max is not taken (the charge is undone) and returns ok false.
func (p *pool) reserve(n int, max time.Duration) (wait time.Duration, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	wait = p.b.take(float64(n), p.now())
	if wait > max {
		p.b.tokens += float64(n)
		return wait, false
	}
	return wait, true
}

// pace holds n bytes of 16-bit PCM at rate Hz until they may go: at once
// within the socket's own allowance, else after its share of the pool. It
// returns errTooFast when the pool is further behind than maxPaceWait, and
// ctx's error when the socket goes first.
func (k *socket) pace(ctx context.Context, n, rate int) error {
	if k.own.rate == 0 {
		k.own = bucket{rate: ownPace, burst: ownBurst}
	}
	seconds := float64(n) / float64(2*rate)
	k.own.refill(k.srv.pool.now())
	covered := max(0, min(seconds, k.own.tokens))
	k.own.tokens -= covered
	rest := int((seconds - covered) * float64(2*rate))
	if rest <= 0 {
		return nil
	}
	err := k.srv.pool.await(ctx, rest)
	if errors.Is(err, errTooFast) {
		k.srv.sockets.paced.Add(1)
	}
	return err
}

// await holds n bytes until the pool lets them go: errTooFast when it is
// further behind than maxPaceWait (nothing is charged), ctx's error when
// the caller goes first.
func (p *pool) await(ctx context.Context, n int) error {
	wait, ok := p.reserve(n, maxPaceWait)
	if !ok {
		return errTooFast
	}
	if wait == 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tooFastReason is the close reason after errTooFast (at most 123 bytes,
// as WebSocket's close frame allows).
func (k *socket) tooFastReason() string {
	return fmt.Sprintf("audio faster than this server's pace (%.0f KiB/s beyond real time, all sockets): the stream ended",
		k.srv.pool.b.rate/1024)
}
