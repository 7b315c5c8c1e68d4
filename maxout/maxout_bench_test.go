package maxout

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/flopmeter"
	"github.com/rfstream/rfstream/internal/linalg"
)

// benchMapShapes are the (rows, input dimension, units, projections per
// unit) of the feature-map benchmarks: MNIST-shaped inputs at the sizes of
// Table 1. bench/maps.py times NumPy on the same shapes.
var benchMapShapes = [][4]int{{8192, 784, 1000, 4}, {8192, 784, 5000, 4}}

// mapFlops counts the projection GEMM only (2·n·d·m·q); the max over the q
// candidates is the part a fused implementation hides behind it, so a
// figure close to the bare GEMM's means the reduction costs little.
func mapFlops(n, d, m, q int) float64 { return 2 * float64(n) * float64(d) * float64(m) * float64(q) }

func benchRows(n, d int) blas32.General {
	r := rand.New(rand.NewPCG(1, 2))
	x := linalg.NewGeneral32(n, d)
	for i := range x.Data {
		x.Data[i] = float32(r.NormFloat64())
	}
	return x
}

// BenchmarkApply times the whole map (GEMM fused with the max) and, beside
// it, the bare float32 GEMM of the same rows against all m·q projections:
// the ratio of the two is what the max-reduction costs.
func BenchmarkApply(b *testing.B) {
	for _, sh := range benchMapShapes {
		n, d, m, q := sh[0], sh[1], sh[2], sh[3]
		x := benchRows(n, d)
		mp, err := New(d, Params{M: m, Q: q}, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("maxout/n=%d/m=%d/q=%d", n, m, q), func(b *testing.B) { benchApply(b, mp, x) })
		b.Run(fmt.Sprintf("gemm/n=%d/m=%d/q=%d", n, m, q), func(b *testing.B) {
			prod := linalg.NewGeneral32(n, m*q)
			linalg.MulABt32(prod, x, mp.w)
			b.ResetTimer()
			cpu := flopmeter.Start()
			for i := 0; i < b.N; i++ {
				linalg.MulABt32(prod, x, mp.w)
			}
			flopmeter.Report(b, mapFlops(n, d, m, q), cpu)
		})
	}
}

// mnistRows returns the first n MNIST training images (scaled to [0, 1]),
// or skips the benchmark when the data cache has none.
func mnistRows(b *testing.B, n int) blas32.General {
	dir := os.Getenv("RFSTREAM_DATA")
	if dir == "" {
		dir = "../data"
	}
	im, err := frontend.ReadIDXImages(filepath.Join(dir, "mnist", "train-images-idx3-ubyte"))
	if err != nil {
		b.Skipf("no MNIST in the data cache (make data): %v", err)
	}
	return linalg.Rows32(im.X, 0, n)
}

// BenchmarkApplyMNIST times the map on real MNIST images, whose rows are
// about four-fifths zeros, through the sparse product (the default) and
// through the GEMM alone. GFLOP/s counts the dense GEMM's flops either
// way, so the two compare as speeds of the same job.
func BenchmarkApplyMNIST(b *testing.B) {
	const n = 8192
	x := mnistRows(b, n)
	for _, sh := range benchMapShapes {
		d, m, q := sh[1], sh[2], sh[3]
		mp, err := New(d, Params{M: m, Q: q}, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("sparse/n=%d/m=%d/q=%d", n, m, q), func(b *testing.B) { benchApply(b, mp, x) })
		b.Run(fmt.Sprintf("gemm/n=%d/m=%d/q=%d", n, m, q), func(b *testing.B) {
			defer linalg.SetSparseShare(linalg.SetSparseShare(-1)) // no row is sparse
			benchApply(b, mp, x)
		})
	}
}

// benchApply times mp.Apply on x, counting the dense GEMM's flops.
func benchApply(b *testing.B, mp *Map, x blas32.General) {
	dst := linalg.NewGeneral32(x.Rows, mp.p.M)
	mp.Apply(dst, x)
	b.ResetTimer()
	cpu := flopmeter.Start()
	for i := 0; i < b.N; i++ {
		mp.Apply(dst, x)
	}
	flopmeter.Report(b, mapFlops(x.Rows, x.Cols, mp.p.M, mp.p.Q), cpu)
}
