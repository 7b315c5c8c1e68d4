package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

func randGeneral(r *rand.Rand, rows, cols int) blas32.General {
	g := NewGeneral32(rows, cols)
	for i := range g.Data {
		g.Data[i] = float32(r.NormFloat64())
	}
	return g
}

// A packed product is the BLAS's to float32 rounding, for both operand
// layouts and for shapes that fill no tile or panel evenly, a strided a
// and dst included.
func TestPackedMatchesGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][3]int{{1, 1, 1}, {5, 3, 7}, {13, 429, 91}, {200, 429, 2048}, {12, 64, 32}, {397, 17, 33}} {
		n, k, m := sh[0], sh[1], sh[2]
		for _, trans := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%dx%d/trans=%v", n, k, m, trans), func(t *testing.T) {
				wide := randGeneral(r, n, k+3)
				a := blas32.General{Rows: n, Cols: k, Stride: k + 3, Data: wide.Data}
				var p *Packed
				var b blas32.General
				tb := blas.NoTrans
				if trans {
					b, tb = randGeneral(r, m, k), blas.Trans
					p = PackBt(b)
				} else {
					b = randGeneral(r, k, m)
					p = PackB(b)
				}
				want := NewGeneral32(n, m)
				blas32.Gemm(blas.NoTrans, tb, 1, a, b, 0, want)
				dst := NewGeneral32(n, m+5)
				dst.Cols = m
				p.Mul(dst, a)
				for i := 0; i < n; i++ {
					for j := 0; j < m; j++ {
						got, w := dst.Data[i*dst.Stride+j], want.Data[i*m+j]
						// k products of unit normals: rounding grows as √k.
						if d := math.Abs(float64(got - w)); d > 1e-5*math.Sqrt(float64(k))*(1+math.Abs(float64(w))) {
							t.Fatalf("(%d,%d): %v, BLAS %v", i, j, got, w)
						}
					}
					for j := m; j < m+5; j++ {
						if dst.Data[i*dst.Stride+j] != 0 {
							t.Fatalf("row %d: wrote past the product's columns", i)
						}
					}
				}
			})
		}
	}
}

// A row's product does not depend on the rows it was taken with: one row
// alone gives the bits it gets in a batch of hundreds (a live stream's
// frames are scored in batches of any size).
func TestPackedRowsIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a, b := randGeneral(r, 400, 429), randGeneral(r, 2048, 429)
	p := PackBt(b)
	all := NewGeneral32(400, 2048)
	p.Mul(all, a)
	one := NewGeneral32(1, 2048)
	for _, i := range []int{0, 11, 12, 191, 192, 399} {
		p.Mul(one, Rows32(a, i, i+1))
		for j, v := range one.Data {
			if v != all.Data[i*2048+j] {
				t.Fatalf("row %d column %d: %v alone, %v in the batch", i, j, v, all.Data[i*2048+j])
			}
		}
	}
}

// BenchmarkPacked times the connected model's two products on a 20 s
// utterance (2000 frames of 429 values): the map's projections (m·q = 8000)
// and the read-out (2000 → 91), packed and through the BLAS, in GFLOP/s of
// CPU time.
func BenchmarkPacked(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{2000, 429, 8000}, {2000, 2000, 91}} {
		n, k, m := sh[0], sh[1], sh[2]
		a, w := randGeneral(r, n, k), randGeneral(r, m, k)
		dst := NewGeneral32(n, m)
		flops := 2 * float64(n) * float64(k) * float64(m)
		for _, kernel := range []bool{true, false} {
			b.Run(fmt.Sprintf("n=%d/k=%d/m=%d/packed=%v", n, k, m, kernel), func(b *testing.B) {
				was := packedKernel
				packedKernel = kernel && was
				defer func() { packedKernel = was }()
				p := PackBt(w)
				for b.Loop() {
					p.Mul(dst, a)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
