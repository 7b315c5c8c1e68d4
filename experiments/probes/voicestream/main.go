// Command voicestream asks where a voice-normalised word model loses
// accuracy when a voice arrives as one live stream rather than as files.
// It renders one FSDD speaker's recordings, in a seeded shuffled order, as
// a single stream (0.5 s gaps at the recordings' background level, as
// `make demo` part 5 does), cuts it with the live segmenter, and scores:
//
//   - each segment alone (the training voices' average mean spectrum);
//   - the segments in order with a VoiceSession (what a stream gets);
//   - each word's span cut from the rendered stream at the file's own
//     bounds, alone (rendering without the segmenter);
//
// and the mean cosine between a segment's raw word vector and its file's;
// the first two and the cosine also with the word detector bounded by the
// segmenter's background estimate (frontend.WordVectorOverBackground, which
// the pipeline uses for stream segments: WordClassifier.SegmentVector), with
// where that detector's speech region starts and ends in the stream against
// where the file's detector puts it in the file.
//
// --gap-level L renders the gaps as noise of RMS L instead, to see how much
// of the loss the gaps' level makes.
//
// --bound-db B bounds the detector B dB over the background instead of
// frontend.SpeechOverBackgroundDB.
//
// --self-train makes the sessions self-train at their checkpoints
// (VoiceSession.SelfTrain; the model must be adaptable).
//
// usage: go run ./experiments/probes/voicestream [--model M --fsdd DIR --speaker S --gap-level L --bound-db B --self-train]
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/experiments/probes/voicebench"
	"github.com/rfstream/rfstream/frontend"
)

func main() {
	vf := voicebench.Register()
	gapLevel := flag.Float64("gap-level", 0, "RMS of the noise in the gaps (0: the recordings' background level, as the demo renders)")
	boundDB := flag.Float64("bound-db", frontend.SpeechOverBackgroundDB, "how far over the segmenter's background estimate (dB) a frame of a segment must be to count as speech")
	selfTrain := flag.Bool("self-train", false, "the VoiceSessions self-train at their checkpoints")
	flag.Parse()
	words := vf.Words()
	class := map[string]int{}
	for i, l := range words.Model.Labels {
		class[l] = i
	}
	rate := words.Config.Audio.SampleRate
	plan, err := datasets.SpeakerSession(*vf.FSDD, *vf.Speaker) // the demo's order
	if err != nil {
		log.Fatal(err)
	}
	audio, spans, err := datasets.RenderString(plan, rate, datasets.Noise{}, 1)
	if err != nil {
		log.Fatal(err)
	}
	if *gapLevel > 0 {
		// The same words and gaps, the gaps at the given level instead.
		rng := rand.New(rand.NewPCG(1, 0x67617073))
		var out []float32
		for i, sp := range spans {
			from := 0.0
			if i > 0 {
				from = spans[i-1].End
			}
			out = append(out, datasets.Silence(int((sp.Start-from)*float64(rate)+0.5), *gapLevel, rng)...)
			out = append(out, audio.Samples[int(sp.Start*float64(rate)):int(sp.End*float64(rate))]...)
		}
		out = append(out, datasets.Silence(int(plan.Gaps[len(plan.Gaps)-1]*float64(rate)), *gapLevel, rng)...)
		audio = &frontend.Audio{Rate: rate, Samples: out}
	}
	spot := engine.DefaultSpotterConfig()
	seg, err := engine.NewSegmenter(words.Config, spot, rate)
	if err != nil {
		log.Fatal(err)
	}
	decide := func(v []float32) int {
		s := words.Score(v)
		return classifier.Argmax(blas32.General{Rows: 1, Cols: len(s), Stride: len(s), Data: s})[0]
	}
	// One tally per speech detector: the file's, and the one bounded by
	// the stream's background (WordClassifier.SegmentVector, what the
	// pipeline uses since Nov 24: experiments/journal/audio.md).
	files := &tally{words: words, decide: decide, session: words.NewVoiceSession()}
	bounded := &tally{words: words, decide: decide, session: words.NewVoiceSession()}
	files.session.SelfTrain, bounded.session.SelfTrain = *selfTrain, *selfTrain
	var finals, matched, span int
	// Where the bounded detector's region lies in the stream against where
	// the file's detector puts it in the file (seconds, stream time).
	var startShift, endShift []float64
	hop := float64(words.Config.Audio.Hop()) / float64(rate)
	for _, s := range append(seg.Push(audio.Samples), seg.Flush()...) {
		if !s.Final {
			continue
		}
		finals++
		// The word whose span the segment overlaps most.
		best, overlap := -1, 0.0
		for k, sp := range spans {
			if o := min(s.End, sp.End) - max(s.Start, sp.Start); o > overlap {
				best, overlap = k, o
			}
		}
		raw, err := words.RawVector(s.Audio)
		if err != nil || best < 0 {
			continue
		}
		// The bound is SpeechOverBackgroundDB over the estimate it is
		// given, so moving the estimate moves the bound.
		background := s.BackgroundDB + *boundDB - frontend.SpeechOverBackgroundDB
		bg, err := frontend.WordVectorOverBackground(words.Config, s.Audio.Samples, background)
		if err != nil {
			log.Fatal(err)
		}
		matched++
		want := class[plan.Parts[best].Label]
		cut := audio.Samples[int(spans[best].Start*float64(rate)):int(spans[best].End*float64(rate))]
		if v, err := words.Vector(&frontend.Audio{Rate: rate, Samples: cut}); err == nil && decide(v) == want {
			span++
		}
		file, err := frontend.ReadAudio(plan.Parts[best].Path, rate)
		if err != nil {
			log.Fatal(err)
		}
		if s.Start*1000 >= spot.PadMs { // the segment's audio begins PadMs before it
			_, e := frontend.LogMel(words.Config.Audio, s.Audio.Samples)
			a, b := words.Config.SpeechRegionOverBackground(e, background)
			_, fe := frontend.LogMel(words.Config.Audio, file.Samples)
			fa, fb := words.Config.SpeechRegion(fe)
			at := s.Start - spot.PadMs/1000
			startShift = append(startShift, at+float64(a)*hop-(spans[best].Start+float64(fa)*hop))
			endShift = append(endShift, at+float64(b)*hop-(spans[best].Start+float64(fb)*hop))
		}
		fv, err := words.RawVector(file)
		if err != nil {
			log.Fatal(err)
		}
		files.add(raw, fv, want)
		bounded.add(bg, fv, want)
	}
	pct := func(k int) float64 { return 100 * float64(k) / float64(matched) }
	fmt.Printf("%s: %d words rendered as one %.0f s stream; %d final segments, %d matched to a word\n", *vf.Speaker, len(plan.Parts), audio.Duration(), finals, matched)
	files.print("detector as for files", matched)
	bounded.print("detector over the segmenter's background (WordVectorOverBackground)", matched)
	fmt.Printf("    region's start against the file's, s: %s\n", percentiles(startShift))
	fmt.Printf("    region's end against the file's, s:   %s\n", percentiles(endShift))
	fmt.Printf("  word's span alone            %6.2f%%\n", pct(span))
}

// percentiles prints the 10th, 25th, 50th, 75th and 90th percentiles.
func percentiles(x []float64) string {
	if len(x) == 0 {
		return "none"
	}
	s := slices.Sorted(slices.Values(x))
	n := len(s)
	return fmt.Sprintf("%+.3f %+.3f [%+.3f] %+.3f %+.3f (10/25/50/75/90th percentile)", s[n/10], s[n/4], s[n/2], s[3*n/4], s[9*n/10])
}

// tally scores one speech detector's segment vectors: each alone, and in
// order in a VoiceSession, and their cosine with their files' vectors.
type tally struct {
	words            *engine.WordClassifier
	decide           func([]float32) int
	session          *engine.VoiceSession
	alone, inSession int
	cos              float64
}

// add scores a segment's raw vector, given its file's raw vector and the
// right class.
func (t *tally) add(raw, file []float32, want int) {
	v := append([]float32(nil), raw...)
	t.words.NormaliseAlone(v)
	if t.decide(v) == want {
		t.alone++
	}
	v = append(v[:0], raw...)
	if err := t.session.Normalise(v, true); err != nil {
		log.Fatal(err)
	}
	if sc := t.session.Score(v); classifier.Argmax(blas32.General{Rows: 1, Cols: len(sc), Stride: len(sc), Data: sc})[0] == want {
		t.inSession++
	}
	for i := range raw {
		t.cos += float64(raw[i]) * float64(file[i]) // both unit length
	}
}

func (t *tally) print(name string, matched int) {
	pct := func(k int) float64 { return 100 * float64(k) / float64(matched) }
	fmt.Printf("  %s:\n", name)
	fmt.Printf("    segment alone              %6.2f%%\n", pct(t.alone))
	fmt.Printf("    segments in a VoiceSession %6.2f%%\n", pct(t.inSession))
	fmt.Printf("    mean cosine, segment and file raw vectors %.3f\n", t.cos/float64(matched))
}
