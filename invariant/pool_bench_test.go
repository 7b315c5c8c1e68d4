package invariant

import (
	"math/rand/v2"
	"testing"

	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// BenchmarkPoolMNIST times the CDF pooling step alone (threshold counts of
// precomputed projections) in the MNIST configuration, per projection value,
// on one goroutine: the part of extraction that is not the GEMM.
func BenchmarkPoolMNIST(b *testing.B) {
	const rows = 64
	m := &Map{p: Params{M: benchM, N: benchBins}, s: 1, elems: make([]transforms.Element, benchG)}
	r := rand.New(rand.NewPCG(3, 4))
	proj := linalg.NewGeneral32(rows, benchM*benchG)
	for i := range proj.Data {
		proj.Data[i] = float32(r.NormFloat64() * 0.3)
	}
	dst := linalg.NewGeneral32(rows, benchM*(2*benchBins+1))
	b.SetBytes(int64(4 * len(proj.Data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.poolRows(dst, proj, 0, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(proj.Data)), "ns/projection")
}
