package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// DataDir is the git-ignored cache for fetched data and default models:
// $RFSTREAM_DATA, or ./data.
func DataDir() string {
	if d := os.Getenv("RFSTREAM_DATA"); d != "" {
		return d
	}
	return "data"
}

// FSDDDir is where the Free Spoken Digit Dataset recordings live:
// $RFSTREAM_FSDD, or ../shared/fsdd/recordings beside this checkout.
func FSDDDir() string {
	if d := os.Getenv("RFSTREAM_FSDD"); d != "" {
		return d
	}
	return strings.Join([]string{"..", "shared", "fsdd", "recordings"}, string(os.PathSeparator))
}

// ModelPath is where the data cache keeps the default model named file.
func ModelPath(file string) string { return filepath.Join(DataDir(), "models", file) }

// ConnectedModel is the data cache's connected-digit model: trained on
// first use by the product, and by eval connected unless told otherwise.
func ConnectedModel() string { return ModelPath("connected.rfm") }

// SynthDigitsDir is where synthetic digit voices are cached.
func SynthDigitsDir() string { return filepath.Join(DataDir(), "synth-digits") }

// PhonesDir is where the espeak-ng phone corpus is built.
func PhonesDir() string { return filepath.Join(DataDir(), "phones") }
