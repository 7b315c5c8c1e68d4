package classifier

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSoftmaxFit trains on 20000 rows of 500 features with 40 classes
// (labels from a random linear softmax model) under each optimiser's
// default budget and reports the final objective beside the time, so the two
// can be compared on time to a given loss.
func BenchmarkSoftmaxFit(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, d, c = 20000, 500, 40
	z := gaussianRows(n, d, r)
	w := make([][]float64, d)
	for i := range w {
		w[i] = make([]float64, c)
		for j := range w[i] {
			w[i][j] = r.NormFloat64() * 0.1
		}
	}
	labels := sampleSoftmax(z, w, make([]float64, c), r)
	for _, cfg := range []SoftmaxOptions{
		{Optimizer: "lbfgs", MaxIter: 50, Lambda: 1e-4},
		{Optimizer: "adam", MaxIter: 5, Lambda: 1e-4},
	} {
		b.Run(cfg.Optimizer, func(b *testing.B) {
			var rep SoftmaxReport
			for b.Loop() {
				var err error
				if _, rep, err = FitSoftmax(z, labels, c, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(rep.Loss, "loss")
		})
	}
}
