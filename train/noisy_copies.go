package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rfstream/rfstream/augment"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
)

// DefaultNoisySNR is NoisyCopies' SNR range when NoisySNR is unset, in dB
// against the recording's own power: down to where a word said quietly
// beside louder ones stands over an 8-bit file's or a far microphone's
// floor, up to a quiet room's.
var DefaultNoisySNR = [2]float64{5, 25}

// noisyKinds are the noises a noisy copy draws from: flat, falling like
// a fan's or traffic's, and shaped like the recording's own quiet stretches.
var noisyKinds = []string{"white", "pink", "background"}

// noisyCopies are the NoisyCopies copies of the training recordings not
// held out: each padded afresh, then mixed over its whole length (pads
// too, as a noisy channel would) with one seeded noise kind at a seeded
// SNR within NoisySNR, measured against the recording as read, so the
// word keeps its SNR whatever the pads' lengths.
func (o DigitStringOptions) noisyCopies(trainRecs []datasets.Recording, held func(datasets.Recording) bool, rate int) ([]Utterance, error) {
	if o.NoisyCopies < 0 || o.NoisyCopies > 10 {
		return nil, fmt.Errorf("train: %d noisy copies of the recordings (0 to 10)", o.NoisyCopies)
	}
	snr := o.NoisySNR
	if snr == ([2]float64{}) {
		snr = DefaultNoisySNR
	}
	if !(snr[0] <= snr[1]) || math.IsInf(snr[0], 0) || math.IsInf(snr[1], 0) {
		return nil, fmt.Errorf("train: noisy copies' SNR range %v dB", snr)
	}
	pool := notHeld(trainRecs, held)
	var out []Utterance
	for c := 1; c <= o.NoisyCopies; c++ {
		mix := func(rec *frontend.Audio, padded []float32, rng *rand.Rand) ([]float32, error) {
			kind := noisyKinds[rng.IntN(len(noisyKinds))]
			want := snr[0] + (snr[1]-snr[0])*rng.Float64()
			// augment.Noise measures the SNR against what it is given:
			// the padded recording, whose pads lower its power.
			at := want + 10*math.Log10(meanPower(padded)/meanPower(rec.Samples))
			if math.IsNaN(at) || math.IsInf(at, 0) {
				return padded, nil // a digitally silent recording: nothing to hide
			}
			a, err := augment.Noise(&frontend.Audio{Rate: rec.Rate, Samples: padded}, kind, at, rng)
			if err != nil {
				return nil, err
			}
			return a.Samples, nil
		}
		// Copy indices from 1<<10 keep these pads' draws apart from
		// RecordingCopies' (1 … 9).
		utts, err := o.paddedRecordings(pool, held, rate, 1<<10+uint64(c), mix)
		if err != nil {
			return nil, err
		}
		out = append(out, utts...)
	}
	return out, nil
}

func meanPower(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s / float64(max(len(x), 1))
}

// notHeld are the recordings held does not mark: the pool copies and
// joined strings are made from.
func notHeld(recs []datasets.Recording, held func(datasets.Recording) bool) []datasets.Recording {
	var pool []datasets.Recording
	for _, r := range recs {
		if !held(r) {
			pool = append(pool, r)
		}
	}
	return pool
}
