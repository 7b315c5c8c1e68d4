package classifier

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/internal/flopmeter"
	"github.com/rfstream/rfstream/internal/linalg"
)

// benchGramShapes are the (rows per block, features) of the Gram update
// benchmarks; bench/rls.py times NumPy on the same shapes.
var benchGramShapes = [][2]int{{4096, 1000}, {4096, 5000}}

// gramFlops is the useful work of one symmetric Gram update: n·m² (half of
// the 2·n·m² a general product would spend, since only one triangle is
// needed). NumPy's figures in bench/rls.py use the same count, so GFLOP/s
// compare times directly.
func gramFlops(n, m int) float64 { return float64(n) * float64(m) * float64(m) }

// BenchmarkGramUpdate times RLSAccumulator.Add on one block: the whole
// per-block cost of training (f32 SYRK, widening into the float64 Gram,
// ZᵀY, the finiteness check).
func BenchmarkGramUpdate(b *testing.B) {
	for _, sh := range benchGramShapes {
		n, m := sh[0], sh[1]
		b.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			z := gaussianRows(n, m, r)
			labels := make([]int, n)
			for i := range labels {
				labels[i] = r.IntN(10)
			}
			acc := NewRLSAccumulator(m, 10)
			if err := acc.Add(z, labels); err != nil { // allocate the scratch outside the timing
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu := flopmeter.Start()
			for i := 0; i < b.N; i++ {
				if err := acc.Add(z, labels); err != nil {
					b.Fatal(err)
				}
			}
			flopmeter.Report(b, gramFlops(n, m), cpu)
		})
	}
}

// BenchmarkSyrk times the bare BLAS calls the Gram update could be built
// on: SYRK on a float32 block, and SYRK on the same block widened to
// float64 (conversion included), which is the alternative to widening the
// float32 block Gram.
func BenchmarkSyrk(b *testing.B) {
	for _, sh := range benchGramShapes {
		n, m := sh[0], sh[1]
		r := rand.New(rand.NewPCG(2, 2))
		z := gaussianRows(n, m, r)
		b.Run(fmt.Sprintf("f32/n=%d/m=%d", n, m), func(b *testing.B) {
			c := blas32.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: make([]float32, m*m)}
			cpu := flopmeter.Start()
			for i := 0; i < b.N; i++ {
				blas32.Syrk(blas.Trans, 1, z, 0, c)
			}
			flopmeter.Report(b, gramFlops(n, m), cpu)
			b.StopTimer()
			// What float32 costs in accuracy: the largest error of the
			// float32 Gram against a float64 SYRK of the same block,
			// relative to the largest diagonal entry.
			z64 := linalg.NewGeneral64(n, m)
			for k, v := range z.Data {
				z64.Data[k] = float64(v)
			}
			c64 := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: make([]float64, m*m)}
			blas64.Syrk(blas.Trans, 1, z64, 0, c64)
			var maxErr, maxDiag float64
			for i := 0; i < m; i++ {
				maxDiag = math.Max(maxDiag, c64.Data[i*m+i])
				for j := i; j < m; j++ {
					maxErr = math.Max(maxErr, math.Abs(float64(c.Data[i*m+j])-c64.Data[i*m+j]))
				}
			}
			b.ReportMetric(maxErr/maxDiag, "relerr")
		})
		b.Run(fmt.Sprintf("f64/n=%d/m=%d", n, m), func(b *testing.B) {
			z64 := linalg.NewGeneral64(n, m)
			c := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: make([]float64, m*m)}
			cpu := flopmeter.Start()
			for i := 0; i < b.N; i++ {
				for k, v := range z.Data {
					z64.Data[k] = float64(v)
				}
				blas64.Syrk(blas.Trans, 1, z64, 1, c)
			}
			flopmeter.Report(b, gramFlops(n, m), cpu)
		})
	}
}

// BenchmarkSolve times one Solve (copy of the Gram, Cholesky, two
// triangular solves) at m features: m³/3 flops dominate.
func BenchmarkSolve(b *testing.B) {
	for _, m := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 3))
			n := m + 100
			z := gaussianRows(n, m, r)
			labels := make([]int, n)
			for i := range labels {
				labels[i] = r.IntN(10)
			}
			acc := NewRLSAccumulator(m, 10)
			if err := acc.Add(z, labels); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu := flopmeter.Start()
			for i := 0; i < b.N; i++ {
				if _, err := acc.Solve(1e-3 * acc.MeanDiagonal()); err != nil {
					b.Fatal(err)
				}
			}
			mf := float64(m)
			flopmeter.Report(b, mf*mf*mf/3, cpu)
		})
	}
}
