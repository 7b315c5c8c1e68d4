package rfstream_test

import (
	"os"
	"testing"
)

// TestMain gives the tests and Examples an empty data cache of their own,
// so DefaultModel is the shipped model whatever the machine's cache holds.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rfstream-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("RFSTREAM_DATA", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
