package classifier

import (
	"math/rand/v2"
	"testing"

	"github.com/rfstream/rfstream/internal/linalg"
)

// The dual kernel of 4000 rows of count features shaped like the MNIST
// invariant map's (|G| = 147 elements, counts 0..147): float64 products
// against exact counts in float32 chunks. GFLOP/s counts the n²·d
// multiply-adds of one triangle twice, as for SYRK.
func BenchmarkDualKernel(b *testing.B) {
	const rows, cols, maxCount = 4000, 16500, 147
	const unit = float32(0.0123)
	r := rand.New(rand.NewPCG(1, 2))
	z := linalg.NewGeneral32(rows, cols)
	for i := range z.Data {
		z.Data[i] = float32(r.IntN(maxCount+1)) * unit
	}
	k := linalg.NewGeneral64(rows, rows)
	flops := float64(rows) * float64(rows) * float64(cols)
	b.Run("float64", func(b *testing.B) {
		for b.Loop() {
			gramFloat64(k, z)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("counts", func(b *testing.B) {
		for b.Loop() {
			if !gramCounts(k, z, unit, maxCount) {
				b.Fatal("counts refused")
			}
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
