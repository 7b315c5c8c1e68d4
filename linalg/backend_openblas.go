//go:build cgo && !purego

package linalg

// netlib declares no link flags of its own; OpenBLAS (Debian's
// libopenblas-dev) provides the cblas_* symbols it calls. LAPACKE is
// deliberately not linked: it would pull in a second BLAS.

// #cgo LDFLAGS: -lopenblas
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
