//go:build amd64 && !purego

package vecmath

import "golang.org/x/sys/cpu"

// TileKernel tells whether GemmTile12x32 runs in this build on this CPU:
// it needs AVX-512F. (It lives here, not beside its caller linalg.Packed,
// because a package that uses cgo, as linalg's OpenBLAS backend does,
// cannot hold Go assembly.)
var TileKernel = cpu.X86.HasAVX512F

// GemmTile12x32 sets the 12×32 row-major tile c to a·b over k ≥ 1 steps,
// a packed [k][12] and b [k][32]; each element's k products are summed in
// order, each multiply-add fused.
//
//go:noescape
func GemmTile12x32(k int, a, b, c *float32)
