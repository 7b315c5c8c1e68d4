// Package linalg selects the BLAS that gonum uses and holds the few dense
// kernels the feature maps and classifiers share.
//
// With cgo (the default build) gonum's blas64 and blas32 are routed to the
// system OpenBLAS through gonum.org/v1/netlib; build with -tags purego (or
// CGO_ENABLED=0) for gonum's pure-Go kernels. Both builds pass the same tests;
// the OpenBLAS one is roughly ten times faster on the GEMM-bound stages.
// Thread count follows OPENBLAS_NUM_THREADS.
//
// Importing this package is what switches the backend, so every package that
// does heavy linear algebra imports it, even if only for Backend.
package linalg
