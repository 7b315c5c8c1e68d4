// Command gaplevel asks how loud the rendered silence between words is, as
// the frontend hears it, next to the recordings it separates. A pause is
// rendered at a recording's datasets.NoiseFloor (an RMS level), either as
// white noise (datasets.Silence, the rendering until Nov 24) or with the
// spectrum of the recording's quietest stretches (datasets.
// EstimateBackground, what datasets.RenderString uses now). The speech
// detectors compare frame energies after pre-emphasis and windowing, where
// white noise and a microphone's mostly low-frequency background of the
// same RMS differ. For every recording of each FSDD speaker it prints the
// median over recordings of: the median frame energy of 0.5 s of each
// rendering minus the recording's own 10th-percentile frame energy, in dB.
//
// usage: go run ./experiments/probes/gaplevel [--fsdd DIR]
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
	whiteDiffs, roomDiffs := map[string][]float64{}, map[string][]float64{}
	for _, r := range all {
		a, err := frontend.ReadAudio(r.Path, ac.SampleRate)
		if err != nil {
			log.Fatal(err)
		}
		_, own := frontend.LogMel(ac, a.Samples)
		quiet := quantile(own, 0.1)
		_, white := frontend.LogMel(ac, datasets.Silence(ac.SampleRate/2, frontend.NoiseFloor(a.Samples, ac.SampleRate), rng))
		_, room := frontend.LogMel(ac, frontend.EstimateBackground(a.Samples, ac.SampleRate).Noise(ac.SampleRate/2, rng))
		whiteDiffs[r.Speaker] = append(whiteDiffs[r.Speaker], (quantile(white, 0.5)-quiet)*nats2dB)
		roomDiffs[r.Speaker] = append(roomDiffs[r.Speaker], (quantile(room, 0.5)-quiet)*nats2dB)
	}
	fmt.Println("rendered pause over the recording's 10th-percentile frame, dB: median (10th to 90th percentile over recordings)")
	fmt.Printf("%-10s %-22s %s\n", "speaker", "white noise", "the recording's background")
	for _, s := range datasets.Speakers(all) {
		w, b := whiteDiffs[s], roomDiffs[s]
		fmt.Printf("%-10s %5.1f (%5.1f to %4.1f)   %5.1f (%5.1f to %4.1f)\n", s,
			quantile(w, 0.5), quantile(w, 0.1), quantile(w, 0.9), quantile(b, 0.5), quantile(b, 0.1), quantile(b, 0.9))
	}
}

// quantile returns the q-quantile of x (by rank, no interpolation).
func quantile(x []float64, q float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}
