// Command gaplevel asks how loud the rendered silence between words is, as
// the frontend hears it, next to the recordings it separates. The demo and
// the connected-digit sets render a pause as white noise at a recording's
// datasets.NoiseFloor (an RMS level); the speech detectors compare frame
// energies after pre-emphasis and windowing, where white noise and a
// microphone's mostly low-frequency background of the same RMS differ.
// For every recording of each FSDD speaker it prints the median over
// recordings of: the median frame energy of 0.5 s of such noise minus the
// recording's own 10th-percentile frame energy, in dB.
//
// usage: go run ./bench/gaplevel [--fsdd DIR]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
)

func main() {
	fsdd := flag.String("fsdd", "../shared/fsdd/recordings", "FSDD recordings")
	flag.Parse()
	all, err := datasets.FSDD(*fsdd)
	if err != nil {
		log.Fatal(err)
	}
	ac := frontend.DefaultAudioConfig()
	rng := rand.New(rand.NewPCG(1, 2))
	const nats2dB = 10 / math.Ln10
	diffs := map[string][]float64{}
	for _, r := range all {
		a, err := datasets.ReadAudioAt(r.Path, ac.SampleRate)
		if err != nil {
			log.Fatal(err)
		}
		_, own := frontend.LogMel(ac, a.Samples)
		_, gap := frontend.LogMel(ac, datasets.Silence(ac.SampleRate/2, datasets.NoiseFloor(a.Samples, ac.SampleRate), rng))
		diffs[r.Speaker] = append(diffs[r.Speaker], (quantile(gap, 0.5)-quantile(own, 0.1))*nats2dB)
	}
	fmt.Println("speaker    rendered gap over the recording's 10th-percentile frame, dB: median (10th-90th percentile over recordings)")
	for _, s := range datasets.Speakers(all) {
		d := diffs[s]
		fmt.Printf("%-10s %5.1f (%.1f to %.1f)\n", s, quantile(d, 0.5), quantile(d, 0.1), quantile(d, 0.9))
	}
}

// quantile returns the q-quantile of x (by rank, no interpolation).
func quantile(x []float64, q float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}
