package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
)

// scaledToneString is the tone model's words said by a "voice" whose
// every frequency is scale times the model's (a shorter tract for
// scale > 1), each word between pauses of the tones' background.
func scaledToneString(words []string, scale float64) []float32 {
	rng := rand.New(rand.NewPCG(7, 7))
	const rate, dur, amp = 8000, 0.3, 0.2
	var s []float32
	for _, w := range words {
		s = append(s, datasets.Silence(2000, fixtures.ToneFloor, rng)...)
		f0 := map[string]float64{"lo": 300, "hi": 1100}[w] * scale
		for i := 0; i < int(dur*rate); i++ {
			t := float64(i) / rate
			env := math.Min(1, math.Min(t, dur-t)/0.01)
			v := math.Sin(2*math.Pi*f0*t) + 0.5*math.Sin(2*math.Pi*2*f0*t) + 0.25*math.Sin(2*math.Pi*3*f0*t)
			s = append(s, float32(amp*env*v/1.75))
		}
	}
	return append(s, datasets.Silence(4000, fixtures.ToneFloor, rng)...)
}

// The warp search keeps the warp that undoes a voice's scaling: the model's
// own voice is heard best unwarped, a voice 1.2 times higher through a
// bank warped by 1.2, one 1/1.2 lower through 1/1.2; and the words are
// those of decoding with that warp alone.
func TestWarpSearchChoosesTheWarpThatUndoesTheVoice(t *testing.T) {
	c, err := NewConnected(toneModel(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	warps := []float64{1 / 1.2, 1, 1.2}
	words := []string{"hi", "lo", "lo", "hi"}
	for _, scale := range warps {
		a := &frontend.Audio{Rate: 8000, Samples: scaledToneString(words, scale)}
		r, w, err := c.recognizeWarped(a, warps)
		if err != nil {
			t.Fatal(err)
		}
		if w != scale {
			t.Errorf("voice scaled by %.3f: the search kept warp %.3f", scale, w)
		}
		alone, _, err := c.recognizeWarped(a, []float64{w})
		if err != nil {
			t.Fatal(err)
		}
		if r.Text != alone.Text || r.Text != "hi lo lo hi" {
			t.Errorf("voice scaled by %.3f: search heard %q, warp %.3f alone %q", scale, r.Text, w, alone.Text)
		}
	}
}

// A stream searches the warps on its first utterance with a word and hears
// the rest through that warp alone; the decoder's Warps reach
// Connected.Recognize, and a warp out of range is refused.
func TestStreamChoosesItsWarpOnce(t *testing.T) {
	m := toneModel(t, "rls")
	dc := DefaultConnectedDecoder()
	if err := strictJSON(m.Decoder, &dc); err != nil {
		t.Fatal(err)
	}
	dc.Warps = []float64{1 / 1.2, 1, 1.2}
	m.Decoder = mustMarshal(dc)
	c, err := NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	s := scaledToneString([]string{"hi", "lo"}, 1.2)
	s = append(s, datasets.Silence(12000, fixtures.ToneFloor, rng)...) // ends the first utterance
	s = append(s, scaledToneString([]string{"lo", "hi"}, 1.2)...)
	st, err := NewConnectedStream(c, DefaultConnectedStreamConfig(), 8000)
	if err != nil {
		t.Fatal(err)
	}
	rs := append(st.Push(s), st.Flush()...)
	if last := rs[len(rs)-1]; last.Text != "hi lo lo hi" {
		t.Errorf("stream heard %q", last.Text)
	}
	if !st.warpChosen || st.warp != 1.2 {
		t.Errorf("stream kept warp %g (chosen %v), want 1.2", st.warp, st.warpChosen)
	}
	whole, err := c.Recognize(&frontend.Audio{Rate: 8000, Samples: scaledToneString([]string{"hi", "lo"}, 1.2)})
	if err != nil || whole.Text != "hi lo" {
		t.Errorf("Recognize with the decoder's warps: %q, %v", whole.Text, err)
	}
	dc.Warps = []float64{1, 1.6}
	m.Decoder = mustMarshal(dc)
	if _, err := NewConnected(m); err == nil {
		t.Error("a decoder warp of 1.6 is accepted")
	}
}
