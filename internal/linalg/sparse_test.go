package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// MostlySparse asks for more than half of the rows sparse.
func TestMostlySparse(t *testing.T) {
	rows := func(sparse, n int) blas32.General {
		x := NewGeneral32(n, 30)
		for i := range x.Data {
			x.Data[i] = 1
		}
		for i := 0; i < sparse; i++ {
			clear(Row32(x, i)[3:])
		}
		return x
	}
	for _, c := range []struct {
		sparse, n int
		want      bool
	}{{4, 6, true}, {3, 6, false}, {0, 6, false}, {6, 6, true}, {0, 0, false}} {
		if got := MostlySparse(rows(c.sparse, c.n)); got != c.want {
			t.Errorf("%d sparse rows of %d: MostlySparse %v", c.sparse, c.n, got)
		}
	}
}

// Projections multiply a batch of sparse, dense and empty rows, all
// sparse rows, one dense row among many sparse ones (which the sparse
// product takes too), and all dense rows as the GEMM does (to float32 rounding),
// each row into its own place, and a sparse row gives the same bits alone
// as in any batch.
func TestProjectionsMatchTheGEMM(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const d, k = 50, 70
	w := NewGeneral32(k, d)
	for i := range w.Data {
		w.Data[i] = float32(r.NormFloat64())
	}
	p := NewProjections(w)
	batch := func(n int, keep func(i int) float64) blas32.General {
		x := NewGeneral32(n, d)
		for i := 0; i < n; i++ {
			for j := range Row32(x, i) {
				if r.Float64() < keep(i) {
					x.Data[i*d+j] = float32(r.NormFloat64())
				}
			}
		}
		return x
	}
	var s SplitRows
	for name, x := range map[string]blas32.General{
		"mixed":  batch(37, func(i int) float64 { return []float64{0.1, 0.9, 0, 0.3}[i%4] }),
		"sparse": batch(20, func(int) float64 { return 0.1 }),
		"few dense among sparse": batch(40, func(i int) float64 {
			if i == 5 {
				return 0.9
			}
			return 0.1
		}),
		"dense": batch(20, func(int) float64 { return 1 }),
	} {
		s.Split(x)
		got, want := NewGeneral32(x.Rows, k), NewGeneral32(x.Rows, k)
		p.MulABt(got, &s)
		MulABt32(want, x, w)
		for i := range got.Data {
			if diff := math.Abs(float64(got.Data[i] - want.Data[i])); diff > 1e-4 {
				t.Fatalf("%s: row %d column %d: %v, GEMM %v", name, i/k, i%k, got.Data[i], want.Data[i])
			}
		}
		one := NewGeneral32(1, k)
		for i := 0; i < x.Rows; i++ {
			if !IsSparseRow(Row32(x, i)) {
				continue
			}
			s.Split(Rows32(x, i, i+1))
			p.MulABt(one, &s)
			for c, v := range one.Data {
				if math.Float32bits(v) != math.Float32bits(got.Data[i*k+c]) {
					t.Fatalf("%s: row %d column %d: %v alone, %v in the batch", name, i, c, v, got.Data[i*k+c])
				}
			}
		}
	}
}
