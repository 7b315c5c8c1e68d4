//go:build !amd64 || purego

package vecmath

var useAVX = false

func maxScaleAVX(out, p *float32, n, stride, q int, scale float32) {
	panic("vecmath: no assembly kernels in this build")
}

func cosAffineAVX(v, b *float32, n int, scale float64) {
	panic("vecmath: no assembly kernels in this build")
}
