package vecmath

import "fmt"

// CSR holds the rows of a matrix by their nonzero values (compressed
// sparse rows), for products with a dense matrix that skip the zeros: an
// MNIST image is four-fifths zeros, so its product with a map's
// projections needs a fifth of a dense GEMM's multiplications.
type CSR struct {
	cols  int
	start []int // row i's nonzeros are idx/val[start[i]:start[i+1]]
	idx   []int32
	val   []float32
}

// Reset empties s for rows of cols values, keeping its storage.
func (s *CSR) Reset(cols int) {
	s.cols = cols
	s.start = append(s.start[:0], 0)
	s.idx, s.val = s.idx[:0], s.val[:0]
}

// Rows is the number of rows appended since Reset.
func (s *CSR) Rows() int { return max(len(s.start)-1, 0) }

// Append adds a row of Reset's length.
func (s *CSR) Append(row []float32) {
	if len(row) != s.cols || len(s.start) == 0 {
		panic(fmt.Sprintf("vecmath: CSR of %d columns given a row of %d", s.cols, len(row)))
	}
	for j, v := range row {
		if v != 0 {
			s.idx = append(s.idx, int32(j))
			s.val = append(s.val, v)
		}
	}
	s.start = append(s.start, len(s.idx))
}

// csrTile is how many columns of w each pass over the rows covers: 64
// columns of a 784-row w are 200 KB, which stay in a core's L2 cache while
// every row reads its rows of them.
const csrTile = 64

// Mul sets dst[i·dstStride + c] = Σ_j s[i][j]·w[j·wStride + c] for every row
// i of s and every c < n. Each sum runs over the row's nonzeros in order,
// every product rounded to float32 before it is added, in the Go loop and
// the assembly kernel alike, so the two agree to the bit (a NaN's sign
// aside: which of two NaNs a sum keeps follows its operands' order, which
// the Go compiler chooses), and a row's values do not depend on the other
// rows.
func (s *CSR) Mul(dst []float32, dstStride int, w []float32, wStride, n int) {
	s.MulRows(0, s.Rows(), dst, dstStride, nil, w, wStride, n)
}

// MulRows is Mul for rows [r0, r1) of s alone, so that callers can share
// the rows out between goroutines; row i's products go to row at[i] of
// dst (to row i when at is nil).
func (s *CSR) MulRows(r0, r1 int, dst []float32, dstStride int, at []int, w []float32, wStride, n int) {
	rows := s.Rows()
	if r0 < 0 || r1 > rows || r0 > r1 || (at != nil && len(at) != rows) {
		panic(fmt.Sprintf("vecmath: CSR.MulRows of rows [%d, %d) of %d (%d destinations)", r0, r1, rows, len(at)))
	}
	if r0 == r1 || n == 0 {
		return
	}
	last := r1 - 1 // the last row of dst written
	if at != nil {
		last = 0
		for _, d := range at[r0:r1] {
			if d < 0 {
				last = -1
				break
			}
			last = max(last, d)
		}
	}
	if n > wStride || (s.cols-1)*wStride+n > len(w) || n > dstStride || last < 0 || last*dstStride+n > len(dst) {
		panic(fmt.Sprintf("vecmath: CSR.Mul of %d rows × %d columns by %d columns (w of %d floats, stride %d; dst of %d, stride %d, last row %d)",
			rows, s.cols, n, len(w), wStride, len(dst), dstStride, last))
	}
	for c0 := 0; c0 < n; c0 += csrTile {
		c1 := min(c0+csrTile, n)
		for i := r0; i < r1; i++ {
			d := i
			if at != nil {
				d = at[i]
			}
			a, b := s.start[i], s.start[i+1]
			sparseRowDots(dst[d*dstStride+c0:d*dstStride+c1], w[c0:], wStride, s.idx[a:b], s.val[a:b])
		}
	}
}

// sparseRowDots sets out[c] = Σ_k val[k]·w[idx[k]·stride + c] for every
// c < len(out); the caller has checked the indices.
func sparseRowDots(out, w []float32, stride int, idx []int32, val []float32) {
	n := len(out)
	done := 0
	if useAVX && n >= 8 && len(idx) > 0 {
		done = n &^ 7
		sparseRowDotsAVX(&out[0], &w[0], stride, &idx[0], &val[0], len(idx), done)
	}
	for c := done; c < n; c++ {
		var acc float32
		for k, p := range idx {
			acc += float32(val[k] * w[int(p)*stride+c])
		}
		out[c] = acc
	}
}
