// Command retune tunes a trained connected digit model's decoder as `rfstream
// train connected` does (train.TuneDigitStrings on the recipe's dev strings
// of FSDD's held-out training takes 5-9) and writes the tuned copy. Training
// never reads the tuned settings, so a model trained with --tune=false and
// tuned here is the file the recipe writes with the same tuning options;
// one training serves several tunings (experiments/journal/oh.md, round 3).
// (`rfstream eval connected --model M --retune` tunes in memory and scores
// test sets; this writes the tuned file for the probes that read one.)
//
// --prior-scale holds the prior scale (DigitStringOptions.TunePriorScale).
// --tight adds FSDD's takes 5-9 as recorded (one word each, no padding) to
// the dev strings: a tuning that sees words recorded tight to their edges.
// Both choose on held-out training takes only, never on the test split.
//
// usage: go run ./experiments/probes/retune --model IN.rfm --out OUT.rfm [--prior-scale 1] [--tight]
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

func main() {
	in := flag.String("model", "", "the trained connected digit model (trained with --tune=false)")
	out := flag.String("out", "", "where the tuned copy is written")
	prior := flag.Float64("prior-scale", 0, "hold the prior scale at this value (0: choose it from the grid)")
	tight := flag.Bool("tight", false, "add FSDD's held-out takes 5-9 as recorded to the dev strings")
	flag.Parse()
	if *in == "" || *out == "" {
		log.Fatal("usage: retune --model IN.rfm --out OUT.rfm [--prior-scale S] [--tight]")
	}
	m, err := engine.LoadModel(*in)
	if err != nil {
		log.Fatal(err)
	}
	o := train.DefaultDigitStringOptions()
	o.FSDD, o.TunePriorScale, o.Log = defaults.FSDDDir(), *prior, os.Stderr
	recs, err := datasets.FSDD(o.FSDD)
	if err != nil {
		log.Fatal(err)
	}
	trainRecs, _ := datasets.OfficialSplit(recs)
	var trials []train.TuneTrial
	if *tight {
		trials, err = tuneWithTight(o, m, trainRecs)
	} else {
		trials, err = train.TuneDigitStrings(o, m, trainRecs)
	}
	if err != nil {
		log.Fatal(err)
	}
	best := train.BestTrial(trials)
	fmt.Printf("%s: word penalty %g, acoustic scale %g, prior scale %g (dev WER %.2f %%, SER %.2f %%, %d settings tried)\n",
		*out, best.WordPenalty, best.AcousticScale, best.PriorScale, 100*best.WER, 100*best.SER, len(trials))
	if err := engine.SaveModel(*out, m); err != nil {
		log.Fatal(err)
	}
}

// tuneWithTight tunes on the recipe's dev strings and every held-out
// training take as recorded.
func tuneWithTight(o train.DigitStringOptions, m *engine.Model, trainRecs []datasets.Recording) ([]train.TuneTrial, error) {
	dev, err := train.DigitStringDev(o, trainRecs)
	if err != nil {
		return nil, err
	}
	var held []datasets.Recording
	for _, r := range trainRecs {
		if train.HeldOutTake(r) {
			held = append(held, r)
		}
	}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	clips := make([]train.DevUtterance, len(held))
	errs := make([]error, len(held))
	parallel.For(len(held), func(i int) {
		a, err := frontend.ReadAudio(held[i].Path, rate)
		clips[i], errs[i] = train.DevUtterance{Audio: a, Words: []string{held[i].Label}}, err
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "retune: %d dev strings and %d held-out takes as recorded\n", len(dev), len(clips))
	return train.TuneConnected(m, append(dev, clips...), o.TuneGrid())
}
