package datasets

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// completeName is the file that marks a cache folder as fully built; it
// holds the stamp (format version and options) the folder was built with.
const completeName = ".complete"

// buildOnce fills the cache folder dir by calling build, unless a build
// with the same stamp finished there before. A stamp is written only after
// build succeeded, so a folder left half-built by an error or a killed
// process has no stamp (or another one) and is built again over whatever
// it holds. reuse, when not nil, may still refuse a stamped folder (say, a
// manifest someone edited) by returning false; the folder is then rebuilt.
// The old stamp is removed before a rebuild starts, so a rebuild that
// stops half-way is not taken for complete the next time.
//
// Two processes building the same folder at once are not coordinated:
// callers share a folder only through runs one after the other.
func buildOnce(dir, stamp string, reuse func() bool, build func() error) error {
	mark := filepath.Join(dir, completeName)
	if b, err := os.ReadFile(mark); err == nil && string(b) == stamp && (reuse == nil || reuse()) {
		return nil
	}
	if err := os.Remove(mark); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := build(); err != nil {
		return err
	}
	return os.WriteFile(mark, []byte(stamp), 0o644)
}
