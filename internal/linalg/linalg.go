package linalg

import (
	"errors"
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rfstream/rfstream/internal/parallel"
)

// NewGeneral32 returns a zeroed r×c row-major float32 matrix.
func NewGeneral32(r, c int) blas32.General {
	return blas32.General{Rows: r, Cols: c, Stride: c, Data: make([]float32, r*c)}
}

// NewGeneral64 returns a zeroed r×c row-major float64 matrix.
func NewGeneral64(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// Rows32 returns rows [i, j) of a as a view sharing its storage.
func Rows32(a blas32.General, i, j int) blas32.General {
	if i < 0 || j > a.Rows || i > j {
		panic(fmt.Sprintf("linalg: rows [%d,%d) out of range for %d rows", i, j, a.Rows))
	}
	if i == j {
		return blas32.General{Rows: 0, Cols: a.Cols, Stride: a.Stride}
	}
	return blas32.General{Rows: j - i, Cols: a.Cols, Stride: a.Stride, Data: a.Data[i*a.Stride : (j-1)*a.Stride+a.Cols]}
}

// Row32 returns row i of a.
func Row32(a blas32.General, i int) []float32 {
	return a.Data[i*a.Stride : i*a.Stride+a.Cols]
}

// MulABt32 computes dst = a·bᵀ (dst n×k, a n×d, b k×d): the projection of
// every input row onto every stored direction in one GEMM.
func MulABt32(dst, a, b blas32.General) {
	if a.Cols != b.Cols || dst.Rows != a.Rows || dst.Cols != b.Rows {
		panic(fmt.Sprintf("linalg: MulABt32 shapes %dx%d · (%dx%d)ᵀ → %dx%d", a.Rows, a.Cols, b.Rows, b.Cols, dst.Rows, dst.Cols))
	}
	if a.Rows == 0 || b.Rows == 0 {
		return
	}
	blas32.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, dst)
}

// MirrorUpperToLower copies the strict upper triangle of the n×n row-major
// matrix g onto its strict lower triangle, in tiles so that both the rows
// read and the columns written stay in cache (SYRK fills one triangle).
func MirrorUpperToLower(g []float64, n int) {
	const tile = 64
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := 0; j0 <= i0; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := j0; j < min(j0+tile, i); j++ {
					g[i*n+j] = g[j*n+i]
				}
			}
		}
	}
}

// ErrNotPositiveDefinite is returned when a Cholesky factorisation fails.
var ErrNotPositiveDefinite = errors.New("linalg: matrix is not positive definite")

// CholeskySolve solves a·x = b in place for symmetric positive definite a
// (only its upper triangle is read, and it is overwritten by the factor);
// b (n×k) is overwritten by x. It calls LAPACK's potrf/potrs directly: the
// condition estimate that mat.Cholesky adds costs as much as the solve at the
// sizes we use and tells us nothing the regulariser does not.
func CholeskySolve(a, b blas64.General) error {
	if a.Rows != a.Cols || b.Rows != a.Rows {
		return fmt.Errorf("linalg: CholeskySolve shapes %dx%d, %dx%d", a.Rows, a.Cols, b.Rows, b.Cols)
	}
	t := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: a.Rows, Stride: a.Stride, Data: a.Data}
	sym := blas64.Symmetric{Uplo: blas.Upper, N: a.Rows, Stride: a.Stride, Data: a.Data}
	if _, ok := lapack64.Potrf(sym); !ok {
		return ErrNotPositiveDefinite
	}
	lapack64.Potrs(t, b)
	return nil
}

// ParallelRows splits the rows [0, n) into one contiguous range per CPU and
// calls f on each range concurrently, giving each at least minRows rows so
// small batches are not split into goroutines that cost more than they
// save. It returns when every call has.
func ParallelRows(n, minRows int, f func(r0, r1 int)) {
	workers := min(parallel.Cores(), max(1, n/max(1, minRows)))
	if workers <= 1 {
		f(0, n)
		return
	}
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for r0 := 0; r0 < n; r0 += per {
		wg.Add(1)
		go func(r0, r1 int) {
			defer wg.Done()
			f(r0, r1)
		}(r0, min(r0+per, n))
	}
	wg.Wait()
}

// AppendRows32 returns a new matrix holding the rows of a followed by the
// given rows of extra, in that order.
func AppendRows32(a, extra blas32.General, rows []int) blas32.General {
	out := NewGeneral32(a.Rows+len(rows), a.Cols)
	for i := 0; i < a.Rows; i++ {
		copy(Row32(out, i), Row32(a, i))
	}
	for k, r := range rows {
		copy(Row32(out, a.Rows+k), Row32(extra, r))
	}
	return out
}
