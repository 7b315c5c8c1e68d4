package linalg

import "testing"

// Mirroring leaves the upper triangle and diagonal as they were and makes
// the matrix symmetric, across tile edges (n is not a multiple of 64).
func TestMirrorUpperToLower(t *testing.T) {
	const n = 130
	g := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j >= i {
				g[i*n+j] = float64(1000*i + j)
			} else {
				g[i*n+j] = -1 // lower triangle: garbage to overwrite
			}
		}
	}
	MirrorUpperToLower(g, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a, b := min(i, j), max(i, j)
			if want := float64(1000*a + b); g[i*n+j] != want {
				t.Fatalf("g[%d][%d] = %v, want %v", i, j, g[i*n+j], want)
			}
		}
	}
}
