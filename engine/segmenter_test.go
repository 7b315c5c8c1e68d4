package engine_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	. "github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

func TestSegmentBackgroundIsTheStreamsNoiseLevel(t *testing.T) {
	// Noise at RMS 3e-4 (frames about -47 dB, under the edge floor plus
	// the onset threshold, so the stream does not open on it), a tone
	// word, noise.
	wc := frontend.DefaultWordConfig()
	rate := wc.Audio.SampleRate
	rng := rand.New(rand.NewPCG(3, 4))
	var x []float32
	// The word starts 2 s in, with a whole floor window of noise before it.
	for i := 0; i < 4*rate; i++ {
		v := 3e-4 * rng.NormFloat64()
		if i >= 2*rate && i < 2*rate+rate/2 {
			v += 0.3 * math.Sin(2*math.Pi*500*float64(i)/float64(rate))
		}
		x = append(x, float32(v))
	}
	_, energy := frontend.LogMel(wc.Audio, x[:rate])
	var noiseDB float64
	for _, e := range energy {
		noiseDB += e * 10 / math.Ln10
	}
	noiseDB /= float64(len(energy))
	seg, err := NewSegmenter(wc, DefaultSpotterConfig(), rate)
	if err != nil {
		t.Fatal(err)
	}
	var finals int
	for _, s := range append(seg.Push(x), seg.Flush()...) {
		if !s.HasBackground || math.Abs(s.BackgroundDB-noiseDB) > 1.5 {
			t.Fatalf("segment at %.2f s: background %.2f dB (known %v), noise frames average %.2f dB", s.Start, s.BackgroundDB, s.HasBackground, noiseDB)
		}
		if s.Final {
			finals++
		}
	}
	if finals != 1 {
		t.Fatalf("%d final segments, want the one word", finals)
	}
}

// toneInNoise is white noise at noiseDBFS (RMS) for secs seconds with a
// 500 Hz tone of amplitude 0.3 added over [from, to) seconds.
func toneInNoise(rate int, secs, from, to, noiseDBFS float64) []float32 {
	rng := rand.New(rand.NewPCG(5, 6))
	level := math.Pow(10, noiseDBFS/20)
	x := make([]float32, int(secs*float64(rate)))
	for i := range x {
		v := level * rng.NormFloat64()
		if t := float64(i) / float64(rate); t >= from && t < to {
			v += 0.3 * math.Sin(2*math.Pi*500*t)
		}
		x[i] = float32(v)
	}
	return x
}

// finalSpans runs a default segmenter over x in chunks and returns its
// final segments' [start, end) in seconds.
func finalSpans(t *testing.T, x []float32, rate, chunk int) [][2]float64 {
	t.Helper()
	return finalSpansWith(t, DefaultSpotterConfig(), x, rate, chunk)
}

// finalSpansWith is finalSpans with the segmenter configured by cfg.
func finalSpansWith(t *testing.T, cfg SpotterConfig, x []float32, rate, chunk int) [][2]float64 {
	t.Helper()
	seg, err := NewSegmenter(frontend.DefaultWordConfig(), cfg, rate)
	if err != nil {
		t.Fatal(err)
	}
	var segs []Segment
	for i := 0; i < len(x); i += chunk {
		segs = append(segs, seg.Push(x[i:min(i+chunk, len(x))])...)
	}
	var out [][2]float64
	for _, s := range append(segs, seg.Flush()...) {
		if s.Final {
			out = append(out, [2]float64{s.Start, s.End})
		}
	}
	return out
}

// A microphone's background at the start and end of a stream is not a
// word, at any level from a quiet room's to a noisy one's: the stream is
// measured against its own frames, not against an assumed silence (which
// made a 1.3 s word of the first noise and a short one of the last).
func TestSegmenterHearsNoWordInTheBackgroundAtStreamEdges(t *testing.T) {
	rate := frontend.DefaultWordConfig().Audio.SampleRate
	for _, dbfs := range []float64{-70, -60, -50, -40} {
		x := toneInNoise(rate, 4, 2, 2.5, dbfs)
		got := finalSpans(t, x, rate, 160)
		if len(got) != 1 || math.Abs(got[0][0]-2) > 0.05 || math.Abs(got[0][1]-2.5) > 0.05 {
			t.Fatalf("noise at %g dBFS: final segments %v, want one at about [2, 2.5)", dbfs, got)
		}
		for _, chunk := range []int{1, 4096, len(x)} {
			if c := finalSpans(t, x, rate, chunk); !reflect.DeepEqual(c, got) {
				t.Fatalf("noise at %g dBFS, chunks of %d: %v, chunks of 160: %v", dbfs, chunk, c, got)
			}
		}
	}
	// A word as the stream opens is still heard: the first decisions wait
	// for a window of the stream, which holds its background too.
	if got := finalSpans(t, toneInNoise(rate, 3, 0, 0.5, -60), rate, 160); len(got) != 1 || got[0][0] > 0.05 || math.Abs(got[0][1]-0.5) > 0.05 {
		t.Fatalf("a word at the stream's start: final segments %v, want one at about [0, 0.5)", got)
	}
	// A stream shorter than the window that is all word (one clipped
	// recording) stands out from the silence assumed around it.
	if got := finalSpans(t, toneInNoise(rate, 0.4, 0, 0.4, -60), rate, 160); len(got) != 1 {
		t.Fatalf("a clipped 0.4 s word alone: final segments %v, want one", got)
	}
}

// tonesInNoise is white noise at noiseDBFS (RMS) for secs seconds with a
// 500 Hz tone of amplitude 0.3 over each of the spans, fading by decayDB
// over the span's last fade seconds (as a word's vowel fades into its end).
func tonesInNoise(rate int, secs float64, spans [][2]float64, noiseDBFS, fade, decayDB float64) []float32 {
	x := toneInNoise(rate, secs, 0, 0, noiseDBFS)
	for _, sp := range spans {
		for i := int(sp[0] * float64(rate)); i < int(sp[1]*float64(rate)); i++ {
			t := float64(i) / float64(rate)
			gain := 1.0
			if into := t - (sp[1] - fade); into > 0 {
				gain = math.Pow(10, -decayDB*into/fade/20)
			}
			x[i] += float32(0.3 * gain * math.Sin(2*math.Pi*500*t))
		}
	}
	return x
}

// A quiet voice, whose words rise only about 10 dB over the background
// (tones in noise at -35 dBFS, as the frontend hears them after
// pre-emphasis), is heard when the threshold follows the stream's range
// (MinThresholdDB) and missed by the fixed 15 dB rule. A loud voice that
// fills the window (1.3 s words 35 dB over the background, fading by 30 dB
// over their last 0.3 s, so where a word ends depends on the threshold) is
// cut exactly as by the fixed rule: half its range is over 15 dB, and the
// threshold stops at ThresholdDB.
func TestSegmenterHearsQuietWords(t *testing.T) {
	rate := frontend.DefaultWordConfig().Audio.SampleRate
	fixed := DefaultSpotterConfig()
	fixed.MinThresholdDB = 0

	words := [][2]float64{{1, 1.4}, {2.2, 2.6}, {3.4, 3.8}, {4.6, 5}}
	quiet := tonesInNoise(rate, 6, words, -35, 0, 0)
	got := finalSpans(t, quiet, rate, 160)
	if len(got) != len(words) {
		t.Fatalf("quiet words: final segments %v, want %v", got, words)
	}
	for i, w := range words {
		if math.Abs(got[i][0]-w[0]) > 0.05 || math.Abs(got[i][1]-w[1]) > 0.05 {
			t.Errorf("quiet word %d: segment %v, want about %v", i, got[i], w)
		}
	}
	for _, chunk := range []int{1, 4096, len(quiet)} {
		if c := finalSpans(t, quiet, rate, chunk); !reflect.DeepEqual(c, got) {
			t.Fatalf("quiet words, chunks of %d: %v, chunks of 160: %v", chunk, c, got)
		}
	}
	if old := finalSpansWith(t, fixed, quiet, rate, 160); len(old) != 0 {
		t.Fatalf("the fixed 15 dB rule heard the quiet words %v: this test no longer tells the rules apart", old)
	}

	long := [][2]float64{{0.5, 1.8}, {2.3, 3.6}, {4.1, 5.4}}
	loud := tonesInNoise(rate, 6, long, -60, 0.3, 30)
	a, b := finalSpans(t, loud, rate, 160), finalSpansWith(t, fixed, loud, rate, 160)
	if !reflect.DeepEqual(a, b) || len(a) != len(long) {
		t.Errorf("a loud voice: %v with the range rule, %v with the fixed one; want the same %d words", a, b, len(long))
	}
}

// The segmenter keeps its floor window sorted as it slides; every segment,
// partial or final, with its times, background level and samples, equals
// the one cut with the window sorted afresh for every frame. Streams: words
// at several levels over a background that changes level, digital silence
// (whose frames all clamp to one energy), and a stream shorter than the
// window; pushed in chunks of 1, 160 and 4096 samples.
func TestSegmenterSlidingFloorEqualsSortingEveryFrame(t *testing.T) {
	const rate = 8000
	words := tonesInNoise(rate, 9, [][2]float64{{1.8, 2.3}, {3, 3.4}, {4.6, 6.1}, {7, 7.2}}, -40, 0.2, 20)
	for i := range words[5*rate : 6*rate] {
		words[5*rate+i] *= 4 // the background rises for a second
	}
	silence := tonesInNoise(rate, 6, [][2]float64{{2.5, 3}}, -40, 0.1, 10)
	clear(silence[:2*rate])
	clear(silence[4*rate:])
	short := tonesInNoise(rate, 0.9, [][2]float64{{0.3, 0.6}}, -45, 0.1, 10)
	cut := func(sg *Segmenter, x []float32, chunk int) []Segment {
		var out []Segment
		for i := 0; i < len(x); i += chunk {
			out = append(out, sg.Push(x[i:min(i+chunk, len(x))])...)
		}
		return append(out, sg.Flush()...)
	}
	for name, x := range map[string][]float32{"words": words, "digital silence": silence, "short": short} {
		for _, chunk := range []int{1, 160, 4096} {
			sliding, err := NewSegmenter(frontend.DefaultWordConfig(), DefaultSpotterConfig(), rate)
			if err != nil {
				t.Fatal(err)
			}
			sorting, err := NewSegmenterSortingEveryFrame(frontend.DefaultWordConfig(), DefaultSpotterConfig(), rate)
			if err != nil {
				t.Fatal(err)
			}
			got, want := cut(sliding, x, chunk), cut(sorting, x, chunk)
			finals := 0
			for _, s := range want {
				if s.Final {
					finals++
				}
			}
			if name != "short" && finals < 1 {
				t.Fatalf("%s: the reference cut no word, so the test compares nothing", name)
			}
			if len(got) != len(want) {
				t.Fatalf("%s, chunk %d: %d segments, want %d", name, chunk, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.Seq != w.Seq || g.Start != w.Start || g.End != w.End || g.Final != w.Final ||
					g.BackgroundDB != w.BackgroundDB || !slices.Equal(g.Audio.Samples, w.Audio.Samples) {
					t.Fatalf("%s, chunk %d: segment %d is [%.2f, %.2f] final %v background %.3f dB, want [%.2f, %.2f] final %v background %.3f dB",
						name, chunk, i, g.Start, g.End, g.Final, g.BackgroundDB, w.Start, w.End, w.Final, w.BackgroundDB)
				}
			}
		}
	}
}

// EdgeFillMs: a word within PadMs of the stream's start gets EdgeFillMs of
// the stream's background before its samples, which are the stream's from
// its first; a word further in gets no fill; the segments do not depend
// on the chunking.
func TestSegmenterEdgeFillIsTheBackgroundBeforeTheStream(t *testing.T) {
	wc := frontend.DefaultWordConfig()
	rate := wc.Audio.SampleRate
	cfg := DefaultConnectedStreamConfig()
	cfg.EdgeFillMs = 200
	n := cfg.EdgeFillSamples(rate)
	if n != rate/5 {
		t.Fatalf("EdgeFillSamples %d at %d Hz, want %d", n, rate, rate/5)
	}
	const noiseDBFS = -60
	segments := func(cfg SpotterConfig, x []float32, chunk int) []Segment {
		seg, err := NewSegmenter(wc, cfg, rate)
		if err != nil {
			t.Fatal(err)
		}
		var out []Segment
		for i := 0; i < len(x); i += chunk {
			out = append(out, seg.Push(x[i:min(i+chunk, len(x))])...)
		}
		return append(out, seg.Flush()...)
	}
	// A word 50 ms in (inside the 300 ms padding): filled.
	x := toneInNoise(rate, 3, 0.05, 0.5, noiseDBFS)
	segs := segments(cfg, x, 160)
	if len(segs) == 0 || !segs[len(segs)-1].Final {
		t.Fatalf("segments %+v, want the word's final one last", segs)
	}
	a := segs[len(segs)-1].Audio.Samples
	if len(a) <= n || !slices.Equal(a[n:], x[:len(a)-n]) {
		t.Fatalf("final segment of %d samples: after its %d filled ones it is not the stream from its first sample", len(a), n)
	}
	var sq float64
	for _, v := range a[:n] {
		sq += float64(v) * float64(v)
	}
	if db := 10 * math.Log10(sq/float64(n)); math.Abs(db-noiseDBFS) > 3 {
		t.Fatalf("the fill is at %.1f dBFS, the stream's background at %d", db, noiseDBFS)
	}
	for _, chunk := range []int{1, 4096, len(x)} {
		if got := segments(cfg, x, chunk); !reflect.DeepEqual(got, segs) {
			t.Fatalf("chunks of %d: segments differ from chunks of 160", chunk)
		}
	}
	// A word 1 s in: the same segments as without the fill.
	x = toneInNoise(rate, 3, 1, 1.5, noiseDBFS)
	off := cfg
	off.EdgeFillMs = 0
	if got, want := segments(cfg, x, 160), segments(off, x, 160); len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("a word 1 s in: %d segments with the fill, %d without, or they differ", len(got), len(want))
	}
}

// With PartialGrowth the partial segments of a long word come further
// apart as it grows, so decoding each afresh costs at most 1 + 1/growth
// times the word's length in all; without it they come every
// PartialEveryMs, and their lengths add up quadratically.
func TestPartialGrowthBoundsThePartials(t *testing.T) {
	wc := frontend.DefaultWordConfig()
	rate := wc.Audio.SampleRate
	rng := rand.New(rand.NewPCG(5, 6))
	var x []float32
	for i := 0; i < 22*rate; i++ {
		v := 3e-4 * rng.NormFloat64()
		// Words of 0.4 s with 0.2 s pauses, shorter than the trailing
		// silence: one utterance of 18 s.
		if i >= 2*rate && i < 20*rate && (i-2*rate)%(rate*6/10) < rate*4/10 {
			v += 0.3 * math.Sin(2*math.Pi*500*float64(i)/float64(rate))
		}
		x = append(x, float32(v))
	}
	partials := func(growth float64) (n int, total, word float64) {
		cfg := DefaultConnectedStreamConfig()
		cfg.PartialGrowth = growth
		s, err := NewSegmenter(wc, cfg, rate)
		if err != nil {
			t.Fatal(err)
		}
		for _, sg := range append(s.Push(x), s.Flush()...) {
			if sg.Final {
				word = sg.End - sg.Start
				continue
			}
			n++
			total += sg.End - sg.Start
		}
		return n, total, word
	}
	n0, total0, word := partials(0)
	n, total, word1 := partials(0.25)
	t.Logf("%.1f s word: %d partials, %.0f s of audio in all, every 300 ms; %d, %.0f s with growth 0.25", word, n0, total0, n, total)
	if word < 17 || word1 != word {
		t.Fatalf("the word lasts %.2f s, %.2f s with growth: want one 18 s word", word, word1)
	}
	if n0 < 55 || total0 < 10*word {
		t.Fatalf("every 300 ms: %d partials, %.0f s in all, for an %.0f s word", n0, total0, word)
	}
	if n > 25 || total > 5*word {
		t.Fatalf("growth 0.25: %d partials, %.0f s in all, for an %.0f s word (at most 5×)", n, total, word)
	}
}
