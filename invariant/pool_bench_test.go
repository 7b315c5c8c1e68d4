package invariant

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rfstream/rfstream/internal/flopmeter"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// BenchmarkPoolMNIST times the CDF pooling step alone (threshold counts of
// precomputed projections) in the MNIST configuration, on one goroutine
// locked to its thread, in CPU nanoseconds per projection value: the part of
// extraction that is not the GEMM (whose cost is 2·784 flops a projection).
func BenchmarkPoolMNIST(b *testing.B) {
	const rows = 256
	m := &Map{p: Params{M: benchM, N: benchBins, Lo: benchLo, Hi: benchHi}, elems: make([]transforms.Element, benchG), s: 1}
	m.setThresholds()
	r := rand.New(rand.NewPCG(3, 4))
	proj := linalg.NewGeneral32(rows, benchM*benchG)
	// Spread like the projections of unit images on difference templates,
	// mostly inside the threshold range.
	for i := range proj.Data {
		proj.Data[i] = float32(r.NormFloat64() * 0.2)
	}
	dst := linalg.NewGeneral32(rows, benchM*(2*benchBins+1))
	m.poolRows(dst, proj, 0, 0, rows) // touch dst once outside the timing
	// The configuration must be one where pooling does work: every
	// template's 2n+1 counts form a CDF (never falling), and the top
	// threshold, 0.5, sits above most of the projections spread around 0.
	nb := 2*benchBins + 1
	row := linalg.Row32(dst, 0)
	for j := 0; j < benchM; j++ {
		cdf := row[j*nb : (j+1)*nb]
		for k := 1; k < nb; k++ {
			if cdf[k] < cdf[k-1] {
				b.Fatalf("template %d: count at threshold %d falls from %v to %v", j, k, cdf[k-1], cdf[k])
			}
		}
		if cdf[nb-1] <= cdf[0] {
			b.Fatalf("template %d: counts flat at %v across the threshold range", j, cdf[0])
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.SetBytes(int64(4 * len(proj.Data)))
	b.ResetTimer()
	c0, ok := flopmeter.ThreadCPU()
	if !ok {
		b.Skip("no thread CPU clock on this platform")
	}
	for i := 0; i < b.N; i++ {
		m.poolRows(dst, proj, 0, 0, rows)
	}
	c1, _ := flopmeter.ThreadCPU()
	cpu := c1 - c0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(proj.Data)), "cpu-ns/projection")
}
