package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// The defaults of the WebSocket bounds (Config.MaxSockets, SocketIdle,
// SocketMaxSeconds). 64 sockets are 64 live streams, more than the
// project's 2-core machine decodes in real time; 30 s without a message is
// long for a microphone, which sends ten chunks a second; 600 s of audio
// is what `recognize --max-seconds` takes by default.
const (
	DefaultMaxSockets       = 64
	DefaultSocketIdle       = 30 * time.Second
	DefaultSocketMaxSeconds = 600
)

var (
	errIdle    = errors.New("socket idle")
	errTooLong = errors.New("too much audio on one socket")
)

// sockets counts the WebSockets a Server has open, against its bound.
type sockets struct {
	slots chan struct{}
	// refused counts sockets refused for being over a bound, paced
	// those closed for sending faster than the server's pace.
	refused, paced atomic.Int64
	// opens bounds how fast each address may open sockets.
	opens *openRates
	// lastLog is when a refusal was last logged (Unix ns): one line a
	// second at most, so a client that retries in a loop cannot fill
	// the log.
	lastLog atomic.Int64
}

// logDue says whether a refusal may be logged now.
func (k *sockets) logDue() bool {
	now, last := time.Now().UnixNano(), k.lastLog.Load()
	return now-last >= int64(time.Second) && k.lastLog.CompareAndSwap(last, now)
}

func newSockets(max int) *sockets {
	return &sockets{slots: make(chan struct{}, max), opens: &openRates{byHost: map[string]*bucket{}, now: time.Now}}
}

// A reconnect storm (a client that closes its sockets and opens them
// again at once, in a loop) costs an upgrade and a stream each time: each
// address may open socketOpenBurst sockets at once, then socketOpenRate a
// second. The page opens one a recording.
const (
	socketOpenBurst = DefaultMaxSockets
	socketOpenRate  = 16
	// maxOpenHosts bounds the addresses remembered; past it the ones
	// whose allowance is full again are forgotten, else all.
	maxOpenHosts = 4096
)

// openRates is each address's allowance of new sockets.
type openRates struct {
	mu     sync.Mutex
	byHost map[string]*bucket
	now    func() time.Time // tests replace it
}

// take reports whether the address of remote (host:port) may open a
// socket now, and counts it.
func (o *openRates) take(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	b := o.byHost[host]
	if b == nil {
		if len(o.byHost) >= maxOpenHosts {
			o.forgetFull(now)
		}
		b = &bucket{rate: socketOpenRate, burst: socketOpenBurst}
		o.byHost[host] = b
	}
	b.refill(now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// forgetFull forgets the addresses whose allowance is full again (all of
// them when none is), with o.mu held.
func (o *openRates) forgetFull(now time.Time) {
	for host, b := range o.byHost {
		if b.refill(now); b.tokens >= b.burst {
			delete(o.byHost, host)
		}
	}
	if len(o.byHost) >= maxOpenHosts {
		clear(o.byHost)
	}
}

// accept upgrades a request to a WebSocket when one of the server's
// Config.MaxSockets slots is free; over the bound it answers 503 with a
// reason (and Retry-After), before any upgrade, and returns nil. The
// caller releases the slot with socket.done.
func (s *Server) accept(w http.ResponseWriter, r *http.Request, readLimit int64) *socket {
	if !s.sockets.opens.take(r.RemoteAddr) {
		s.sockets.refused.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("too many new WebSockets from your address: %d at once, then %d a second; try again later", socketOpenBurst, socketOpenRate), http.StatusServiceUnavailable)
		return nil
	}
	select {
	case s.sockets.slots <- struct{}{}:
	default:
		if n := s.sockets.refused.Add(1); s.sockets.logDue() {
			s.cfg.Log.Printf("web: %s refused: %d WebSockets open already (serve --max-sockets); %d refused since start", r.URL.Path, s.cfg.MaxSockets, n)
		}
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("too many open WebSockets: this server takes %d at once; try again later", s.cfg.MaxSockets), http.StatusServiceUnavailable)
		return nil
	}
	// Accept checks that the Origin is this host, so other sites cannot
	// drive the audio endpoints from a visitor's browser.
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		<-s.sockets.slots
		s.cfg.Log.Printf("web: websocket: %v", err)
		return nil
	}
	c.SetReadLimit(readLimit)
	k := &socket{c: c, srv: s}
	// A client that drips a sample just inside the idle time would hold
	// its slot for good; an honest one, sending in real time, reaches the
	// audio bound within SocketMaxSeconds, so twice that is its lifetime.
	life := time.Duration(2 * s.cfg.SocketMaxSeconds * float64(time.Second))
	k.lifetime = time.AfterFunc(life, func() {
		s.cfg.Log.Printf("web: a WebSocket open for %v: closed", life)
		c.Close(websocket.StatusPolicyViolation, fmt.Sprintf("open longer than %v (twice the audio bound)", life))
	})
	return k
}

// socket is one accepted WebSocket under its server's bounds: a read waits
// at most Config.SocketIdle, the audio it carries is at most
// Config.SocketMaxSeconds long, and it is open at most twice that.
type socket struct {
	c          *websocket.Conn
	srv        *Server
	audioBytes int64
	own        bucket // its own allowance of audio (pace.go)
	released   bool
	lifetime   *time.Timer // closes the socket at twice SocketMaxSeconds
}

// done closes the connection (when it is still open) and frees its slot.
func (k *socket) done() {
	k.lifetime.Stop()
	k.c.CloseNow()
	if !k.released {
		k.released = true
		<-k.srv.sockets.slots
	}
}

// read reads the next message. When none comes within Config.SocketIdle
// the socket is closed with a reason (StatusPolicyViolation) and read
// returns errIdle.
func (k *socket) read(ctx context.Context) (websocket.MessageType, []byte, error) {
	idle := k.srv.cfg.SocketIdle
	var fired atomic.Bool
	timer := time.AfterFunc(idle, func() {
		fired.Store(true)
		k.c.Close(websocket.StatusPolicyViolation, fmt.Sprintf("idle: no message for %v", idle))
	})
	typ, data, err := k.c.Read(ctx)
	if !timer.Stop() || fired.Load() {
		k.srv.cfg.Log.Printf("web: a WebSocket sent nothing for %v: closed", idle)
		return 0, nil, errIdle
	}
	return typ, data, err
}

// admitAudio counts n more bytes of 16-bit PCM at rate Hz against the
// socket's bound, returning errTooLong (taking nothing) when they would
// pass it, then holds them to the server's pace (pace.go): errTooFast when
// the socket is too far ahead of it, ctx's error when the socket goes
// while it waits.
func (k *socket) admitAudio(ctx context.Context, n, rate int) error {
	limit := int64(k.srv.cfg.SocketMaxSeconds * float64(rate) * 2)
	if k.audioBytes+int64(n) > limit {
		return errTooLong
	}
	k.audioBytes += int64(n)
	return k.pace(ctx, n, rate)
}

// closeFor is the close code and reason after admitAudio's errTooLong or
// errTooFast.
func (k *socket) closeFor(err error) (websocket.StatusCode, string) {
	if errors.Is(err, errTooFast) {
		return websocket.StatusTryAgainLater, k.tooFastReason()
	}
	return websocket.StatusMessageTooBig, k.tooLongReason()
}

// tooLongReason is the close reason after errTooLong.
func (k *socket) tooLongReason() string {
	return "more than " + strconv.FormatFloat(k.srv.cfg.SocketMaxSeconds, 'g', -1, 64) + " s of audio on one socket: the stream ended there"
}
