// Package cachedir names the data cache: the one folder where rfstream keeps
// what it fetches, trains or draws, so every working directory finds it.
// It is a leaf so the core packages can find the cache without importing
// the packages that fill it.
package cachedir

import (
	"os"
	"path/filepath"
)

// Dir is $RFSTREAM_DATA, else rfstream in the user's cache directory
// (~/.cache/rfstream on Linux). Only where the system names no cache
// directory (no $HOME) does it fall back to ./data.
func Dir() string {
	if d := os.Getenv("RFSTREAM_DATA"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "rfstream")
	}
	return "data"
}
