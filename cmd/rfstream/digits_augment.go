package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// augmentWarped returns the training rows followed by copies warped by
// elements sampled from g (pitch shifts and tempo warps of the log-mel
// patch), each copy mean-removed and rescaled to unit length like a word
// vector. This is the non-invariant way to use the audio group: the
// classifier sees transformed examples instead of the features being
// invariant. The rows of x must be patches g acts on.
func augmentWarped(x blas32.General, y []int, g transforms.Group, copies int, seed uint64) (blas32.General, []int, error) {
	if copies <= 0 {
		return x, y, nil
	}
	if g.Dim() != x.Cols {
		return x, y, fmt.Errorf("augment: group acts on %d values, word vectors have %d", g.Dim(), x.Cols)
	}
	r := rand.New(rand.NewPCG(seed, 0x61756720))
	out := linalg.NewGeneral32(x.Rows*(1+copies), x.Cols)
	labels := make([]int, 0, out.Rows)
	for i := 0; i < x.Rows; i++ {
		copy(linalg.Row32(out, i), linalg.Row32(x, i))
	}
	labels = append(labels, y...)
	at := x.Rows
	for c := 0; c < copies; c++ {
		elems := g.Sample(r, x.Rows)
		for i := 0; i < x.Rows; i++ {
			dst := linalg.Row32(out, at)
			g.Apply(dst, linalg.Row32(x, i), elems[i])
			centreAndNormalise(dst)
			labels = append(labels, y[i])
			at++
		}
	}
	return out, labels, nil
}

// centreAndNormalise removes the mean and scales to unit length, as
// frontend.WordVector does, so a warped patch is a word vector again.
func centreAndNormalise(v []float32) {
	var mean float64
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	var ss float64
	for i, x := range v {
		d := float64(x) - mean
		v[i] = float32(d)
		ss += d * d
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// lambdaHoldOut lists the rows held out to choose λ: nil for FitRLS's
// random tenth, or with "speaker" every row (augmented copies included)
// of one training speaker, picked by the seed, so λ is the one that
// generalises to a voice the read-out has not heard. rows is a multiple of
// len(train): copies follow the originals in blocks.
func lambdaHoldOut(by string, train []datasets.Recording, rows int, seed uint64) ([]int, error) {
	switch by {
	case "random":
		return nil, nil
	case "speaker":
	default:
		return nil, fmt.Errorf("unknown --lambda-by %q (random, speaker)", by)
	}
	speakers := datasets.Speakers(train)
	if len(speakers) < 2 {
		return nil, fmt.Errorf("--lambda-by speaker needs at least two training speakers, have %d", len(speakers))
	}
	held := speakers[seed%uint64(len(speakers))]
	var out []int
	for i := 0; i < rows; i++ {
		if train[i%len(train)].Speaker == held {
			out = append(out, i)
		}
	}
	return out, nil
}

// speakerNormalise removes each speaker's mean log-mel spectrum (over all
// frames of all their recordings) from every frame of their word vectors,
// and with scale also divides each band by the speaker's standard
// deviation in it, then makes each row a unit word vector again. It is
// speaker-level CMVN: unsupervised (no labels), but it needs the speaker of
// every recording and several recordings of each, so it suits evaluation
// by speaker, not a single recording of an unknown voice.
func speakerNormalise(x blas32.General, recs []datasets.Recording, mels int, scale bool) {
	rows := map[string][]int{}
	for i, r := range recs {
		rows[r.Speaker] = append(rows[r.Speaker], i)
	}
	mean, sq := make([]float64, mels), make([]float64, mels)
	for _, idx := range rows {
		clear(mean)
		clear(sq)
		var n float64
		for _, i := range idx {
			row := linalg.Row32(x, i)
			for t := 0; t+mels <= len(row); t += mels {
				for k, v := range row[t : t+mels] {
					mean[k] += float64(v)
					sq[k] += float64(v) * float64(v)
				}
				n++
			}
		}
		inv := make([]float32, mels)
		for k := range mean {
			mean[k] /= n
			inv[k] = 1
			if scale {
				inv[k] = float32(1 / math.Sqrt(math.Max(sq[k]/n-mean[k]*mean[k], 1e-12)))
			}
		}
		for _, i := range idx {
			row := linalg.Row32(x, i)
			for t := 0; t+mels <= len(row); t += mels {
				for k := range row[t : t+mels] {
					row[t+k] = (row[t+k] - float32(mean[k])) * inv[k]
				}
			}
			centreAndNormalise(row)
		}
	}
}
