package streaming

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/rfstream/rfstream/engine"
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
	answer := func(r engine.Result) {
		b, _ := json.Marshal(r)
		fake.Publish(Subject("toy", KindResult, "early"), b)
	}
	n := 0
	if _, err := fake.Subscribe(Subject("toy", KindPCM, "early"), func(*nats.Msg) {
		if n++; n == 1 {
			answer(engine.Result{Text: "up", Final: true, EOS: true})
			return
		}
		answer(engine.Result{Error: `stream "early" has already ended; start a new stream name`})
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

// slowStage is a fake decoder stage of a pipeline named after its stream
// (a NATS micro
// service, as every stage is) for a client's patience: its counters move
// at each look while working is set, and it sends the stream's
// end-of-stream result at its answerAt-th look, so the client hears
// nothing for several of its timeouts whatever the clock does.
type slowStage struct {
	looks    atomic.Int32
	working  bool
	answerAt int32
}

func (f *slowStage) start(t *testing.T, srv *Embedded, stream string) {
	t.Helper()
	nc, err := srv.Connect("slow-stage")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	svc, err := micro.AddService(nc, micro.Config{Name: ServiceName(StageDecoder), Version: "0.1.0", Metadata: map[string]string{"pipeline": stream},
		StatsHandler: func(*micro.Endpoint) any {
			n := f.looks.Add(1)
			if n == f.answerAt {
				b, _ := json.Marshal(engine.Result{Text: "up", Final: true, EOS: true})
				nc.Publish(Subject(stream, KindResult, stream), b)
			}
			if f.working {
				return ServiceStats{Vectors: int64(n)}
			}
			return ServiceStats{}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	if err := svc.AddEndpoint("pcm", micro.HandlerFunc(func(micro.Request) {}), micro.WithEndpointSubject(Subject(stream, KindPCM, stream))); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

// A stream whose pipeline is behind is waited for past its Timeout while
// the pipeline's stages keep working (their counters move), and given up
// on when they stop or when none answers. Before, any silence of Timeout
// failed the stream: under load the demo lost streams that the pipeline
// had queued behind others and would have answered
// (experiments/journal/streaming.md).
func TestStreamAudioWaitsForAPipelineThatIsBehind(t *testing.T) {
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	a := &frontend.Audio{Rate: 8000, Samples: make([]float32, 800)}
	o := StreamOptions{Timeout: 100 * time.Millisecond}

	behind := &slowStage{working: true, answerAt: 5}
	behind.start(t, srv, "behind")
	got, err := StreamAudio(context.Background(), nc, "behind", "behind", a, o, nil)
	if err != nil || !got.EOS || got.Text != "up" {
		t.Fatalf("a pipeline behind: %+v, %v after %d looks; want its end-of-stream result", got, err, behind.looks.Load())
	}

	stuck := &slowStage{answerAt: 1000}
	stuck.start(t, srv, "stuck")
	_, err = StreamAudio(context.Background(), nc, "stuck", "stuck", a, o, nil)
	if err == nil || !strings.Contains(err.Error(), "did nothing in the last") {
		t.Fatalf("a pipeline whose stages do nothing: %v after %d looks, want the stream given up", err, stuck.looks.Load())
	}

	_, err = StreamAudio(context.Background(), nc, "nowhere", "gone", a, o, nil)
	if err == nil || !strings.Contains(err.Error(), "no stage of pipeline") {
		t.Fatalf("no pipeline: %v, want the stream given up", err)
	}
}
