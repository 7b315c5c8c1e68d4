//go:build amd64 && !purego

package vecmath

import "golang.org/x/sys/cpu"

// useAVX selects the assembly kernels; tests switch it off to compare them
// with the Go loops.
var useAVX = cpu.X86.HasAVX

// maxScaleAVX is MaxScale for the first n units (n a multiple of 8) of
// units stride floats apart.
//
//go:noescape
func maxScaleAVX(out, p *float32, n, stride, q int, scale float32)

// cosAffineAVX is CosAffine for the first n values (n a multiple of 4).
//
//go:noescape
func cosAffineAVX(v, b *float32, n int, scale float64)

// sparseRowDotsAVX is sparseRowDots for the first n columns (n a multiple
// of 8) and nnz ≥ 1 nonzeros.
//
//go:noescape
func sparseRowDotsAVX(out, w *float32, stride int, idx *int32, val *float32, nnz, n int)
