package web

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// decodedFrames is what the page reads from frames messages.
type decodedFrames struct {
	bands int
	rows  [][]byte // per frame: energy, then the bands; nil where a message was dropped
	msgs  int
	bytes int
	sizes []int // frames in each message
}

// decodeFrames parses frames messages as the page does (docs/streaming.md)
// and fails the test on any message that breaks the layout: wrong kind,
// bands or scale, more than FramesPerMessage frames, a length that
// disagrees with its header, or a first-frame index that is not where the
// message before left off (unless gaps, dropped messages, are allowed).
func decodeFrames(t *testing.T, msgs [][]byte, gaps bool) decodedFrames {
	t.Helper()
	var d decodedFrames
	for i, m := range msgs {
		if len(m) < 16 || m[0] != 1 {
			t.Fatalf("message %d: %d bytes, kind %v", i, len(m), m[:min(1, len(m))])
		}
		bands, n, first := int(m[1]), int(binary.LittleEndian.Uint16(m[2:])), int(binary.LittleEndian.Uint32(m[4:]))
		lo, step := math.Float32frombits(binary.LittleEndian.Uint32(m[8:])), math.Float32frombits(binary.LittleEndian.Uint32(m[12:]))
		if d.bands == 0 {
			d.bands = bands
		}
		switch {
		case bands != d.bands:
			t.Fatalf("message %d: %d bands after %d", i, bands, d.bands)
		case n < 1 || n > 5:
			t.Fatalf("message %d: %d frames (1..5 allowed)", i, n)
		case len(m) != 16+n*(1+bands):
			t.Fatalf("message %d: %d bytes for %d frames of %d bands", i, len(m), n, bands)
		case first < len(d.rows) || (first > len(d.rows) && !gaps):
			t.Fatalf("message %d starts at frame %d, after %d frames", i, first, len(d.rows))
		case lo != -20 || step != 0.125:
			t.Fatalf("message %d: scale %g + q·%g, documented -20 + q·0.125", i, lo, step)
		}
		for len(d.rows) < first {
			d.rows = append(d.rows, nil)
		}
		for f := 0; f < n; f++ {
			d.rows = append(d.rows, m[16+f*(1+bands):16+(f+1)*(1+bands)])
		}
		d.msgs++
		d.sizes = append(d.sizes, n)
		d.bytes += len(m)
	}
	return d
}

// checkFramesEqual compares decoded frames with the frontend's log-mel
// frames and energies of the same samples, each byte against the
// documented scale written out afresh here: q = round((v + 20) / 0.125)
// clamped to 0..255. Frames of dropped messages are skipped, and the
// frames that came are returned.
func checkFramesEqual(t *testing.T, d decodedFrames, cfg frontend.AudioConfig, samples []float32) int {
	t.Helper()
	want, energy := frontend.LogMel(cfg, samples)
	if len(d.rows) > want.Rows || (len(d.rows) < want.Rows && len(d.rows)+FramesPerMessage > want.Rows) || d.bands != want.Cols {
		t.Fatalf("%d frames of %d bands sent; the frontend makes %d of %d", len(d.rows), d.bands, want.Rows, want.Cols)
	}
	q := func(v float64) byte { return byte(min(255, max(0, math.Round((v+20)/0.125)))) }
	inRange, came := 0, 0
	for i, row := range d.rows {
		if row == nil {
			continue
		}
		came++
		if row[0] != q(energy[i]) {
			t.Fatalf("frame %d: energy byte %d, the frontend's %.4f is %d", i, row[0], energy[i], q(energy[i]))
		}
		for b := 0; b < d.bands; b++ {
			v := float64(want.Data[i*want.Stride+b])
			if row[1+b] != q(v) {
				t.Fatalf("frame %d band %d: byte %d, the frontend's %.4f is %d", i, b, row[1+b], v, q(v))
			}
			if row[1+b] > 0 && row[1+b] < 255 {
				inRange++
			}
		}
	}
	// The scale must suit real frames: most bytes neither clamp low nor high.
	if inRange < came*d.bands/2 {
		t.Fatalf("only %d of %d band bytes lie inside the scale", inRange, came*d.bands)
	}
	return came
}

// framesOf runs a frameSender over samples pushed in chunks of chunk
// samples and returns its messages.
func framesOf(t *testing.T, audio frontend.AudioConfig, rate, chunk int, samples []float32) [][]byte {
	t.Helper()
	fs, err := newFrameSender(audio, rate)
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	for off := 0; off < len(samples); off += chunk {
		msgs = append(msgs, fs.push(samples[off:min(off+chunk, len(samples))])...)
	}
	return append(msgs, fs.flush()...)
}

// The frames a socket sends are the frontend's log-mel frames of the same
// samples however they are chunked, resampled like the pipeline's when
// the page sends another rate, and stripped of what a model adds after
// the log-mel stage (cepstra, deltas, CMVN, splicing).
func TestFramesAreTheFrontendsLogMel(t *testing.T) {
	speech := toymodels.UpDown()
	connected := engine.DefaultConnectedInput().Audio // MFCC + Δ + ΔΔ, CMVN, spliced
	for _, chunk := range []int{800, 37, len(speech)} {
		d := decodeFrames(t, framesOf(t, connected, 8000, chunk, speech), false)
		checkFramesEqual(t, d, frontend.DefaultAudioConfig(), speech)
	}
	// At 16 kHz the frames are those of the audio resampled to the model's 8 kHz.
	a16, err := frontend.Resample(&frontend.Audio{Rate: 8000, Samples: speech}, 16000)
	if err != nil {
		t.Fatal(err)
	}
	a8, err := frontend.Resample(a16, 8000)
	if err != nil {
		t.Fatal(err)
	}
	d := decodeFrames(t, framesOf(t, connected, 16000, 1600, a16.Samples), false)
	checkFramesEqual(t, d, frontend.DefaultAudioConfig(), a8.Samples)
	// A signal shorter than a frame still gets its one padded frame, as LogMel does.
	d = decodeFrames(t, framesOf(t, connected, 8000, 800, speech[:50]), false)
	checkFramesEqual(t, d, frontend.DefaultAudioConfig(), speech[:50])
}

// The bandwidth is bounded by the audio, not the chunking: a message per
// FramesPerMessage frames (the first, sent as soon as a frame is ready,
// and the last may hold fewer), which for 40 bands at 8 kHz is under 30 %
// of the PCM it pictures. A page that does not read
// its socket never holds up the audio: past the queue, frames are dropped.
func TestFramesRateIsBounded(t *testing.T) {
	speech := append(append(toymodels.Noise(8000, 3), toymodels.UpDown()...), toymodels.Noise(8000, 4)...)
	audio := frontend.DefaultAudioConfig()
	for _, chunk := range []int{1, 160, 800, 8000, len(speech)} {
		d := decodeFrames(t, framesOf(t, audio, 8000, chunk, speech), false)
		frames := len(d.rows)
		if most := (frames+FramesPerMessage-1)/FramesPerMessage + 1; d.msgs > most {
			t.Fatalf("chunks of %d: %d messages for %d frames, want at most %d", chunk, d.msgs, frames, most)
		}
		if d.sizes[0] < 1 || slices.ContainsFunc(d.sizes[1:len(d.sizes)-1], func(n int) bool { return n != FramesPerMessage }) {
			t.Fatalf("chunks of %d: frames per message %v, want %d but for the first and last", chunk, d.sizes, FramesPerMessage)
		}
		if pcm := 2 * len(speech); d.bytes*10 > pcm*3 {
			t.Fatalf("chunks of %d: %d bytes of frames for %d bytes of PCM", chunk, d.bytes, pcm)
		}
	}

	// The page's first chunk is 30 ms: its one frame goes at once.
	early, err := newFrameSender(audio, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if first := decodeFrames(t, early.push(speech[:240]), false); first.msgs != 1 || len(first.rows) != 1 {
		t.Fatalf("after the first 30 ms: %d messages of %d frames, want the one frame at once", first.msgs, len(first.rows))
	}

	send, err := newFrameSender(audio, 8000)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var written [][]byte
	fs := startFrames(send, func(m []byte) error {
		<-release // a page that does not read
		written = append(written, m)
		return nil
	})
	pushed := make(chan struct{})
	go func() {
		for off := 0; off < len(speech); off += 800 {
			fs.push(speech[off:min(off+800, len(speech))])
		}
		close(pushed)
	}()
	select {
	case <-pushed:
	case <-time.After(10 * time.Second):
		t.Fatal("pushing audio blocked on a page that does not read its frames")
	}
	close(release)
	fs.end()
	if len(written) > framesQueue+2 || decodeFramesLoose(written) == 0 {
		t.Fatalf("%d messages written to a stalled page, want at most the queue (%d) and the ones in hand", len(written), framesQueue)
	}
}

// decodeFramesLoose counts the frames in messages that may have gaps.
func decodeFramesLoose(msgs [][]byte) int {
	n := 0
	for _, m := range msgs {
		n += int(binary.LittleEndian.Uint16(m[2:]))
	}
	return n
}

// Over the page's socket with ?frames=1, frames messages come as binary
// messages beside the results, which stay what they are without frames;
// without ?frames=1 none come, and a page that does not know the model's
// frontend refuses to send frames.
func TestSocketSendsFramesBesideResults(t *testing.T) {
	hs, words, _ := page(t)
	pcm, _ := streaming.EncodePCM(toymodels.UpDown(), streaming.EncS16)
	samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)

	results, frames := recordFrames(t, hs, "?rate=8000&frames=1", pcm)
	// This client sends audio at 10× real time, so a loaded machine may
	// drop some frames messages (never stalling the audio); those that
	// come must be the frontend's frames at their indices.
	d := decodeFrames(t, frames, true)
	if came, all := checkFramesEqual(t, d, words.Config.Audio, samples), len(d.rows); came < all/2 {
		t.Fatalf("%d of %d frames reached the client", came, all)
	}
	plain := record(t, hs, "?rate=8000", pcm)
	if len(results) != len(plain) || results[len(results)-1].Text != plain[len(plain)-1].Text || !results[len(results)-1].EOS {
		t.Fatalf("with frames %d results ending %+v; without %d ending %+v", len(results), results[len(results)-1], len(plain), plain[len(plain)-1])
	}
	if _, frames := recordFrames(t, hs, "?rate=8000", pcm); len(frames) != 0 {
		t.Fatalf("%d frames messages sent without ?frames=1", len(frames))
	}
	r, err := http.Get(hs.URL + "/api/config")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Frames bool `json:"frames"`
	}
	err = json.NewDecoder(r.Body).Decode(&cfg)
	r.Body.Close()
	if err != nil || !cfg.Frames {
		t.Fatalf("/api/config: frames %v (%v)", cfg.Frames, err)
	}

	blind, err := New(nil, Config{Pipeline: "toy"})
	if err != nil {
		t.Fatal(err)
	}
	bs := httptest.NewServer(blind)
	defer bs.Close()
	resp, err := http.Get(bs.URL + "/ws/audio?rate=8000&frames=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("frames from a page without the model's frontend: status %d, want 400", resp.StatusCode)
	}
}

// recordFrames is record keeping the binary (frames) messages apart.
func recordFrames(t *testing.T, hs *httptest.Server, query string, pcm []byte) ([]engine.Result, [][]byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(hs, query), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for off := 0; off < len(pcm); off += 1600 {
		time.Sleep(10 * time.Millisecond) // 100 ms chunks at 10× real time
		if err := c.Write(ctx, websocket.MessageBinary, pcm[off:min(off+1600, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("end")); err != nil {
		t.Fatal(err)
	}
	var results []engine.Result
	var frames [][]byte
	for {
		typ, data, err := c.Read(ctx)
		if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
			return results, frames
		}
		if err != nil {
			t.Fatalf("after %d results: %v", len(results), err)
		}
		if typ == websocket.MessageBinary {
			frames = append(frames, data)
			continue
		}
		var r engine.Result
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
}
