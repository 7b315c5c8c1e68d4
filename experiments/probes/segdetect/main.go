// Command segdetect asks which words the live segmenter hears when a voice
// arrives as one stream. For every FSDD voice it renders the voice's
// recordings as `make demo` part 5 does (datasets.SessionPlan: a seeded
// order, 0.5 s pauses in the voice's own background), cuts the stream with
// the word segmenter and counts the words under no final segment (missed),
// the final segments over no word (extra), the segments over more than
// one word (merged) and the words that are the only word under some final
// segment (alone: what a word recogniser can get right). No model is
// involved: the segmenter needs only the frontend's configuration.
//
// usage: go run ./experiments/probes/segdetect [--fsdd DIR --threshold-db T --min-threshold-db M]
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

func main() {
	fsdd := flag.String("fsdd", "../shared/fsdd/recordings", "FSDD recordings")
	cfg := engine.DefaultSpotterConfig()
	flag.Float64Var(&cfg.ThresholdDB, "threshold-db", cfg.ThresholdDB, "SpotterConfig.ThresholdDB")
	flag.Float64Var(&cfg.MinThresholdDB, "min-threshold-db", cfg.MinThresholdDB, "SpotterConfig.MinThresholdDB (0: a fixed threshold)")
	flag.Parse()
	all, err := datasets.FSDD(*fsdd)
	if err != nil {
		log.Fatal(err)
	}
	wc := frontend.DefaultWordConfig()
	rate := wc.Audio.SampleRate
	fmt.Printf("segmenter: threshold %g dB, minimum %g dB\n", cfg.ThresholdDB, cfg.MinThresholdDB)
	fmt.Printf("%-10s %6s %7s %6s %7s %6s %9s\n", "voice", "words", "missed", "extra", "merged", "alone", "segments")
	for _, speaker := range datasets.Speakers(all) {
		var recs []datasets.Recording
		for _, r := range all {
			if r.Speaker == speaker {
				recs = append(recs, r)
			}
		}
		audio, spans, err := datasets.RenderString(datasets.SessionPlan(speaker, recs, 1), rate, datasets.Noise{}, 1)
		if err != nil {
			log.Fatal(err)
		}
		seg, err := engine.NewSegmenter(wc, cfg, rate)
		if err != nil {
			log.Fatal(err)
		}
		heard := make([]bool, len(spans))
		alone := make([]bool, len(spans)) // the only word under some final segment
		var extra, merged, finals int
		for _, s := range append(seg.Push(audio.Samples), seg.Flush()...) {
			if !s.Final {
				continue
			}
			finals++
			n, last := 0, -1
			for k, sp := range spans {
				if min(s.End, sp.End) > max(s.Start, sp.Start) {
					heard[k] = true
					n, last = n+1, k
				}
			}
			switch {
			case n == 0:
				extra++
			case n == 1:
				alone[last] = true
			default:
				merged++
			}
		}
		missed, single := 0, 0
		for k, h := range heard {
			if !h {
				missed++
			}
			if alone[k] {
				single++
			}
		}
		fmt.Printf("%-10s %6d %7d %6d %7d %6d %9d\n", speaker, len(spans), missed, extra, merged, single, finals)
	}
}
