package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The sparse product is the dense one restricted to the nonzeros: the
// assembly kernel and the Go loop agree to the bit (specials, subnormals
// and signed zeros included; NaNs as NaNs), and both agree with a float64 dense product
// to within float32 rounding. Row lengths, column counts and strides are
// chosen around the kernel's 8- and 64-column steps and the 64-column tile.
func TestCSRMulMatchesTheGoLoopAndTheDenseProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 7, 8, 9, 63, 64, 65, 72, 128, 200, 513} {
		for _, density := range []float64{0, 0.05, 0.3, 1} {
			for _, special := range []bool{false, true} {
				rows, cols := 1+r.IntN(20), 1+r.IntN(60)
				wStride, dstStride := n+r.IntN(5), n+r.IntN(5)
				w := make([]float32, (cols-1)*wStride+n)
				for i := range w {
					w[i] = float32(r.NormFloat64())
					if special && r.IntN(10) == 0 {
						w[i] = specials[r.IntN(len(specials))]
					}
				}
				x := make([]float32, rows*cols)
				var s CSR
				s.Reset(cols)
				for i := 0; i < rows; i++ {
					row := x[i*cols : (i+1)*cols]
					for j := range row {
						if r.Float64() < density {
							row[j] = float32(r.NormFloat64())
							if special && r.IntN(5) == 0 {
								row[j] = specials[r.IntN(len(specials))]
							}
						}
					}
					s.Append(row)
				}
				got, want := make([]float32, (rows-1)*dstStride+n), make([]float32, (rows-1)*dstStride+n)
				for i := range got {
					got[i], want[i] = float32(r.NormFloat64()), float32(r.NormFloat64()) // overwritten
				}
				s.Mul(got, dstStride, w, wStride, n)
				withGo(func() { s.Mul(want, dstStride, w, wStride, n) })
				for i := 0; i < rows; i++ {
					for c := 0; c < n; c++ {
						g, h := got[i*dstStride+c], want[i*dstStride+c]
						// Any NaN is the same NaN: which of two NaNs a sum
						// keeps depends on its operands' order, which the Go
						// compiler chooses (it differs under -race).
						bothNaN := g != g && h != h
						if math.Float32bits(g) != math.Float32bits(h) && !bothNaN {
							t.Fatalf("n=%d density=%v special=%v row %d column %d: kernel %v (%08x), Go loop %v (%08x)",
								n, density, special, i, c, g, math.Float32bits(g), h, math.Float32bits(h))
						}
						if special {
							continue
						}
						var ref, mag float64
						for j := 0; j < cols; j++ {
							p := float64(x[i*cols+j]) * float64(w[j*wStride+c])
							ref, mag = ref+p, mag+math.Abs(p)
						}
						if math.Abs(float64(g)-ref) > 1e-6*mag {
							t.Fatalf("n=%d density=%v row %d column %d: %v, dense product %v", n, density, i, c, g, ref)
						}
					}
				}
			}
		}
	}
}

func TestCSRMulRefusesMismatchedShapes(t *testing.T) {
	var s CSR
	s.Reset(4)
	s.Append([]float32{0, 1, 0, 2})
	for name, f := range map[string]func(){
		"w too short":      func() { s.Mul(make([]float32, 10), 10, make([]float32, 3*10+9), 10, 10) },
		"n over w stride":  func() { s.Mul(make([]float32, 12), 12, make([]float32, 48), 10, 12) },
		"dst too short":    func() { s.Mul(make([]float32, 9), 10, make([]float32, 40), 10, 10) },
		"row of 3 columns": func() { s.Append([]float32{1, 2, 3}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: accepted", name)
				}
			}()
			f()
		}()
	}
}
