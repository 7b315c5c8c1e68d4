package engine_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/fixtures"
)

// tightToneWord is a tone word of the toy model cut tight: its first
// sample is the stream's first and its last the stream's last, with a
// 50 ms onset and decay as a spoken word has.
func tightToneWord(word string) []float32 {
	const dur, ramp = 0.4, 0.05
	s := fixtures.ToneWord(word, dur, 0.2, 8000)
	for i := range s {
		t := float64(i) / 8000
		s[i] *= float32(math.Min(1, math.Min(t, dur-t)/ramp))
	}
	return s
}

// streamEnd is a connected stream's end-of-stream result on samples at
// 8 kHz, pushed in 100 ms chunks.
func streamEnd(t *testing.T, c *engine.Connected, cfg engine.SpotterConfig, samples []float32) engine.Result {
	t.Helper()
	st, err := engine.NewConnectedStream(c, cfg, 8000)
	if err != nil {
		t.Fatal(err)
	}
	rs := streamIn100ms(samples, st.Push, st.Flush)
	return rs[len(rs)-1]
}

// A recording that is all word, from its first sample to its last, is
// heard as its word: the default endpointer puts the stream's background
// before it (EdgeFillMs), as the model's training utterances had a pause
// there. Without the fill the toy model mishears this clip.
func TestConnectedStreamHearsATightWord(t *testing.T) {
	c := toneConnected(t)
	noFill := engine.DefaultConnectedStreamConfig()
	noFill.EdgeFillMs = 0
	misheard := 0
	for _, w := range []string{"lo", "hi"} {
		s := tightToneWord(w)
		got := streamEnd(t, c, engine.DefaultConnectedStreamConfig(), s)
		if got.Text != w || got.NoSpeech {
			t.Errorf("tight %q: %+v", w, got)
		}
		if r := streamEnd(t, c, noFill, s); r.Text != w {
			misheard++
		}
	}
	if misheard == 0 {
		t.Fatal("without the fill both tight words are heard too: this clip no longer tests it")
	}
}

// The fill before a stream's start does not move the words: a word is
// timed from the stream's first sample whether it starts there, 0.1 s in
// (inside the padding, so filled) or 1 s in (not filled), and the
// transcript built from the segments' times alone, as the pipeline's
// decoder stage builds it from the message headers, gives the stream's
// final results exactly. (Its partial results decode each partial segment
// whole, the stream's extend a frame-synchronous search: the same words,
// but confidences and times differ a little.)
func TestConnectedStreamTimesWordsInTheStream(t *testing.T) {
	c := toneConnected(t)
	cfg := engine.DefaultConnectedStreamConfig()
	word := tightToneWord("hi")
	rng := rand.New(rand.NewPCG(38, 3))
	var first engine.Word
	for i, lead := range []float64{0, 0.1, 1} {
		s := append(datasets.Silence(int(lead*8000), fixtures.ToneFloor, rng), word...)
		s = append(s, datasets.Silence(4000, fixtures.ToneFloor, rng)...)
		got := streamEnd(t, c, cfg, s)
		if got.Text != "hi" || len(got.Words) != 1 {
			t.Fatalf("word %.1f s in: %+v", lead, got)
		}
		w := got.Words[0]
		w.Start -= lead
		w.End -= lead
		if i == 0 {
			first = w
			if w.Start < 0 || w.Start > 0.1 || w.End < 0.3 || w.End > 0.45 {
				t.Fatalf("the word at [0, 0.4) s timed %+v", got.Words[0])
			}
		} else if math.Abs(w.Start-first.Start) > 0.03 || math.Abs(w.End-first.End) > 0.03 {
			t.Errorf("word %.1f s in: timed %+v, at the start %+v", lead, got.Words[0], first)
		}
		want, from := streamResults(t, c, cfg, s), fromHeaders(t, c, cfg, s)
		same := len(from) == len(want)
		for i := 0; same && i < len(want); i++ {
			same = from[i].Final == want[i].Final && from[i].Text == want[i].Text && (!want[i].Final || reflect.DeepEqual(from[i], want[i]))
		}
		if !same {
			t.Errorf("word %.1f s in: from segment times alone %+v, the stream's %+v", lead, from, want)
		}
	}
}

// toneConnected is the lo/hi tone model (testdata/tones-rls.rfm), ready
// to decode.
func toneConnected(t *testing.T) *engine.Connected {
	t.Helper()
	m, err := engine.LoadModel("../testdata/tones-rls.rfm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func streamResults(t *testing.T, c *engine.Connected, cfg engine.SpotterConfig, s []float32) []engine.Result {
	t.Helper()
	st, err := engine.NewConnectedStream(c, cfg, 8000)
	if err != nil {
		t.Fatal(err)
	}
	return append(st.Push(s), st.Flush()...)
}

// fromHeaders is what the pipeline does with s: the segmenter's segments
// decoded, and a transcript told only each segment's sequence number,
// times and finality.
func fromHeaders(t *testing.T, c *engine.Connected, cfg engine.SpotterConfig, s []float32) []engine.Result {
	t.Helper()
	seg, err := engine.NewConnectedSegmenter(c, cfg, 8000)
	if err != nil {
		t.Fatal(err)
	}
	tr := engine.NewConnectedTranscript(c, cfg)
	var out []engine.Result
	for _, sg := range append(seg.Push(s), seg.Flush()...) {
		r, err := c.Recognize(sg.Audio)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr.Add(engine.Segment{Seq: sg.Seq, Start: sg.Start, End: sg.End, Final: sg.Final}, r.Words))
	}
	return append(out, tr.End())
}

// The default digit model in the data cache hears FSDD's test clip
// 3_theo_10.wav, which begins at its word's first sample, as "3" (it heard
// it as no speech before the edge fill), timed inside the recording.
// Without the cached model or FSDD the test says so and skips.
func TestDefaultModelHearsATightClip(t *testing.T) {
	m, err := engine.LoadModel(defaults.ConnectedModel())
	if err != nil {
		t.Skipf("SKIP: no default speech model in the data cache (%v); make demo trains it", err)
	}
	if m.Meta[engine.FillerMeta] == nil {
		t.Skipf("SKIP: the cached %s predates the filler; make demo trains it again", defaults.ConnectedModel())
	}
	fsdd := defaults.FSDDDir()
	if _, err := os.Stat(fsdd); err != nil {
		t.Skipf("SKIP: no FSDD recordings (%v)", err)
	}
	a, err := frontend.ReadAudio(filepath.Join(fsdd, "3_theo_10.wav"), 8000)
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	got := streamEnd(t, c, engine.DefaultConnectedStreamConfig(), a.Samples)
	dur := float64(len(a.Samples)) / 8000
	if got.Text != "3" || got.NoSpeech || len(got.Words) != 1 || got.Words[0].Start < 0 || got.Words[0].End > dur {
		t.Fatalf("3_theo_10.wav (%.2f s): %+v", dur, got)
	}
	noFill := engine.DefaultConnectedStreamConfig()
	noFill.EdgeFillMs = 0
	t.Logf("with the fill %+v; without it %+v", got.Words, streamEnd(t, c, noFill, a.Samples))
}

// A long utterance's partial results cost time linear in its length: each
// frame is scored once for them however many partials there are (decoded
// afresh each time, this 13 s utterance's frames were scored about 20
// times over), and the last partial already says what the final result
// says.
func TestConnectedStreamPartialsScoreEachFrameOnce(t *testing.T) {
	c := toneConnected(t)
	cfg := engine.DefaultConnectedStreamConfig()
	var words []string
	for i := range 24 {
		words = append(words, []string{"lo", "hi", "hi"}[i%3])
	}
	s := toneString(words, 12)
	cs, err := engine.NewConnectedStream(c, cfg, 8000)
	if err != nil {
		t.Fatal(err)
	}
	var rs []engine.Result
	for i := 0; i < len(s); i += 800 {
		rs = append(rs, cs.Push(s[i:min(i+800, len(s))])...)
	}
	scored := cs.PartialFramesScored()
	rs = append(rs, cs.Flush()...)
	partials, lastPartial := 0, ""
	for _, r := range rs {
		if !r.Final {
			partials++
			lastPartial = r.Text
		}
	}
	frames := len(s) / 80 // 10 ms hops at 8 kHz
	if partials < 30 || scored == 0 || scored > frames {
		t.Fatalf("%d partial results scored %d frames of a %d-frame stream", partials, scored, frames)
	}
	final := rs[len(rs)-1]
	if final.Text != strings.Join(words, " ") || lastPartial != final.Text {
		t.Fatalf("last partial %q, final %q, said %q", lastPartial, final.Text, strings.Join(words, " "))
	}
}
