//go:build !amd64 || purego

package linalg

// packedKernel is false where there is no tile kernel: Packed products go
// to the BLAS.
var packedKernel = false

func gemmTile12x32(k int, a, b, c *float32) { panic("linalg: no tile kernel in this build") }
