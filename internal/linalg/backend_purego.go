//go:build !cgo || !openblas || purego

package linalg

// Backend names the BLAS in use.
const Backend = "gonum"

// SetThreads does nothing: gonum's own BLAS takes no thread count.
func SetThreads(n int) {}

// Threads is 1 for gonum's own BLAS (its Level 3 routines may still use
// goroutines).
func Threads() int { return 1 }
