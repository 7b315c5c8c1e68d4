package classifier

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkSoftmaxFit trains on 20000 rows of 500 features with 40 classes
// (labels from a random linear softmax model, λ = 1e-4) with each optimiser
// and reports the final objective and the seconds until the objective first
// fell to 1.62, so the two compare on time to a given loss.
func BenchmarkSoftmaxFit(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, d, c = 20000, 500, 40
	const target = 1.62
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
		{Optimizer: "lbfgs", MaxIter: 60, Lambda: 1e-4},
		{Optimizer: "adam", MaxIter: 8, Lambda: 1e-4},
	} {
		b.Run(cfg.Optimizer, func(b *testing.B) {
			var rep SoftmaxReport
			reached := math.NaN()
			for b.Loop() {
				start := time.Now()
				reached = math.NaN()
				cfg.Progress = func(_ int, loss float64) {
					if loss <= target && math.IsNaN(reached) {
						reached = time.Since(start).Seconds()
					}
				}
				var err error
				if _, rep, err = FitSoftmax(z, labels, c, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(rep.Loss, "loss")
			b.ReportMetric(reached, "s-to-1.62")
		})
	}
}
