package web

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"
)

// pacedServer is a server's pacing alone, on a clock the test moves.
func pacedServer(poolBytes, poolBurst int) (*Server, *time.Time) {
	now := time.Unix(1000, 0)
	p := newPool(poolBytes, poolBurst)
	p.now = func() time.Time { return now }
	return &Server{pool: p, sockets: newSockets(4)}, &now
}

// A socket sending at a live speaker's pace never waits, however far
// behind a flood has put the shared pool; one sending faster waits for the
// pool in turn, and one the pool is too far behind for is refused.
func TestSocketsAreHeldToALiveSpeakersPaceAndOnePool(t *testing.T) {
	const rate = 16000
	second := 2 * rate // bytes of one second of 16-bit audio
	s, now := pacedServer(second, second)
	live, fast := &socket{srv: s}, &socket{srv: s}
	ctx := context.Background()

	// The fast socket uses its own burst, then the pool's, then puts the
	// pool into debt: 2 s of waiting for the next second beyond.
	for _, seconds := range []float64{ownBurst, 1} {
		if err := fast.pace(ctx, int(seconds*float64(second)), rate); err != nil {
			t.Fatalf("%v s within the fast socket's own burst and the pool's: %v", seconds, err)
		}
	}
	wait, ok := s.pool.reserve(second, maxPaceWait)
	if !ok || wait != time.Second {
		t.Fatalf("the next second of the pool: a wait of %v (%v), want 1s", wait, ok)
	}
	// The live socket sends a tenth of a second every tenth of a second
	// for a minute: never a wait, whatever the pool owes.
	for range 600 {
		*now = now.Add(100 * time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- live.pace(ctx, second/10, rate) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Second):
			t.Fatal("a live socket waited")
		}
		s.pool.reserve(second/10, maxPaceWait) // the flood keeps the pool owing
	}
	// A socket asking for more than the pool can give within maxPaceWait
	// is refused, and its charge is undone.
	before := s.pool.b.tokens
	if err := fast.pace(ctx, 20*second, rate); !errors.Is(err, errTooFast) {
		t.Fatalf("20 s beyond the pool at 1 s a second: %v, want errTooFast", err)
	}
	if s.pool.b.tokens != before || s.sockets.paced.Load() != 1 {
		t.Fatalf("the refused charge: pool %v → %v, %d paced", before, s.pool.b.tokens, s.sockets.paced.Load())
	}
	if r := fast.tooFastReason(); len(r) > 123 {
		t.Fatalf("the close reason is %d bytes, over WebSocket's 123: %q", len(r), r)
	}
}

// A socket waiting for the pool stops waiting when its request ends.
func TestAPacedSocketStopsWaitingWhenItGoes(t *testing.T) {
	s, _ := pacedServer(1000, 1000)
	k := &socket{srv: s}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// 5 s of its own, then 2000 bytes: a second beyond the pool's burst.
	if err := k.pace(ctx, int(ownBurst*16000*2)+2000, 16000); !errors.Is(err, context.Canceled) {
		t.Fatalf("pacing after the socket went: %v, want context.Canceled", err)
	}
}

// An address opens 64 sockets at once, then 16 a second (a reconnect
// storm is slowed, not served at once); another address is not affected,
// and the addresses remembered are bounded.
func TestNewSocketsAreRateLimitedByAddress(t *testing.T) {
	now := time.Unix(1000, 0)
	o := &openRates{byHost: map[string]*bucket{}, now: func() time.Time { return now }}
	for i := range socketOpenBurst {
		if !o.take("10.0.0.1:" + strconv.Itoa(1000+i)) {
			t.Fatalf("socket %d of the first %d refused", i, socketOpenBurst)
		}
	}
	if o.take("10.0.0.1:5000") {
		t.Fatal("a socket past the burst taken at once")
	}
	if !o.take("10.0.0.2:5000") {
		t.Fatal("another address refused")
	}
	now = now.Add(time.Second)
	taken := 0
	for range 2 * socketOpenRate {
		if o.take("10.0.0.1:6000") {
			taken++
		}
	}
	if taken != socketOpenRate {
		t.Fatalf("%d sockets taken a second later, want %d", taken, socketOpenRate)
	}
	for i := range 2 * maxOpenHosts {
		o.take("10.1." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256) + ":1")
	}
	if len(o.byHost) > maxOpenHosts {
		t.Fatalf("%d addresses remembered, over %d", len(o.byHost), maxOpenHosts)
	}
}
