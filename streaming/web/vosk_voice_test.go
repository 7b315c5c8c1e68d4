package web

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/streaming"
)

// A Vosk client that names a voice in its configuration ("voice", before
// any audio) is heard with what that voice was taught (rfstream enroll), as
// the voice's own recogniser hears it; without it, as the model hears it.
func TestVoskConfigNamesATaughtVoice(t *testing.T) {
	m, err := engine.LoadModel("../../testdata/tones-rls.rfm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.NewVoice()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"lo", "hi"} {
		if err := v.Teach(&frontend.Audio{Rate: 8000, Samples: fixtures.OtherVoiceTones([]string{w}, uint32(50+i))}, w); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	path, err := c.VoicePath(dir, "pat")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Save(path); err != nil {
		t.Fatal(err)
	}
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("vosk voice test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := streaming.Start(nc, streaming.Pipeline{Name: "tones", Connected: c, VoiceDir: dir}, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, err := New(nc, Config{Pipeline: "tones", Rate: 8000, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + VoskPath

	samples := fixtures.OtherVoiceTones([]string{"lo", "hi", "lo", "lo", "hi"}, 7)
	want, err := v.Recognizer().Recognize(samples, 8000)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := engine.NewRecognizer(m)
	if err != nil {
		t.Fatal(err)
	}
	wantPlain, err := plain.Recognize(samples, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if want.Text != "lo hi lo lo hi" || wantPlain.Text == want.Text {
		t.Fatalf("in process: the taught voice heard %q, the model %q", want.Text, wantPlain.Text)
	}
	pcm, _ := streaming.EncodePCM(samples, streaming.EncS16)
	for _, k := range []struct{ config, want string }{
		{`{"config": {"sample_rate": 8000, "voice": "pat"}}`, want.Text},
		{`{"config": {"sample_rate": 8000}}`, wantPlain.Text},
	} {
		_, texts := resultWords(voskClient(t, url, k.config, pcm, 3200))
		if got := strings.Join(texts, " "); got != k.want {
			t.Errorf("%s: heard %q, want %q", k.config, got, k.want)
		}
	}
}
