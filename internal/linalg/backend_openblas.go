//go:build cgo && openblas && !purego

package linalg

// netlib declares no link flags of its own; OpenBLAS (Debian's
// libopenblas-dev) provides the cblas_* symbols it calls. LAPACKE is
// deliberately not linked: it would pull in a second BLAS.

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int num_threads);
// int openblas_get_num_threads(void);
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

func init() {
	blas64.Use(netlib.Implementation{})
	blas32.Use(netlib.Implementation{})
}

// Backend names the BLAS in use.
const Backend = "openblas"

// SetThreads sets how many threads the BLAS uses for one call, from now on
// and for the whole process (OpenBLAS starts with OPENBLAS_NUM_THREADS, or
// one per core). Small products, such as a live stream's word vectors, are
// answered sooner with one thread: a second one mostly spins, waiting for
// work, on a core the rest of the process needs.
func SetThreads(n int) {
	if n >= 1 {
		C.openblas_set_num_threads(C.int(n))
	}
}

// Threads is how many threads the BLAS uses for one call.
func Threads() int { return int(C.openblas_get_num_threads()) }
