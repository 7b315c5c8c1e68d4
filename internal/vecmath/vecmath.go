package vecmath

import "fmt"

// MaxScale sets out[u] = scale · max_j p[j·len(out)+u] over j < q: the q
// candidates of unit u lie len(out) floats apart. Ties and NaNs keep the
// earlier candidate (a later one wins only when strictly larger).
func MaxScale(out, p []float32, q int, scale float32) {
	n := len(out)
	if q < 1 || len(p) < q*n {
		panic(fmt.Sprintf("vecmath: MaxScale of %d candidates of %d units from %d values", q, n, len(p)))
	}
	done := 0
	if useAVX && n >= 8 {
		done = n &^ 7
		maxScaleAVX(&out[0], &p[0], done, n, q, scale)
	}
	for u := done; u < n; u++ {
		best := p[u]
		for j := 1; j < q; j++ {
			if v := p[j*n+u]; v > best {
				best = v
			}
		}
		out[u] = best * scale
	}
}

// CosAffine sets v[k] = float32(scale · cos(float64(v[k]) + float64(b[k]))),
// the Fourier map's pointwise step, with the cosine of CosReduced.
func CosAffine(v, b []float32, scale float64) {
	n := len(v)
	if len(b) < n {
		panic(fmt.Sprintf("vecmath: CosAffine of %d values with %d phases", n, len(b)))
	}
	done := 0
	if useAVX && n >= 4 {
		done = n &^ 3
		cosAffineAVX(&v[0], &b[0], done, scale)
	}
	for k := done; k < n; k++ {
		v[k] = float32(scale * CosReduced(float64(v[k])+float64(b[k])))
	}
}

// Accelerated reports whether the assembly kernels are in use.
func Accelerated() bool { return useAVX }
