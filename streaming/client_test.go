package streaming

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
)

// A pipeline may end a stream before its last message (its idle rule did
// so during a server restart) and answer the messages after with errors:
// StreamAudio returns the end-of-stream result it got, at the end of its
// audio, instead of waiting out its timeout for another. Before, each
// later error result overwrote it and the stream failed after Timeout.
func TestStreamAudioKeepsAnEarlyEndOfStreamResult(t *testing.T) {
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	fake, err := srv.Connect("fake-pipeline")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	answer := func(r rfstream.Result) {
		b, _ := json.Marshal(r)
		fake.Publish(Subject("toy", KindResult, "early"), b)
	}
	n := 0
	if _, err := fake.Subscribe(Subject("toy", KindPCM, "early"), func(*nats.Msg) {
		if n++; n == 1 {
			answer(rfstream.Result{Text: "up", Final: true, EOS: true})
			return
		}
		answer(rfstream.Result{Error: `stream "early" has already ended; start a new stream name`})
	}); err != nil {
		t.Fatal(err)
	}
	fake.Flush()
	nc, err := srv.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	start := time.Now()
	a := &frontend.Audio{Rate: 8000, Samples: make([]float32, 8000)} // 10 messages
	got, err := StreamAudio(context.Background(), nc, "toy", "early", a, StreamOptions{RealTime: true, ChunkMs: 100, Timeout: 3 * time.Second}, nil)
	if err != nil || !got.EOS || got.Text != "up" {
		t.Fatalf("StreamAudio: %+v, %v after %v; want the early end-of-stream result", got, err, time.Since(start))
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("StreamAudio returned after %v, want about the audio's 1 s", took)
	}
}
