//go:build race

package main

// raceDetector reports whether the tests run under the race detector,
// where an attack this test process sends itself costs it several times
// its CPU.
const raceDetector = true
