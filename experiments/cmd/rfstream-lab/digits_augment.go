package main

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
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
			frontend.UnitWordVector(dst)
			labels = append(labels, y[i])
			at++
		}
	}
	return out, labels, nil
}
