package main

import (
	"testing"

	"github.com/rfstream/rfstream/internal/toymodels"
)

func writeWAV(t *testing.T, path string, x []float32) {
	t.Helper()
	if err := toymodels.WriteWAV(path, x); err != nil {
		t.Fatal(err)
	}
}

var downWord = toymodels.DownWord

// toyFSDD writes a folder named like FSDD: digit 0 is a rising glide,
// digit 1 a falling one, two speakers, takes 0-9.
func toyFSDD(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := toymodels.WriteFSDD(dir, []string{"ann", "bob"}, 10); err != nil {
		t.Fatal(err)
	}
	return dir
}

// toyFSDD3 is the toy word set spoken by three voices, enough for a
// leave-one-speaker-out inside leave-one-speaker-out.
func toyFSDD3(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := toymodels.WriteFSDD(dir, []string{"ann", "bob", "cy"}, 6); err != nil {
		t.Fatal(err)
	}
	return dir
}
