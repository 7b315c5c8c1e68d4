package maxout

import (
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/vecmath"
	"github.com/rfstream/rfstream/linalg"
)

// sparseShare is the largest share of nonzero values at which a row is
// multiplied by its nonzeros alone rather than in the GEMM. The sparse
// product does a nonzero's work at about a third of the GEMM's speed per
// multiplication (its rows of w are read from cache, not blocked into
// registers), so it pays below about a third: on rows of random patterns
// it was faster at densities 0.2 and 0.3 and slower at 0.4 (4096 rows,
// m = 1000, q = 4). MNIST's images are about a fifth nonzero.
var sparseShare = 1.0 / 3

// sparseChunk is a row chunk split into its sparse rows, in compressed
// form, and its dense rows, gathered for the GEMM.
type sparseChunk struct {
	csr   vecmath.CSR
	order []int
	dense []float32
}

// isSparse reports whether a row has few enough nonzeros for the sparse
// product.
func isSparse(row []float32) bool {
	nz := 0
	for _, v := range row {
		if v != 0 {
			nz++
		}
	}
	return float64(nz) <= sparseShare*float64(len(row))
}

// hasSparseRow reports whether any row of x is sparse.
func hasSparseRow(x blas32.General) bool {
	for i := 0; i < x.Rows; i++ {
		if isSparse(linalg.Row32(x, i)) {
			return true
		}
	}
	return false
}

// split puts x's sparse rows into s.csr and returns the order of the rows
// (sparse ones first, each group in x's order) and the dense rows as a
// matrix (x itself when every row is dense).
func (s *sparseChunk) split(x blas32.General) ([]int, blas32.General) {
	s.csr.Reset(x.Cols)
	s.order = s.order[:0]
	for i := 0; i < x.Rows; i++ {
		if row := linalg.Row32(x, i); isSparse(row) {
			s.csr.Append(row)
			s.order = append(s.order, i)
		}
	}
	if len(s.order) == 0 {
		return s.order, x
	}
	ns := len(s.order)
	dense := linalg.NewGeneral32(0, x.Cols)
	s.dense = s.dense[:0]
	for i, k := 0, 0; i < x.Rows; i++ {
		if k < ns && s.order[k] == i {
			k++
			continue
		}
		s.dense = append(s.dense, linalg.Row32(x, i)...)
		s.order = append(s.order, i)
	}
	dense.Rows, dense.Data = len(s.order)-ns, s.dense
	return s.order, dense
}

func (mp *Map) getSparse() *sparseChunk {
	if s, ok := mp.sparsePl.Get().(*sparseChunk); ok {
		return s
	}
	return new(sparseChunk)
}

func (mp *Map) putSparse(s *sparseChunk) { mp.sparsePl.Put(s) }

// transposed returns w with each block of units transposed: block b0 (bs
// units) starts at b0·q·in and holds in rows of its q·bs projections'
// coefficients, the rows a sparse input's nonzeros pick.
func (mp *Map) transposed() []float32 {
	mp.wtOnce.Do(func() {
		m, q, d := mp.p.M, mp.p.Q, mp.in
		mp.wt = make([]float32, len(mp.w.Data))
		for b0 := 0; b0 < m; b0 += unitBlock {
			width := q * min(unitBlock, m-b0)
			blk := mp.wt[b0*q*d : b0*q*d+width*d]
			for c := 0; c < width; c++ {
				row := linalg.Row32(mp.w, b0*q+c)
				for j, v := range row {
					blk[j*width+c] = v
				}
			}
		}
	})
	return mp.wt
}

// MostlySparse reports whether most rows of x (of its first thousand) are
// sparse enough for the map to multiply them by their nonzeros alone
// rather than in the GEMM, so that the map's time goes to Go code, not to
// the BLAS.
func MostlySparse(x blas32.General) bool {
	n := min(x.Rows, 1000)
	sparse := 0
	for i := 0; i < n; i++ {
		if isSparse(linalg.Row32(x, i)) {
			sparse++
		}
	}
	return n > 0 && 2*sparse > n
}
