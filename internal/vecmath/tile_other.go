//go:build !amd64 || purego

package vecmath

// TileKernel is false where there is no tile kernel: its callers use the
// BLAS.
var TileKernel = false

// GemmTile12x32 is not in this build (TileKernel is false).
func GemmTile12x32(k int, a, b, c *float32) { panic("vecmath: no tile kernel in this build") }
