package maxout

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// mixedRows has rows of every kind a batch can hold, interleaved: mostly
// zeros (the sparse product takes them), dense, all zeros, and rows just
// under and just over the sparse share.
func mixedRows(n, d int, seed uint64) blas32.General {
	x := randomRows(n, d, seed)
	rng := features.NewRand(seed, 10)
	for i := 0; i < n; i++ {
		row := linalg.Row32(x, i)
		keep := []float64{0.1, 1, 0, 1.0 / 3, 1.0/3 + 0.05, 0.2}[i%6]
		for j := range row {
			if rng.Float64() >= keep {
				row[j] = 0
			}
		}
	}
	return x
}

// The map takes its sparse rows through the sparse product and the rest
// through the GEMM: every row's features match the naive product, in
// batches that straddle the row chunk and the unit block; each sparse row
// gives the same bits alone as in any batch; and the codes name the
// candidate the features took.
func TestSparseRowsMatchNaive(t *testing.T) {
	p := Params{M: unitBlock + 37, Q: 3}
	const d = 40
	x := mixedRows(rowChunk+5, d, 3)
	mp, err := New(d, p, 42)
	if err != nil {
		t.Fatal(err)
	}
	sparse := 0
	for i := 0; i < x.Rows; i++ {
		if linalg.IsSparseRow(linalg.Row32(x, i)) {
			sparse++
		}
	}
	if sparse == 0 || sparse == x.Rows {
		t.Fatalf("%d of %d rows sparse: the batch does not mix the two products", sparse, x.Rows)
	}
	got := linalg.NewGeneral32(x.Rows, p.M)
	mp.Apply(got, x)
	want := naive(x, p, 42)
	for i := range want.Data {
		if diff := math.Abs(float64(got.Data[i] - want.Data[i])); diff > 1e-5 {
			t.Fatalf("row %d unit %d: %v, naive %v", i/p.M, i%p.M, got.Data[i], want.Data[i])
		}
	}
	one := linalg.NewGeneral32(1, p.M)
	for i := 0; i < x.Rows; i += 97 {
		if !linalg.IsSparseRow(linalg.Row32(x, i)) {
			continue
		}
		mp.Apply(one, linalg.Rows32(x, i, i+1))
		for l, v := range one.Data {
			if math.Float32bits(v) != math.Float32bits(got.Data[i*p.M+l]) {
				t.Fatalf("row %d unit %d: %v alone, %v in the batch", i, l, v, got.Data[i*p.M+l])
			}
		}
	}
	codes := mp.Codes(x)
	w := make([]float32, p.M*p.Q*d)
	features.FillNormal32(features.NewRand(42, 0), w)
	for i := 0; i < x.Rows; i += 13 {
		for l := 0; l < p.M; l += 7 {
			j := int(codes[i*p.M+l])
			var s float64
			for k, v := range w[(l*p.Q+j)*d : (l*p.Q+j+1)*d] {
				s += float64(v) * float64(x.Data[i*d+k])
			}
			if diff := math.Abs(float64(got.Data[i*p.M+l]) - s*float64(mp.scale)); diff > 1e-5 {
				t.Fatalf("row %d unit %d: code %d gives %v, the feature is %v", i, l, j, s*float64(mp.scale), got.Data[i*p.M+l])
			}
		}
	}
}
