package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// page starts an embedded pipeline with the toy models and the page's
// handler in front of it.
func page(t *testing.T) (*httptest.Server, *engine.WordClassifier, *engine.ImageTagger) {
	t.Helper()
	return pageWith(t, mustWords(t), false)
}

// pageWith is page with the word model given.
func pageWith(t *testing.T, words *engine.WordClassifier, learnsVoices bool) (*httptest.Server, *engine.WordClassifier, *engine.ImageTagger) {
	t.Helper()
	hs, _, images := pageConfigured(t, words, func(c *Config) { c.LearnsVoices = learnsVoices })
	return hs, words, images
}

// pageConfigured starts the toy pipeline on an embedded server and the
// page's handler over it, with the test's Config changed by configure.
func pageConfigured(t *testing.T, words *engine.WordClassifier, configure func(*Config)) (*httptest.Server, *Server, *engine.ImageTagger) {
	t.Helper()
	images, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("web test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := streaming.Start(nc, streaming.Pipeline{Name: "toy", Words: words, Images: images, TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := Config{Pipeline: "toy", Rate: 8000, Audio: words.Config.Audio, Timeout: 10 * time.Second}
	configure(&cfg)
	h, err := New(nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs, h, images
}

func wsURL(hs *httptest.Server, query string) string {
	return "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws/audio" + query
}

// record streams s16le audio over the WebSocket as the page does (100 ms
// chunks, then "end") and returns the results that come back.
func record(t *testing.T, hs *httptest.Server, query string, pcm []byte) []engine.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(hs, query), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for off := 0; off < len(pcm); off += 1600 { // 100 ms of 8 kHz s16
		if err := c.Write(ctx, websocket.MessageBinary, pcm[off:min(off+1600, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("end")); err != nil {
		t.Fatal(err)
	}
	var got []engine.Result
	for {
		typ, data, err := c.Read(ctx)
		if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
			return got
		}
		if err != nil {
			t.Fatalf("after %d results: %v", len(got), err)
		}
		if typ != websocket.MessageText {
			t.Fatalf("result of type %v", typ)
		}
		var r engine.Result
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
}

// TestWebSocketEqualsInProcess streams audio the way the page does (s16le
// chunks, then "end") and expects exactly the in-process recogniser's
// results on the same 16-bit samples.
func TestWebSocketEqualsInProcess(t *testing.T) {
	hs, words, _ := page(t)
	pcm, _ := streaming.EncodePCM(toymodels.UpDown(), streaming.EncS16)
	samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)
	sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), 8000)
	if err != nil {
		t.Fatal(err)
	}
	want := append(sp.Push(samples), sp.Flush()...)

	got := record(t, hs, "?rate=8000", pcm)
	if len(got) != len(want) {
		t.Fatalf("%d results over the WebSocket, %d in process:\n%+v\n%+v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Text != w.Text || g.Final != w.Final || g.EOS != w.EOS || len(g.Words) != len(w.Words) {
			t.Fatalf("result %d: %+v, in process %+v", i, g, w)
		}
		for j := range g.Words {
			if g.Words[j].Word != w.Words[j].Word || g.Words[j].Start != w.Words[j].Start || math.Abs(g.Words[j].Conf-w.Words[j].Conf) > 1e-6 {
				t.Fatalf("result %d word %d: %+v, in process %+v", i, j, g.Words[j], w.Words[j])
			}
		}
	}
	if last := got[len(got)-1]; !last.EOS || last.Text != "up down" {
		t.Fatalf("last result %+v", last)
	}
}

func TestBadAudioRequestsAreRefused(t *testing.T) {
	hs, _, _ := page(t)
	for _, q := range []string{"", "?rate=abc", "?rate=10", "?rate=9999999", "?rate=8000&voice=a%20b", "?rate=8000&voice=" + strings.Repeat("v", 129)} {
		r, err := http.Get(hs.URL + "/ws/audio" + q)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusBadRequest {
			t.Fatalf("rate %q: status %d", q, r.StatusCode)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, bad := range []struct {
		typ  websocket.MessageType
		data []byte
	}{{websocket.MessageBinary, []byte{1, 2, 3}}, {websocket.MessageText, []byte("hello")}} {
		c, _, err := websocket.Dial(ctx, wsURL(hs, "?rate=8000"), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(ctx, bad.typ, bad.data)
		_, _, err = c.Read(ctx)
		if websocket.CloseStatus(err) != websocket.StatusUnsupportedData {
			t.Fatalf("%q: closed with %v", bad.data, err)
		}
		c.CloseNow()
	}
	// Another site's page may not open the microphone endpoint.
	_, resp, err := websocket.Dial(ctx, wsURL(hs, "?rate=8000"), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin dial: %v %v", err, resp)
	}
}

// Recordings that name one voice (?voice=, as the page does) share its
// session: with an adaptable model the second recording is scored as an
// in-process spotter continuing the first's session, and a recording that
// names no voice as a fresh one. /api/config tells the page whether the
// model learns voices.
func TestRecordingsOfAVoiceShareItsSession(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	hs, _, _ := pageWith(t, words, true)
	pcm, _ := streaming.EncodePCM(toymodels.UpDown(), streaming.EncS16)
	samples, _ := streaming.DecodePCM(pcm, streaming.EncS16)
	spot := func(s *engine.VoiceSession) (string, *engine.VoiceSession) {
		sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), 8000)
		if err != nil {
			t.Fatal(err)
		}
		if s != nil {
			sp.SetSession(s)
		}
		r := append(sp.Push(samples), sp.Flush()...)
		return confidences(r[len(r)-1]), sp.Session()
	}
	fresh, session := spot(nil)
	second, _ := spot(session)
	if second == fresh {
		t.Fatal("the toy model scores a voice's second recording as its first: the test cannot tell sessions apart")
	}
	for i, want := range []string{fresh, second} {
		got := record(t, hs, "?rate=8000&voice=web-0123abcd", pcm)
		last := got[len(got)-1]
		if c := confidences(last); c != want {
			t.Fatalf("recording %d of the voice: %s, want %s", i+1, c, want)
		}
		// The page shows how far the voice has come.
		if p := last.Voice; p == nil || p.Recordings != 2*(i+1) || p.AdaptedOn != 0 {
			t.Fatalf("recording %d of the voice: progress %+v, want %d recordings", i+1, p, 2*(i+1))
		}
	}
	got := record(t, hs, "?rate=8000", pcm)
	if c := confidences(got[len(got)-1]); c != fresh {
		t.Fatalf("a recording naming no voice: %s, want a fresh session's %s", c, fresh)
	}
	// Forgetting the voice: its next recording is a fresh session's.
	for _, c := range []struct {
		query, want string
		status      int
	}{{"?voice=web-0123abcd", `{"forgotten":true}`, 200}, {"?voice=web-0123abcd", `{"forgotten":false}`, 200}, {"?voice=a%20b", "", 400}, {"", "", 400}} {
		r, err := http.Post(hs.URL+"/api/forget-voice"+c.query, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != c.status || (c.want != "" && strings.TrimSpace(string(b)) != c.want) {
			t.Fatalf("forget %q: %d %s, want %d %s", c.query, r.StatusCode, b, c.status, c.want)
		}
	}
	got = record(t, hs, "?rate=8000&voice=web-0123abcd", pcm)
	if c := confidences(got[len(got)-1]); c != fresh {
		t.Fatalf("the forgotten voice's next recording: %s, want a fresh session's %s", c, fresh)
	}
	r, err := http.Get(hs.URL + "/api/config")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var cfg struct {
		LearnsVoices bool `json:"learns_voices"`
	}
	if err := json.NewDecoder(r.Body).Decode(&cfg); err != nil || !cfg.LearnsVoices {
		t.Fatalf("/api/config: learns_voices %v (%v)", cfg.LearnsVoices, err)
	}
}

// confidences prints a result's words with their confidences to 1e-5.
func confidences(r engine.Result) string {
	var b strings.Builder
	for _, w := range r.Words {
		fmt.Fprintf(&b, "%s %.5f ", w.Word, w.Conf)
	}
	return b.String()
}

func pngOf(t *testing.T, px []float32, side int) []byte {
	im := image.NewGray(image.Rect(0, 0, side, side))
	for i, v := range px {
		im.SetGray(i%side, i/side, color.Gray{Y: uint8(math.Round(float64(v) * 255))})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTagEqualsInProcess(t *testing.T) {
	hs, _, tagger := page(t)
	for i := 0; i < 4; i++ {
		img := pngOf(t, toymodels.Bars(i%2, 2*i), 8)
		want, err := tagger.TagImage(img, 2)
		if err != nil {
			t.Fatal(err)
		}
		r, err := http.Post(hs.URL+"/api/tag", "image/png", bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		var got streaming.TagsMessage
		err = json.NewDecoder(r.Body).Decode(&got)
		r.Body.Close()
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("status %d, %v", r.StatusCode, err)
		}
		if len(got.Tags) != 2 || got.Tags[0].Label != want[0].Label || got.Tags[0].Label != []string{"horizontal", "vertical"}[i%2] ||
			math.Abs(got.Tags[0].Score-want[0].Score) > 1e-6 {
			t.Fatalf("image %d: %+v, in process %+v", i, got, want)
		}
	}
	// Bad images: an error message, never a crash.
	for _, c := range []struct {
		body   []byte
		status int
	}{{nil, 400}, {make([]byte, streaming.MaxImageBytes+1), 413}} {
		r, err := http.Post(hs.URL+"/api/tag", "image/png", bytes.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != c.status {
			t.Fatalf("%d-byte body: status %d, want %d", len(c.body), r.StatusCode, c.status)
		}
	}
	r, err := http.Post(hs.URL+"/api/tag", "image/png", strings.NewReader("not an image"))
	if err != nil {
		t.Fatal(err)
	}
	var got streaming.TagsMessage
	json.NewDecoder(r.Body).Decode(&got)
	r.Body.Close()
	if got.Error == "" || len(got.Tags) != 0 {
		t.Fatalf("garbage image tagged: %+v", got)
	}
}

// TestAssetsAreServedAndSelfContained fetches every embedded file and
// checks none of them loads anything from another host.
func TestAssetsAreServedAndSelfContained(t *testing.T) {
	hs, _, _ := page(t)
	n := 0
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		url := hs.URL + strings.TrimPrefix(p, "static")
		if strings.HasSuffix(url, "/index.html") {
			url = hs.URL + "/"
		}
		r, err := http.Get(url)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 || len(body) == 0 {
			t.Errorf("%s: status %d, %d bytes", url, r.StatusCode, len(body))
		}
		for _, ext := range []string{"http://", "https://", "//cdn", "@import"} {
			if bytes.Contains(body, []byte(ext)) {
				t.Errorf("%s refers to %q: every asset must come from this server", p, ext)
			}
		}
		return nil
	})
	if err != nil || n < 4 {
		t.Fatalf("walked %d assets: %v", n, err)
	}
	r, err := http.Get(hs.URL + "/api/config")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Rate int }
	json.NewDecoder(r.Body).Decode(&cfg)
	r.Body.Close()
	if cfg.Rate != 8000 {
		t.Fatalf("config rate %d", cfg.Rate)
	}
}

// Another site's page, or one reached through a name that is not this
// page's (DNS rebinding), cannot use the endpoints: every request with a
// foreign Origin or an unknown Host gets 403 with a reason, before anything
// reaches the pipeline; the page's own requests, and requests without an
// Origin (curl, same-origin GETs), are served.
func TestForeignOriginsAndHostsAreRefused(t *testing.T) {
	hs, _, _ := page(t)
	img := pngOf(t, toymodels.Bars(0, 2), 8)
	self := hs.URL // http://127.0.0.1:PORT
	port := hs.URL[strings.LastIndex(hs.URL, ":")+1:]
	do := func(method, path, host, origin string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, hs.URL+path, bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "text/plain") // a "simple" request: no CORS preflight
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	for _, c := range []struct {
		method, path, host, origin, why string
	}{
		{"POST", "/api/tag", "", "http://evil.example", "cross-origin"},
		{"POST", "/api/tag", "", "null", "cross-origin"},
		{"POST", "/api/tag", "", "https://" + strings.TrimPrefix(self, "http://"), "cross-origin"},
		{"POST", "/api/forget-voice?voice=v1", "", "http://evil.example", "cross-origin"},
		{"POST", "/api/tag", "rebound.example:" + port, "http://rebound.example:" + port, "not a name this page serves"},
		{"POST", "/api/tag", "rebound.example:" + port, "", "not a name this page serves"},
		{"GET", "/", "rebound.example:" + port, "", "not a name this page serves"},
		{"GET", "/api/config", "192.168.1.9:" + port, "", "not a name this page serves"},
	} {
		if code, body := do(c.method, c.path, c.host, c.origin); code != http.StatusForbidden || !strings.Contains(body, c.why) {
			t.Fatalf("%s %s Host %q Origin %q: %d %q, want 403 saying %q", c.method, c.path, c.host, c.origin, code, body, c.why)
		}
	}
	for _, c := range []struct{ host, origin string }{{"", self}, {"", ""}, {"localhost:" + port, "http://localhost:" + port}, {"[::1]:" + port, ""}} {
		if code, body := do("POST", "/api/tag", c.host, c.origin); code != http.StatusOK || !strings.Contains(body, `"tags"`) {
			t.Fatalf("the page's own POST (Host %q, Origin %q): %d %q", c.host, c.origin, code, body)
		}
	}
}
