// Package linalg selects the BLAS that gonum uses and holds the few dense
// kernels the feature maps and classifiers share.
//
// By default gonum's own pure-Go kernels run, so that `go install` builds
// anywhere Go does, with or without cgo. With -tags openblas and cgo (make
// build adds the tag when OpenBLAS links, mk/blas.sh) gonum's blas64 and
// blas32 are routed to the system OpenBLAS through gonum.org/v1/netlib;
// -tags purego forces the pure-Go kernels even beside openblas. Both
// backends pass the same tests against the same golden numbers; OpenBLAS is
// several times faster on the GEMM-bound stages. Its thread count follows
// OPENBLAS_NUM_THREADS.
//
// Importing this package is what switches the backend, so every package that
// does heavy linear algebra imports it, even if only for Backend.
package linalg
