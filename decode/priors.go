package decode

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"
)

// LogPriors estimates log class priors from frame labels, with one extra
// count per class so a class absent from the labels keeps a finite prior.
func LogPriors(labels []int, classes int) ([]float64, error) {
	if classes < 1 {
		return nil, fmt.Errorf("decode: %d classes", classes)
	}
	counts := make([]float64, classes)
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("decode: label %d of frame %d outside [0, %d)", l, i, classes)
		}
		counts[l]++
	}
	total := float64(len(labels) + classes)
	for c := range counts {
		counts[c] = math.Log((counts[c] + 1) / total)
	}
	return counts, nil
}

// ScaledLikelihoods turns classifier posteriors into the scaled
// log-likelihoods the decoder reads: dst = log(max(p, floor)) − logPrior,
// since p(x|c)/p(x) = P(c|x)/P(c). The floor (> 0) guards against zero or
// negative scores (an RLS read-out is not a probability). dst may be post.
func ScaledLikelihoods(dst, post blas32.General, logPriors []float64, floor float64) error {
	if !(floor > 0) {
		return fmt.Errorf("decode: posterior floor %v, want > 0", floor)
	}
	if post.Cols != len(logPriors) || dst.Rows != post.Rows || dst.Cols != post.Cols {
		return fmt.Errorf("decode: posteriors %d×%d, destination %d×%d, %d priors", post.Rows, post.Cols, dst.Rows, dst.Cols, len(logPriors))
	}
	for _, m := range []blas32.General{dst, post} {
		if m.Stride < m.Cols || (m.Rows > 0 && len(m.Data) < (m.Rows-1)*m.Stride+m.Cols) {
			return fmt.Errorf("decode: malformed matrix (%d×%d, stride %d, %d values)", m.Rows, m.Cols, m.Stride, len(m.Data))
		}
	}
	for _, lp := range logPriors {
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			return fmt.Errorf("decode: log prior %v", lp)
		}
	}
	for i := 0; i < post.Rows; i++ {
		src := post.Data[i*post.Stride : i*post.Stride+post.Cols]
		out := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		for j, p := range src {
			if math.IsNaN(float64(p)) {
				return fmt.Errorf("decode: posterior of frame %d class %d is NaN", i, j)
			}
			out[j] = float32(math.Log(max(float64(p), floor)) - logPriors[j])
		}
	}
	return nil
}
