package invariant

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// The MNIST configuration of `make eval-mnist-invariant`: 1500 datadiff
// templates under all 147 elements of {−20°, 0°, 20°} × whole-pixel shifts
// within ±3 px, 33 thresholds (n = 16) evenly on [−0.5, 0.5].
const (
	benchM      = 1500
	benchBins   = 16
	benchG      = 147 // 3 angles × 7 × 7 shifts, all of the finite group
	benchLo     = -0.5
	benchHi     = 0.5
	benchRows   = 1024
	benchDegree = 20
)

// BenchmarkInvariantMNIST measures feature extraction for 28×28 images in
// the MNIST configuration (images/s), and beside it, in the same run and on
// the same shapes, linalg's bare GEMM: the projection of the batch onto all
// m·|G| stored templates. The ratio says how close extraction (projection
// plus CDF pooling) comes to the machine's GEMM peak for its projection
// step. Each iteration times both a few times and keeps the best, so
// another process's burst does not land on one side only.
func BenchmarkInvariantMNIST(b *testing.B) {
	sz := transforms.ImageSize{Width: 28, Height: 28}
	rot, _ := transforms.NewRotationGroup(transforms.RotationParams{ImageSize: sz, MaxDegrees: benchDegree, Steps: 1})
	tr, _ := transforms.NewTranslationGroup(transforms.TranslationParams{ImageSize: sz, MaxShift: 3})
	prod, err := transforms.NewProductGroup(rot, tr)
	if err != nil {
		b.Fatal(err)
	}
	// Stroke-like unit-length images stand in for MNIST (the data set may
	// be absent); the cost does not depend on the pixel values.
	r := rand.New(rand.NewPCG(1, 2))
	// The first benchRows rows are the batch; templates come from all of them.
	pool := linalg.NewGeneral32(max(benchRows, 4*benchM), 28*28)
	for i := 0; i < pool.Rows; i++ {
		c := func() float64 { return 6 + 16*r.Float64() }
		copy(linalg.Row32(pool, i), strokes([4]float64{c(), c(), c(), c()}, [4]float64{c(), c(), c(), c()}))
	}
	x := linalg.Rows32(pool, 0, benchRows)
	m, err := NewFromData(pool, Params{M: benchM, N: benchBins, Group: prod.Spec(), Templates: DataDiff, Lo: benchLo, Hi: benchHi, Center: true}, 1)
	if err != nil {
		b.Fatal(err)
	}
	if got := m.Transformed().Rows; got != benchM*benchG {
		b.Fatalf("%d stored templates, want %d·%d", got, benchM, benchG)
	}
	z := linalg.NewGeneral32(benchRows, m.OutDim())
	proj := linalg.NewGeneral32(benchRows, m.Transformed().Rows)
	flops := 2 * float64(benchRows) * float64(x.Cols) * float64(m.Transformed().Rows)
	const rounds = 3
	bestApply, bestGemm := time.Duration(1<<62), time.Duration(1<<62)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < rounds; k++ {
			t0 := time.Now()
			m.Apply(z, x)
			bestApply = min(bestApply, time.Since(t0))
			t0 = time.Now()
			linalg.MulABt32(proj, x, m.Transformed())
			bestGemm = min(bestGemm, time.Since(t0))
		}
	}
	b.StopTimer()
	peak := flops / bestGemm.Seconds() / 1e9
	eff := flops / bestApply.Seconds() / 1e9
	b.ReportMetric(float64(benchRows)/bestApply.Seconds(), "images/s")
	b.ReportMetric(eff, "proj-GFLOP/s")
	b.ReportMetric(peak, "gemm-peak-GFLOP/s")
	b.ReportMetric(eff/peak, "ratio")
	b.Logf("m=%d n=%d |G|=%d: %d features from %d projections per image; %s, best of %d rounds: extraction %.0f images/s = %.1f GFLOP/s of projection, bare GEMM %.1f GFLOP/s, ratio %.2f",
		benchM, benchBins, benchG, m.OutDim(), m.Transformed().Rows, linalg.Backend, rounds*b.N, float64(benchRows)/bestApply.Seconds(), eff, peak, eff/peak)
}
