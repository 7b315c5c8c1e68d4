package linalg

import (
	"sync"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/vecmath"
)

// sparseShare is the largest share of nonzero values at which a row is
// multiplied by its nonzeros alone rather than in the GEMM. The sparse
// product does a nonzero's work at about a third of the GEMM's speed per
// multiplication (its rows of w come from cache, not blocked into
// registers), so it pays below about a third: on rows of random patterns
// it was faster at densities 0.2 and 0.3 and slower at 0.4 (a maxout map,
// 4096 rows, m = 1000, q = 4). MNIST's images are about a fifth nonzero.
var sparseShare = 1.0 / 3

// SetSparseShare sets the share of nonzeros at or below which rows are
// multiplied by their nonzeros (negative: never, 1: always) and returns
// the previous share. For benchmarks and tests: it must not change while
// products run.
func SetSparseShare(share float64) float64 {
	old := sparseShare
	sparseShare = share
	return old
}

// IsSparseRow reports whether a row has few enough nonzeros for the sparse
// product.
func IsSparseRow(row []float32) bool {
	nz := 0
	for _, v := range row {
		if v != 0 {
			nz++
		}
	}
	return float64(nz) <= sparseShare*float64(len(row))
}

// MostlySparse reports whether most rows of x (of its first thousand) are
// sparse, so that products with x run mostly in Go code, not in the BLAS.
func MostlySparse(x blas32.General) bool {
	n := min(x.Rows, 1000)
	sparse := 0
	for i := 0; i < n; i++ {
		if IsSparseRow(Row32(x, i)) {
			sparse++
		}
	}
	return n > 0 && 2*sparse > n
}

// SplitRows is a batch of rows split into its sparse rows, held by their
// nonzeros, and its dense ones, gathered for a GEMM. Split once, it can be
// multiplied by any number of Projections.
type SplitRows struct {
	x                 blas32.General
	csr               vecmath.CSR
	sparseAt, denseAt []int // the rows of x each part holds
	dense             []float32
	products          []float32 // the dense rows' products, when some rows are sparse
}

// Split classifies the rows of x; s refers to x until the next Split.
func (s *SplitRows) Split(x blas32.General) {
	s.x = x
	s.csr.Reset(x.Cols)
	s.sparseAt, s.denseAt, s.dense = s.sparseAt[:0], s.denseAt[:0], s.dense[:0]
	for i := 0; i < x.Rows; i++ {
		if row := Row32(x, i); IsSparseRow(row) {
			s.csr.Append(row)
			s.sparseAt = append(s.sparseAt, i)
		} else {
			s.denseAt = append(s.denseAt, i)
		}
	}
	if len(s.sparseAt) > 0 && len(s.denseAt)*16 <= x.Rows {
		// A few dense rows among many sparse ones (0.4 % of MNIST's
		// images are over a third nonzero) cost less in the sparse product
		// than a GEMM of their own, after which the BLAS's threads would
		// spin on the cores the next sparse product needs.
		for _, i := range s.denseAt {
			s.csr.Append(Row32(x, i))
		}
		s.sparseAt = append(s.sparseAt, s.denseAt...)
		s.denseAt = s.denseAt[:0]
	}
	if len(s.sparseAt) > 0 && len(s.denseAt) > 0 {
		for _, i := range s.denseAt {
			s.dense = append(s.dense, Row32(x, i)...)
		}
	}
}

// splits keeps SplitRows' storage between batches.
var splits = sync.Pool{New: func() any { return new(SplitRows) }}

// NewSplitRows returns a SplitRows with storage kept from earlier batches;
// give it back with Release.
func NewSplitRows() *SplitRows { return splits.Get().(*SplitRows) }

// Release drops s's reference to the rows it was split from and keeps its
// storage for the next NewSplitRows; s must not be used after.
func (s *SplitRows) Release() {
	s.x = blas32.General{}
	s.csr.Reset(0)
	s.sparseAt, s.denseAt, s.dense = s.sparseAt[:0], s.denseAt[:0], s.dense[:0]
	splits.Put(s)
}

// Projections are k directions (the rows of a k×d matrix w) for the
// products x·wᵀ of a feature map, with sparse rows of x multiplied by
// their nonzeros alone. It is safe for concurrent use.
type Projections struct {
	w    blas32.General
	once sync.Once
	wt   []float32 // wᵀ (d × k), built when a sparse row first comes
	// packed is w laid out for dense rows (Packed), built when a dense
	// row first comes.
	packOnce sync.Once
	packed   *Packed
}

func (p *Projections) packedW() *Packed {
	p.packOnce.Do(func() { p.packed = PackBt(p.w) })
	return p.packed
}

// NewProjections holds w (not copied: it must not change).
func NewProjections(w blas32.General) *Projections { return &Projections{w: w} }

func (p *Projections) transposed() []float32 {
	p.once.Do(func() {
		k, d := p.w.Rows, p.w.Cols
		p.wt = make([]float32, d*k)
		for c := 0; c < k; c++ {
			for j, v := range Row32(p.w, c) {
				p.wt[j*k+c] = v
			}
		}
	})
	return p.wt
}

// MulABt sets dst = x·wᵀ for the rows x that s was split from, as MulABt32
// does: the sparse rows by their nonzeros (vecmath.CSR, on every core),
// whose values then do not depend on the other rows of the batch, the
// dense ones by one packed product (Packed; or, when they are few, by
// their nonzeros too). Through the BLAS, where the packed kernel does not
// run, a dense row's last bits depend on its batch, as in any GEMM.
func (p *Projections) MulABt(dst blas32.General, s *SplitRows) {
	x, k := s.x, p.w.Rows
	if x.Cols != p.w.Cols || dst.Rows != x.Rows || dst.Cols != k {
		MulABt32(dst, x, p.w) // panics with the shapes
		return
	}
	if len(s.sparseAt) == 0 {
		p.packedW().Mul(dst, x)
		return
	}
	// The sparse rows first: after a GEMM the BLAS's threads spin for a
	// while, waiting for more, on the cores the sparse product needs.
	wt := p.transposed()
	ParallelRows(len(s.sparseAt), 16, func(r0, r1 int) {
		s.csr.MulRows(r0, r1, dst.Data, dst.Stride, s.sparseAt, wt, k, k)
	})
	if nd := len(s.denseAt); nd > 0 {
		if cap(s.products) < nd*k {
			s.products = make([]float32, nd*k)
		}
		prod := blas32.General{Rows: nd, Cols: k, Stride: k, Data: s.products[:nd*k]}
		p.packedW().Mul(prod, blas32.General{Rows: nd, Cols: x.Cols, Stride: x.Cols, Data: s.dense})
		for n, i := range s.denseAt {
			copy(Row32(dst, i), Row32(prod, n))
		}
	}
}
