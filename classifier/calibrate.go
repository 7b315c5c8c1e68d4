package classifier

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/linalg"
)

// Temperature scaling turns RLS scores into posteriors.
//
// RLS scores are least-squares fits to ±1 targets: they are not log
// probabilities, and they can be negative for every class. Of the two
// obvious ways to make them a distribution — clip at zero and normalise, or
// a softmax at a temperature T — clipping gives exact zeros, which become
// −∞ in the decoder's log domain and forbid a path outright, so one bad
// frame can break a whole string. The softmax keeps every class possible,
// and its single parameter is fitted by maximum likelihood on held-out
// rows: T is what makes softmax(s/T) the best-calibrated distribution of
// that family. One number cannot make the posteriors calibrated class by
// class; it fixes their overall sharpness, which is what the decoder's
// balance between acoustic and transition scores depends on.

// FitTemperature returns the T > 0 that minimises the mean cross-entropy of
// softmax(scores/T) against labels, by golden-section search on log T over
// [1e-3, 1e3] (the objective is convex in 1/T).
func FitTemperature(scores blas32.General, labels []int) (float64, error) {
	if scores.Rows != len(labels) || scores.Rows == 0 {
		return 0, fmt.Errorf("classifier: temperature from %d score rows and %d labels", scores.Rows, len(labels))
	}
	for i, l := range labels {
		if l < 0 || l >= scores.Cols {
			return 0, fmt.Errorf("classifier: label %d of row %d outside 0..%d", l, i, scores.Cols-1)
		}
	}
	nll := func(logT float64) float64 {
		inv := math.Exp(-logT)
		var s float64
		for i := 0; i < scores.Rows; i++ {
			row := linalg.Row32(scores, i)
			s += logSumExp(row, inv) - float64(row[labels[i]])*inv
		}
		return s / float64(scores.Rows)
	}
	lo, hi := math.Log(1e-3), math.Log(1e3)
	phi := (math.Sqrt(5) - 1) / 2
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := nll(a), nll(b)
	for hi-lo > 1e-4 {
		if fa < fb {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = nll(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = nll(b)
		}
	}
	t := math.Exp((lo + hi) / 2)
	if math.IsNaN(t) {
		return 0, errors.New("classifier: temperature search met non-finite scores")
	}
	return t, nil
}

// CalibratedRLS is an RLS read-out with the temperature that turns its
// scores into posteriors.
type CalibratedRLS struct {
	RLS  *RLS
	Temp float64
	// packed, when set (NewPackedCalibratedRLS), is RLS.W laid out for
	// repeated products.
	packed *linalg.Packed
}

// NewPackedCalibratedRLS is the read-out of a recogniser that scores
// frames for as long as it runs: r's weights are packed once for the
// products (linalg.Packed), so r.W must not change after.
func NewPackedCalibratedRLS(r *RLS, temp float64) *CalibratedRLS {
	return &CalibratedRLS{RLS: r, Temp: temp, packed: linalg.PackB(r.W)}
}

func (c *CalibratedRLS) scores(dst, z blas32.General) {
	if c.packed != nil {
		c.packed.Mul(dst, z)
		return
	}
	c.RLS.Scores(dst, z)
}

// Posteriors writes softmax(z·W/T) row by row into dst.
func (c *CalibratedRLS) Posteriors(dst, z blas32.General) {
	c.scores(dst, z)
	SoftmaxRows(dst, c.Temp)
}

// LogPosteriors writes log softmax(z·W/T) row by row into dst.
func (c *CalibratedRLS) LogPosteriors(dst, z blas32.General) {
	c.scores(dst, z)
	LogSoftmaxRows(dst, c.Temp)
}
