package web

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// postRecording posts a file to /api/recognize and returns the status,
// the body and, on 200, the result.
func postRecording(t *testing.T, hs *httptest.Server, query string, file []byte) (int, string, engine.Result) {
	t.Helper()
	resp, err := http.Post(hs.URL+"/api/recognize"+query, "application/octet-stream", bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var res engine.Result
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatalf("200 with %q: %v", body, err)
		}
	}
	return resp.StatusCode, string(body), res
}

func wavOf(t *testing.T, samples []float32) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: 8000, Samples: samples}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A recording posted as a file is heard as the same audio streamed over
// the page's WebSocket: the same end-of-stream words, times and
// confidences; a FLAC copy (when ffmpeg makes one) gives the same words,
// told apart by its header.
func TestPostedRecordingIsHeardAsTheStreamedOne(t *testing.T) {
	hs, _, _ := page(t)
	x := toymodels.UpDown()
	pcm, _ := streaming.EncodePCM(x, streaming.EncS16)
	streamed := record(t, hs, "?rate=8000", pcm)
	want := streamed[len(streamed)-1]
	file := wavOf(t, x)
	code, body, got := postRecording(t, hs, "", file)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	if !got.EOS || got.Text != want.Text || got.Text != "up down" || len(got.Words) != len(want.Words) {
		t.Fatalf("posted: %+v; streamed: %+v", got, want)
	}
	// Confidences within 1e-6, as the WebSocket is held to the in-process
	// recogniser: the file goes in 1 s messages, the socket's in 100 ms.
	for i := range got.Words {
		g, w := got.Words[i], want.Words[i]
		if g.Word != w.Word || g.Start != w.Start || g.End != w.End || g.Rejected != w.Rejected || math.Abs(g.Conf-w.Conf) > 1e-6 {
			t.Fatalf("word %d: posted %+v, streamed %+v", i, g, w)
		}
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Logf("ffmpeg is not installed: no FLAC copy (Debian: apt-get install ffmpeg)")
		return
	}
	dir := t.TempDir()
	src, flac := filepath.Join(dir, "a.wav"), filepath.Join(dir, "a.bin")
	if err := os.WriteFile(src, file, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("ffmpeg", "-loglevel", "error", "-i", src, "-f", "flac", flac).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	b, err := os.ReadFile(flac)
	if err != nil {
		t.Fatal(err)
	}
	if code, body, res := postRecording(t, hs, "?voice=alice", b); code != http.StatusOK || res.Text != want.Text {
		t.Fatalf("FLAC: status %d, %q, %+v; want %q", code, body, res, want.Text)
	}
}

// What cannot be heard is refused with the reason and a status saying
// whose fault it is, before the pipeline sees any of it.
func TestBadRecordingsAreRefused(t *testing.T) {
	hs, _, _ := pageConfigured(t, mustWords(t), func(c *Config) { c.SocketMaxSeconds = 1 })
	long := wavOf(t, make([]float32, 8000*2))
	m4a := append([]byte{0, 0, 0, 0x20}, []byte("ftypM4A \x00\x00\x02\x00M4A isommp42")...)
	m4a = append(m4a, make([]byte, 64)...)
	for _, c := range []struct {
		name, query string
		file        []byte
		code        int
		says        string
	}{
		{"empty", "", nil, http.StatusBadRequest, "empty"},
		{"not audio", "", []byte("hello, this is text and no audio at all"), http.StatusUnsupportedMediaType, "not a known audio format"},
		{"M4A", "", m4a, http.StatusUnsupportedMediaType, "ffmpeg -i"},
		{"truncated WAV", "", wavOf(t, make([]float32, 100))[:30], http.StatusBadRequest, "WAV"},
		{"longer than the page's bound", "", long, http.StatusRequestEntityTooLarge, "longer than 1 s"},
		{"over the byte bound", "", make([]byte, MaxUploadBytes+1), http.StatusRequestEntityTooLarge, "larger than"},
		{"a bad voice name", "?voice=a.b", wavOf(t, toymodels.UpDown()), http.StatusBadRequest, "voice"},
	} {
		code, body, _ := postRecording(t, hs, c.query, c.file)
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: status %d, %q; want %d saying %q", c.name, code, body, c.code, c.says)
		}
	}
}

// Only maxUploads recordings are decoded and heard at once, and one an
// address: the next is told to come back.
func TestRecordingsBeingHeardAreBounded(t *testing.T) {
	hs, h, _ := pageConfigured(t, mustWords(t), func(*Config) {})
	file := wavOf(t, toymodels.UpDown())
	for range maxUploads {
		h.uploads.all <- struct{}{}
	}
	if code, body, _ := postRecording(t, hs, "", file); code != http.StatusServiceUnavailable {
		t.Errorf("with %d recordings being heard: status %d, %q; want 503", maxUploads, code, body)
	}
	for range maxUploads {
		<-h.uploads.all
	}
	release, ok := h.uploads.perHost.take("127.0.0.1:1")
	if !ok {
		t.Fatal("no share for a new address")
	}
	if code, body, _ := postRecording(t, hs, "", file); code != http.StatusTooManyRequests {
		t.Errorf("with this address's recording being heard: status %d, %q; want 429", code, body)
	}
	release()
	if code, body, res := postRecording(t, hs, "", file); code != http.StatusOK || res.Text != "up down" {
		t.Errorf("after both were released: status %d, %q", code, body)
	}
}

func mustWords(t *testing.T) *engine.WordClassifier {
	t.Helper()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	return words
}

// A posted recording's audio draws on the pool the WebSockets share: when
// the pool is further behind than a socket may wait, the recording is
// refused as too fast, not published into the pipeline's NATS clients.
func TestPostedRecordingsShareTheSocketsPace(t *testing.T) {
	hs, _, _ := pageConfigured(t, mustWords(t), func(c *Config) { c.SocketPoolBytes, c.SocketPoolBurst = 1, 1 })
	code, body, _ := postRecording(t, hs, "", wavOf(t, toymodels.UpDown()))
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "as fast as it can") {
		t.Errorf("with a pool of 1 B/s: status %d, %q; want 503 saying so", code, body)
	}
}

// A sender that drips its recording is cut off when the read time runs
// out, and its slot is free for the next recording.
func TestADrippedRecordingLosesItsSlot(t *testing.T) {
	hs, h, _ := pageConfigured(t, mustWords(t), func(*Config) {})
	h.uploadRead = 300 * time.Millisecond
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte("RIFF")) // then nothing more
	start := time.Now()
	resp, err := http.Post(hs.URL+"/api/recognize", "application/octet-stream", pr)
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Errorf("a dripped body: status %d, %q; want 408", resp.StatusCode, body)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the dripped body held the request for %v", d)
	}
	if code, body, res := postRecording(t, hs, "", wavOf(t, toymodels.UpDown())); code != http.StatusOK || res.Text != "up down" {
		t.Errorf("the next recording: status %d, %q", code, body)
	}
}
