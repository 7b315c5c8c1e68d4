package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/streaming"
)

// Sockets that open and send nothing take the server's slots only until
// their idle time: past MaxSockets every further socket, the page's or the
// Vosk one's, is refused with 503 and the reason, while a socket that was
// admitted still gets its answer; each idle socket is then closed with
// 1008 and the reason, not before its idle time, and its slot is free
// again.
func TestIdleSocketsAreRefusedAndClosed(t *testing.T) {
	const idle = 1500 * time.Millisecond
	var logged syncBuffer
	hs, c := connectedPage(t, Config{MaxSockets: 24, SocketIdle: idle, Log: log.New(&logged, "", 0)})
	base := "ws" + strings.TrimPrefix(hs.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	urls := []string{base + "/ws/audio?rate=8000", base + VoskPath}
	opened := time.Now()
	var idlers []*websocket.Conn
	for i := 0; i < 23; i++ {
		conn, _, err := websocket.Dial(ctx, urls[i%2], nil)
		if err != nil {
			t.Fatalf("idle socket %d: %v", i, err)
		}
		defer conn.CloseNow()
		idlers = append(idlers, conn)
	}
	worker, _, err := websocket.Dial(ctx, base+VoskPath, nil)
	if err != nil {
		t.Fatalf("the 24th socket: %v", err)
	}
	defer worker.CloseNow()
	refusing := time.Now()
	for i := 0; i < 40; i++ {
		_, resp, err := websocket.Dial(ctx, urls[i%2], nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("socket %d past the bound: %v %v, want 503", 25+i, err, resp)
		}
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), "too many open WebSockets") || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("503 body %q, Retry-After %q", body, resp.Header.Get("Retry-After"))
		}
	}
	// Refusals are logged once a second at most.
	if n, most := strings.Count(logged.String(), "refused: "), 1+int(time.Since(refusing)/time.Second); n < 1 || n > most {
		t.Fatalf("%d log lines for 40 refusals, want 1 to %d:\n%s", n, most, logged.String())
	}
	// The admitted socket is answered in full while the others idle.
	live, _ := engine.NewLiveRecognizer(c.Model)
	pcm, _ := streaming.EncodePCM(twoUtterances(), streaming.EncS16)
	samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)
	want, _ := live.Recognize(samples, 8000)
	if _, texts := resultWords(voskTalk(t, ctx, worker, "", pcm, 3200)); strings.Join(texts, " ") != want.Text {
		t.Fatalf("the working socket heard %q, want %q", texts, want.Text)
	}
	for i, conn := range idlers {
		_, _, err := conn.Read(ctx)
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || !strings.Contains(ce.Reason, "idle") {
			t.Fatalf("idle socket %d: %v, want 1008 saying idle", i, err)
		}
		if since := time.Since(opened); since < idle {
			t.Fatalf("idle socket %d closed after %v, before its idle time %v", i, since, idle)
		}
	}
	// Their slots are free again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, _, err := websocket.Dial(ctx, urls[0], nil)
		if err == nil {
			conn.CloseNow()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot free after the idle sockets closed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A socket carries at most SocketMaxSeconds of audio: the page's stream
// and the Vosk one end at the bound with the result of the audio before
// it (recognize's on those samples), and the socket closes with 1009 and
// the reason.
func TestSocketAudioIsBounded(t *testing.T) {
	hs, c := connectedPage(t, Config{SocketMaxSeconds: 1.5})
	base := "ws" + strings.TrimPrefix(hs.URL, "http")
	live, _ := engine.NewLiveRecognizer(c.Model)
	pcm, _ := streaming.EncodePCM(twoUtterances(), streaming.EncS16)
	samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)
	want, _ := live.Recognize(samples[:12000], 8000) // 1.5 s: 15 chunks of 100 ms
	if want.Text != "up down" {
		t.Fatalf("the first 1.5 s hold %q: the test needs \"up down\"", want.Text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	checkClose := func(what string, err error) {
		t.Helper()
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusMessageTooBig || !strings.Contains(ce.Reason, "more than 1.5 s of audio") {
			t.Fatalf("%s: closed with %v, want 1009 naming the bound", what, err)
		}
	}

	// The page's socket: results until the end-of-stream one, then 1009.
	conn, _, err := websocket.Dial(ctx, base+"/ws/audio?rate=8000", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	for off := 0; off < len(pcm); off += 1600 {
		if conn.Write(ctx, websocket.MessageBinary, pcm[off:min(off+1600, len(pcm))]) != nil {
			break // the server closed the socket at the bound
		}
	}
	var last engine.Result
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			checkClose("page socket", err)
			break
		}
		json.Unmarshal(data, &last)
	}
	if !last.EOS || last.Text != want.Text {
		t.Fatalf("page socket: last result %+v, want the end of the stream with %q", last, want.Text)
	}

	// The Vosk socket: the chunk past the bound is answered with the final
	// result, then 1009.
	conn, _, err = websocket.Dial(ctx, base+VoskPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	var texts []string
	for off := 0; off < len(pcm); off += 1600 {
		if err := conn.Write(ctx, websocket.MessageBinary, pcm[off:min(off+1600, len(pcm))]); err != nil {
			t.Fatal(err)
		}
		_, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("chunk at %d bytes: %v", off, err)
		}
		var r voskReply
		json.Unmarshal(data, &r)
		if r.Text != nil && *r.Text != "" {
			texts = append(texts, *r.Text)
		}
		if off == 15*1600 {
			if r.Text == nil {
				t.Fatalf("the chunk past the bound was answered %s, want the final result", data)
			}
			break // the 16th chunk passed the bound: its answer was the final result
		}
	}
	_, _, err = conn.Read(ctx)
	checkClose("vosk socket", err)
	if strings.Join(texts, " ") != want.Text {
		t.Fatalf("vosk socket heard %q, want %q", texts, want.Text)
	}
}

// syncBuffer is a bytes.Buffer the server's goroutines may log to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A socket that sends a sample just inside its idle time is still closed
// at twice the audio bound, with 1008 and the reason.
func TestDrippingSocketIsClosedAtItsLifetime(t *testing.T) {
	hs, _ := connectedPage(t, Config{SocketMaxSeconds: 0.5, SocketIdle: 300 * time.Millisecond})
	for _, path := range []string{"/ws/audio?rate=8000", VoskPath} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// Timed from before the dial: the server's clock starts when it
		// accepts, before the client's Dial returns (timed after it, a
		// run measured 994 ms).
		opened := time.Now()
		conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		go func() {
			for conn.Write(ctx, websocket.MessageBinary, []byte{0, 0}) == nil {
				time.Sleep(200 * time.Millisecond)
			}
		}()
		var ce websocket.CloseError
		for {
			if _, _, err = conn.Read(ctx); err != nil {
				break
			}
		}
		if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || !strings.Contains(ce.Reason, "open longer than 1s") {
			t.Fatalf("%s: %v, want 1008 saying open longer than 1s", path, err)
		}
		if since := time.Since(opened); since < time.Second || since > 3*time.Second {
			t.Fatalf("%s: closed after %v, want about 1 s", path, since)
		}
	}
}
