// Command phonealign compares two first labellings of a flite or festival
// phone corpus (round 3 of the phone rounds): the phone times the engine
// printed, and a phone model's forced alignment of the same phone
// sequence (train.AlignFirstLabels). It prints how often the two put a
// frame in the same phone (silence counted as one more unit) and how much
// of each labelling is silence.
//
//	go run ./experiments/probes/phonealign -manifest DIR/manifest.tsv -model ALIGNER.rfm [-n 120]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/train"
)

func main() {
	manifest := flag.String("manifest", "", "a flite/festival phone corpus's manifest.tsv (.PHN files beside the audio)")
	modelPath := flag.String("model", "", "the phone model that aligns")
	n := flag.Int("n", 120, "utterances (the first ones)")
	flag.Parse()
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	us, spans, err := datasets.ReadEnginePhoneCorpus(datasets.EnginePhoneCorpus{Manifest: *manifest})
	if err != nil {
		log.Fatal(err)
	}
	us, spans = us[:min(*n, len(us))], spans[:min(*n, len(us))]
	in := engine.DefaultConnectedInput()
	rate, hop := in.Audio.SampleRate, in.Audio.HopMs/1000
	utts := make([]train.Utterance, len(us))
	ptrs := make([]*train.Utterance, len(us))
	for i, u := range us {
		a, err := frontend.ReadAudio(u.Path, rate)
		if err != nil {
			log.Fatal(err)
		}
		utts[i] = train.Utterance{Samples: a.Samples, Words: u.Words}
		ptrs[i] = &utts[i]
	}
	failed, err := train.AlignFirstLabels(m, m.Labels, ptrs)
	if err != nil {
		log.Fatal(err)
	}
	silence := len(m.Labels) // the unit index of silence
	var same, frames, silTimed, silAligned int
	for i, u := range utts {
		if u.Labels == nil {
			continue
		}
		// The engine's phone of each frame: the span holding the frame's
		// start, as the first labels from phone times are cut.
		timed := make([]int, len(u.Labels))
		for f := range timed {
			timed[f] = silence
		}
		for k, s := range spans[i] {
			f0 := int(math.Round(float64(s.Start) / float64(rate) / hop))
			f1 := min(int(math.Round(float64(s.End)/float64(rate)/hop)), len(timed))
			for f := f0; f < f1; f++ {
				timed[f] = k
			}
		}
		for f, c := range u.Labels {
			aligned := min(c/3, silence)
			engine := silence
			if timed[f] != silence {
				engine = indexOf(m.Labels, u.Words[timed[f]])
			}
			frames++
			if aligned == engine {
				same++
			}
			if aligned == silence {
				silAligned++
			}
			if engine == silence {
				silTimed++
			}
		}
	}
	fmt.Printf("%d utterances (%d not aligned), %d frames: same unit %.1f%%; silence %.1f%% by the engine's times, %.1f%% by the alignment\n",
		len(utts)-failed, failed, frames, 100*float64(same)/float64(frames), 100*float64(silTimed)/float64(frames), 100*float64(silAligned)/float64(frames))
}

func indexOf(labels []string, p string) int {
	for i, l := range labels {
		if l == p {
			return i
		}
	}
	log.Fatalf("phone %q is not one of the model's", p)
	return -1
}
