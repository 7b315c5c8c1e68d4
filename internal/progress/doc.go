// Package progress reports how far a long job has come: a redrawn bar with
// rate and ETA on a terminal, and plain periodic lines elsewhere, so CI logs
// carry no control characters.
package progress
