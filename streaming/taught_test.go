package streaming

import (
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
)

func taughtString(words []string, seed uint32) *frontend.Audio {
	return &frontend.Audio{Rate: 8000, Samples: fixtures.OtherVoiceTones(words, seed)}
}

// A connected pipeline with a voice folder scores the streams that name a
// voice taught to its model (rfstream enroll) with that voice's read-out,
// as the voice's own stream in process does; streams that name no voice,
// or one never taught, hear the model's.
func TestTaughtVoiceThroughNATS(t *testing.T) {
	m, err := engine.LoadModel("../testdata/tones-rls.rfm")
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
		if err := v.Teach(taughtString([]string{w}, uint32(50+i)), w); err != nil {
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
	a := taughtString([]string{"lo", "hi", "lo", "lo", "hi"}, 7)
	last := func(s engine.Stream) engine.Result {
		out := append(s.Push(a.Samples), s.Flush()...)
		return out[len(out)-1]
	}
	taught, err := v.NewStream(a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := engine.NewConnectedStream(c, c.StreamConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	want, wantPlain := last(taught), last(plain)
	if want.Text != "lo hi lo lo hi" || wantPlain.Text == want.Text {
		t.Fatalf("in process: the taught voice heard %q, the model %q", want.Text, wantPlain.Text)
	}
	nc, _ := pipelineWith(t, Pipeline{Connected: c, VoiceDir: dir})
	for _, k := range []struct {
		stream, voice, want string
	}{{"s1", "pat", want.Text}, {"s2", "", wantPlain.Text}, {"s3", "someone", wantPlain.Text}} {
		got := streamAll(t, nc, k.stream, a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: k.voice})
		if g := got[len(got)-1].Text; g != k.want {
			t.Errorf("voice %q through NATS: %q, want %q", k.voice, g, k.want)
		}
	}
}
