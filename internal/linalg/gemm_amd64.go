//go:build amd64 && !purego

package linalg

import "golang.org/x/sys/cpu"

// packedKernel tells whether Packed products run on the AVX-512 tile
// kernel; tests switch it off to compare with the BLAS.
var packedKernel = cpu.X86.HasAVX512F

// gemmTile12x32 sets the 12×32 tile c to a·b over k ≥ 1 steps, a packed
// [k][12] and b [k][32].
//
//go:noescape
func gemmTile12x32(k int, a, b, c *float32)
