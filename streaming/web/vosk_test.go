package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// toyConnected trains the toy connected model once for the package's
// tests (about 10 s on the project's machine).
var toyConnected = sync.OnceValues(toymodels.Connected)

// connectedPage is page with the toy connected-word model ("up", "down")
// behind it, the kind of model the default speech recogniser is, and cfg
// for the handler (Pipeline and Rate are set here).
func connectedPage(t *testing.T, cfg Config) (*httptest.Server, *engine.Connected) {
	t.Helper()
	c, err := toyConnected()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("vosk test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := streaming.Start(nc, streaming.Pipeline{Name: "toy", Connected: c}, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Pipeline, cfg.Rate = "toy", 8000
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	h, err := New(nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs, c
}

// twoUtterances is "up down", a pause longer than the endpointer's 700 ms,
// then "up": two utterances at 8 kHz.
func twoUtterances() []float32 {
	x := append(toymodels.UpWord(11), toymodels.DownWord(12)...)
	x = append(x, toymodels.Noise(8000, 5)...)
	return append(append(x, toymodels.UpWord(13)...), toymodels.Noise(4000, 6)...)
}

// The messages of the Vosk server's protocol as its documentation and
// example clients (vosk-server's websocket/test.py, client-samples/node)
// show them, written here from that description, not from this package.
type voskWord struct {
	Conf  float64 `json:"conf"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Word  string  `json:"word"`
}

type voskReply struct {
	Partial *string     `json:"partial"`
	Result  *[]voskWord `json:"result"`
	Text    *string     `json:"text"`
}

// voskClient does what Vosk's test.py does: a configuration with the
// sample rate, then chunks of chunkBytes, reading one reply after each,
// then {"eof" : 1} and the final reply; it checks the socket then closes
// normally and returns every reply, the final one last.
func voskClient(t *testing.T, url string, config string, pcm []byte, chunkBytes int) []voskReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	return voskTalk(t, ctx, c, config, pcm, chunkBytes)
}

// voskTalk is voskClient on a socket already open.
func voskTalk(t *testing.T, ctx context.Context, c *websocket.Conn, config string, pcm []byte, chunkBytes int) []voskReply {
	t.Helper()
	c.SetReadLimit(1 << 20)
	if config != "" {
		if err := c.Write(ctx, websocket.MessageText, []byte(config)); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() voskReply {
		t.Helper()
		typ, data, err := c.Read(ctx)
		if err != nil || typ != websocket.MessageText {
			t.Fatalf("reading a reply: %v (type %v)", err, typ)
		}
		var r voskReply
		if err := json.Unmarshal(data, &r); err != nil || (r.Partial == nil) == (r.Text == nil) {
			t.Fatalf("reply %s: neither a partial nor a result (%v)", data, err)
		}
		return r
	}
	var replies []voskReply
	for off := 0; off < len(pcm); off += chunkBytes {
		if err := c.Write(ctx, websocket.MessageBinary, pcm[off:min(off+chunkBytes, len(pcm))]); err != nil {
			t.Fatal(err)
		}
		replies = append(replies, recv())
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"eof" : 1}`)); err != nil {
		t.Fatal(err)
	}
	final := recv()
	if final.Text == nil {
		t.Fatalf("the answer to eof is a partial: %+v", final)
	}
	replies = append(replies, final)
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the final result: %v, want a normal close", err)
	}
	return replies
}

// resultWords are the words of every result reply, in order.
func resultWords(replies []voskReply) (words []voskWord, texts []string) {
	for _, r := range replies {
		if r.Text == nil {
			continue
		}
		if *r.Text != "" {
			texts = append(texts, *r.Text)
		}
		if r.Result != nil {
			words = append(words, *r.Result...)
		}
	}
	return words, texts
}

// A Vosk client hears what the in-process live recogniser (recognize's)
// hears: the words of its result replies are the recogniser's words, with
// their times and confidences, and their texts joined are its text. Every
// chunk gets exactly one reply, at 8 kHz as at 16 kHz (the configured
// rate), and with chunks of an odd number of bytes.
func TestVoskClientHearsWhatRecognizeHears(t *testing.T) {
	hs, c := connectedPage(t, Config{})
	m := c.Model
	live, err := engine.NewLiveRecognizer(m)
	if err != nil {
		t.Fatal(err)
	}
	x8 := twoUtterances()
	up, err := frontend.Resample(&frontend.Audio{Rate: 8000, Samples: x8}, 16000)
	if err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + VoskPath
	for _, tc := range []struct {
		name, config string
		samples      []float32
		rate, chunk  int
		wav          bool // send the samples as a WAV file, header first
	}{
		{"8 kHz, 0.2 s chunks", `{ "config" : { "sample_rate" : 8000 } }`, x8, 8000, 3200, false},
		{"16 kHz, 0.2 s chunks", `{ "config" : { "sample_rate" : 16000.0, "words": true } }`, up.Samples, 16000, 6400, false},
		{"no config (8 kHz), odd chunks", "", x8, 8000, 801, false},
		// As Vosk's Node example sends a file: as read, header and all.
		{"16 kHz WAV file in 64 KiB reads, no config", "", up.Samples, 16000, 64 << 10, true},
	} {
		pcm, _ := streaming.EncodePCM(tc.samples, streaming.EncS16)
		samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)
		if tc.wav {
			var b bytes.Buffer
			if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: tc.rate, Samples: samples}); err != nil {
				t.Fatal(err)
			}
			pcm = b.Bytes()
		}
		want, err := live.Recognize(samples, tc.rate)
		if err != nil {
			t.Fatal(err)
		}
		if want.Text != "up down up" {
			t.Fatalf("%s: the toy recogniser hears %q: the test needs it right", tc.name, want.Text)
		}
		replies := voskClient(t, url, tc.config, pcm, tc.chunk)
		if n := (len(pcm) + tc.chunk - 1) / tc.chunk; len(replies) != n+1 {
			t.Fatalf("%s: %d replies to %d chunks and eof", tc.name, len(replies), n)
		}
		words, texts := resultWords(replies)
		if got := strings.Join(texts, " "); got != want.Text || len(words) != len(want.Words) {
			t.Fatalf("%s: a Vosk client hears %q in %d words, recognize %q in %d", tc.name, got, len(words), want.Text, len(want.Words))
		}
		for i, w := range words {
			ww := want.Words[i]
			if w.Word != ww.Word || math.Abs(w.Start-ww.Start) > 1e-9 || math.Abs(w.End-ww.End) > 1e-9 || math.Abs(w.Conf-ww.Conf) > 1e-6 {
				t.Fatalf("%s: word %d: %+v, recognize %+v", tc.name, i, w, ww)
			}
		}
	}
}

// The pipeline's endpointer cuts the two utterances, and a client that
// sends in real time gets them as two results, "up down" then "up", as
// Vosk gives one result per utterance. (Sent as fast as possible, the
// replies may come before the pipeline has decoded, and both utterances
// then come in the final result.)
func TestVoskResultsComePerUtterance(t *testing.T) {
	hs, _ := connectedPage(t, Config{})
	pcm, _ := streaming.EncodePCM(twoUtterances(), streaming.EncS16)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+VoskPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var texts []string
	send := func(msg []byte, typ websocket.MessageType) {
		if err := c.Write(ctx, typ, msg); err != nil {
			t.Fatal(err)
		}
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r voskReply
		json.Unmarshal(data, &r)
		if r.Text != nil && *r.Text != "" {
			texts = append(texts, *r.Text)
		}
	}
	for off := 0; off < len(pcm); off += 1600 {
		send(pcm[off:min(off+1600, len(pcm))], websocket.MessageBinary)
		time.Sleep(100 * time.Millisecond) // 100 ms of audio a chunk: real time
	}
	send([]byte(`{"eof" : 1}`), websocket.MessageText)
	if strings.Join(texts, "|") != "up down|up" {
		t.Fatalf("results %q, want \"up down\" then \"up\"", texts)
	}
}

// {"words": false} leaves the word list out, as Vosk does; eof without
// audio is answered with an empty result; a reset is answered with a
// result and the stream goes on; a text message that is not Vosk's, or a
// rate out of range, or a WAV header that is not 16-bit mono, closes the
// socket saying why.
func TestVoskConfigurationAndRefusals(t *testing.T) {
	hs, _ := connectedPage(t, Config{})
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + VoskPath
	pcm, _ := streaming.EncodePCM(twoUtterances(), streaming.EncS16)
	for _, r := range voskClient(t, url, `{"config": {"sample_rate": 8000, "words": false}}`, pcm, 4000) {
		if r.Result != nil {
			t.Fatalf("a word list after words: false: %+v", r)
		}
	}
	// No audio at all: the final result is empty, and the socket closes.
	if r := voskClient(t, url, `{"config": {"sample_rate": 8000}}`, nil, 1600); len(r) != 1 || *r[0].Text != "" || r[0].Result == nil || len(*r[0].Result) != 0 {
		t.Fatalf("eof without audio: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// {"reset" : 1} is answered with a result and the stream goes on:
	// whatever the reset's answer held, the final one holds the rest.
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A chunk's answer may be the first utterance's result already (when
	// the stage ended it before the answer was due): its text counts too.
	var texts []string
	for off := 0; off < len(pcm); off += 3200 {
		conn.Write(ctx, websocket.MessageBinary, pcm[off:min(off+3200, len(pcm))])
		_, data, err := conn.Read(ctx)
		var r voskReply
		if err != nil || json.Unmarshal(data, &r) != nil {
			t.Fatalf("answer to a chunk: %s %v", data, err)
		}
		if r.Text != nil && *r.Text != "" {
			texts = append(texts, *r.Text)
		}
	}
	for _, msg := range []string{`{"reset" : 1}`, `{"eof" : 1}`} {
		conn.Write(ctx, websocket.MessageText, []byte(msg))
		_, data, err := conn.Read(ctx)
		var r voskReply
		if err != nil || json.Unmarshal(data, &r) != nil || r.Text == nil {
			t.Fatalf("answer to %s: %s %v, want a result", msg, data, err)
		}
		if *r.Text != "" {
			texts = append(texts, *r.Text)
		}
	}
	if strings.Join(texts, " ") != "up down up" {
		t.Fatalf("reset then eof gave %q", texts)
	}
	conn.CloseNow()
	for _, c := range []struct{ msg, why string }{
		{"hello", "text message"},
		{`{"config": {"sample_rate": 10}}`, "sample_rate 10"},
		{`{"config": {"sample_rate": "x"}}`, "sample_rate"},
		{"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x40\x1f\x00\x00\x00\x7d\x00\x00\x04\x00\x10\x00data\x00\x00\x00\x00", "2 channels"},
		// A compressed file sent as samples is named, not heard as noise.
		{"fLaC\x00\x00\x00\x22" + strings.Repeat("\x00", 34), "FLAC; send 16-bit mono PCM"},
		{"ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00", "MP3; send 16-bit mono PCM"},
	} {
		conn, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		typ := websocket.MessageText
		if !strings.HasPrefix(c.msg, "{") && c.msg != "hello" {
			typ = websocket.MessageBinary
		}
		conn.Write(ctx, typ, []byte(c.msg))
		_, _, err = conn.Read(ctx)
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusUnsupportedData || !strings.Contains(ce.Reason, c.why) {
			t.Fatalf("%q: closed with %v, want 1003 saying %q", c.msg, err, c.why)
		}
		conn.CloseNow()
	}
}
