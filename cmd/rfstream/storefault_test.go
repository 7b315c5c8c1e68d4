package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/localcreds"
	"github.com/rfstream/rfstream/internal/testproc"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// A full disk under --durable speaks. serve runs with its file size
// limited (ulimit -f, as the issue measured it) until its JetStream store
// cannot write: serve logs the store's error, the stages count it in their
// storage errors ($SRV.STATS), and the client whose audio the store does
// not take is told so with the store's words within seconds. Before, the
// client's publishes went unanswered until its patience ran out, with no
// result, and serve said nothing.
func TestAFullStoreSpeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("a real serve process filling its store")
	}
	words, images := hostileModels(t)
	port := freePort(t)
	p := &proc{cmd: testproc.Command("bash", "-c", `ulimit -f 256 && exec "$0" "$@"`, cliBinary(t), "serve", "--durable",
		"--store", t.TempDir(), "--port", strconv.Itoa(port), "--model", words, "--image-model", images), out: &syncBuffer{}}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.Env = cleanNATSEnv()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(p.out.String(), "serving pipeline"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready in 20 s:\n%s", p.out.String())
		}
	}
	var opts []nats.Option
	if seed := localcreds.SeedFor("127.0.0.1:" + strconv.Itoa(port)); seed != "" {
		o, err := nats.NkeyOptionFromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, o)
	}
	nc, err := nats.Connect("nats://127.0.0.1:"+strconv.Itoa(port), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	// Each stream stores its audio, segments, scores and results (some
	// 150 KB): the 256 KB limit is met within a few streams.
	var refused error
	var took time.Duration
	for i := 0; i < 20 && refused == nil; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start := time.Now()
		r, err := streaming.StreamAudio(ctx, nc, "rfs", "s"+strconv.Itoa(i), a, streaming.StreamOptions{Durable: true, Timeout: 20 * time.Second, Encoding: streaming.EncS16}, nil)
		cancel()
		switch {
		case err != nil:
			refused, took = err, time.Since(start)
		case r.Text != "up down":
			t.Fatalf("stream %d, before the store filled: %+v", i, r)
		}
	}
	if refused == nil || !strings.Contains(refused.Error(), "the JetStream store failed to write") || !strings.Contains(refused.Error(), "file too large") {
		t.Fatalf("streams into a full store: %v, want the store's write error\nserve said:\n%s", refused, p.out.String())
	}
	// Bounded by the stream's own patience (20 s of silence) at worst;
	// a new stream's first publish learns it within seconds.
	if took > 25*time.Second {
		t.Errorf("the client learnt of the full store after %v", took)
	}
	if !strings.Contains(p.out.String(), "the JetStream store failed to write") {
		t.Errorf("serve did not log the store's fault:\n%s", p.out.String())
	}
	t.Logf("the client was told after %v: %v", took.Round(time.Millisecond), refused)
}
