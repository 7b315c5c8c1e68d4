package features

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rfstream/rfstream/internal/flopmeter"
	"github.com/rfstream/rfstream/internal/linalg"
)

// BenchmarkFourierApply times random Fourier features on MNIST-shaped rows
// (the kitchen-sinks configuration the brief compares with scikit-learn's
// RBFSampler(4000)); bench/maps.py times NumPy's cos(X·W + b) on the same
// shapes. GFLOP/s counts the GEMM (2·n·d·m); the cosines come on top.
func BenchmarkFourierApply(b *testing.B) {
	const n, d, m = 8192, 784, 4000
	r := rand.New(rand.NewPCG(1, 2))
	x := linalg.NewGeneral32(n, d)
	for i := range x.Data {
		x.Data[i] = float32(r.NormFloat64())
	}
	f, err := NewFourier(d, FourierParams{M: m, Sigma: 1}, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(b *testing.B) {
		dst := linalg.NewGeneral32(n, m)
		f.Apply(dst, x)
		b.ResetTimer()
		cpu := flopmeter.Start()
		for i := 0; i < b.N; i++ {
			f.Apply(dst, x)
		}
		flopmeter.Report(b, 2*float64(n)*d*m, cpu)
	})
}
