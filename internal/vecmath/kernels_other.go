//go:build !amd64 || purego

package vecmath

var useAVX = false

func maxScaleAVX(out, p *float32, n, stride, q int, scale float32) {
	panic("vecmath: no assembly kernels in this build")
}

func cosAffineAVX(v, b *float32, n int, scale float64) {
	panic("vecmath: no assembly kernels in this build")
}

func sparseRowDotsAVX(out, w *float32, stride int, idx *int32, val *float32, nnz, n int) {
	panic("vecmath: no assembly kernels in this build")
}
