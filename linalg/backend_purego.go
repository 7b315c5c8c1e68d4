//go:build !cgo || purego

package linalg

// Backend names the BLAS in use.
const Backend = "gonum"
