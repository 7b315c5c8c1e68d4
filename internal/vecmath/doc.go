// Package vecmath holds the pointwise loops that follow a feature map's GEMM:
// the max over a maxout unit's q candidates and the Fourier map's cosine.
// On amd64 CPUs with AVX they run as assembly kernels that perform the very
// same floating-point operations in the same order as the Go loops, so the
// results are bit-identical; other CPUs and `-tags purego` builds run the Go
// loops.
package vecmath
