package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/enrol"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/streaming"
)

// The page's teaching: each word posted to /api/teach is taught to the
// voice's file (internal/enrol.PageTeacher), a recording that is not a
// word or a word not the model's is refused with the reason, and the
// page's later recordings naming the voice are heard as the voice taught
// in process hears them.
func TestPageTeachesAVoice(t *testing.T) {
	m, err := engine.LoadModel("../../testdata/tones-rls.rfm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("teach test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := streaming.Start(nc, streaming.Pipeline{Name: "toy", Connected: c, VoiceDir: dir}, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, err := New(nc, Config{Pipeline: "toy", Rate: 8000, Timeout: 10 * time.Second, Teach: enrol.PageTeacher(c, dir)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)

	post := func(word string, samples []float32) (int, string) {
		pcm, _ := streaming.EncodePCM(samples, streaming.EncS16)
		r, err := http.Post(fmt.Sprintf("%s/api/teach?voice=pat&word=%s&rate=8000", hs.URL, word), "application/octet-stream", strings.NewReader(string(pcm)))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode != http.StatusOK {
			return -r.StatusCode, string(body)
		}
		var got struct{ Taught int }
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		return got.Taught, ""
	}
	for i, w := range []string{"lo", "hi"} {
		if n, why := post(w, fixtures.OtherVoiceTones([]string{w}, uint32(50+i))); n != i+1 {
			t.Fatalf("teaching %q: %d words held (%s)", w, n, why)
		}
	}
	if n, why := post("lo", make([]float32, 8000)); n != -400 || !strings.Contains(why, "too quiet") {
		t.Errorf("a silent recording: %d %q", n, why)
	}
	if n, why := post("seven", fixtures.OtherVoiceTones([]string{"lo"}, 3)); n != -400 || !strings.Contains(why, `"seven" is not in the model's vocabulary`) {
		t.Errorf("a word not the model's: %d %q", n, why)
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
	samples := fixtures.OtherVoiceTones([]string{"lo", "hi", "lo", "lo", "hi"}, 7)
	want, err := v.Recognizer().Recognize(samples, 8000)
	if err != nil {
		t.Fatal(err)
	}
	pcm, _ := streaming.EncodePCM(samples, streaming.EncS16)
	got := record(t, hs, "?rate=8000&voice=pat", pcm)
	if last := got[len(got)-1]; last.Text != want.Text || want.Text != "lo hi lo lo hi" {
		t.Errorf("the page heard the taught voice say %q, in process %q", last.Text, want.Text)
	}
}
