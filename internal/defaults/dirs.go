package defaults

import (
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream/internal/cachedir"
)

// DataDir is the cache for fetched data and default models: $RFSTREAM_DATA,
// else rfstream in the user's cache directory (~/.cache/rfstream on Linux),
// so that every working directory finds the same models. The Makefile sets
// $RFSTREAM_DATA to the checkout's git-ignored data/ for its targets. Only
// where the system names no cache directory (no $HOME) does it fall back to
// ./data.
func DataDir() string { return cachedir.Dir() }

// fsddInCheckout is where a checkout finds FSDD's recordings, relative to
// the checkout's root: a sibling folder shared by several checkouts.
var fsddInCheckout = filepath.Join("..", "shared", "fsdd", "recordings")

// FSDDDir is where the Free Spoken Digit Dataset recordings live:
// $RFSTREAM_FSDD; else ../shared/fsdd/recordings from the working
// directory (right in a checkout's root); else the same beside the
// checkout whose bin/ holds this executable (make build's bin/rfstream run
// from elsewhere). When none exists it returns the first, for the error
// to name.
func FSDDDir() string { return sharedDir("RFSTREAM_FSDD", fsddInCheckout) }

// voicesInCheckout is where the real voices folder is looked for (see
// ../shared/voices/README.md).
var voicesInCheckout = filepath.Join("..", "shared", "voices")

// RealVoicesDir is where the real recorded voices live (datasets.RealVoices):
// $RFSTREAM_VOICES; else ../shared/voices, looked for as FSDDDir looks.
func RealVoicesDir() string { return sharedDir("RFSTREAM_VOICES", voicesInCheckout) }

// sharedDir is the folder the environment variable env names; else
// inCheckout from the working directory; else the same beside the checkout
// whose bin/ holds this executable; else inCheckout, for the error to name.
func sharedDir(env, inCheckout string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	if isDir(inCheckout) {
		return inCheckout
	}
	if root := executableCheckout(); root != "" {
		if d := filepath.Join(root, inCheckout); isDir(d) {
			return d
		}
	}
	return inCheckout
}

// executableCheckout is the checkout this executable was built into, when
// it lives in a checkout's bin/, else "".
var executableCheckout = func() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	return checkoutOf(self)
}

// checkoutOf is the checkout whose bin/ holds the executable exe (beside
// go.mod), following symbolic links, else "".
func checkoutOf(exe string) string {
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	bin := filepath.Dir(exe)
	if filepath.Base(bin) != "bin" {
		return ""
	}
	root := filepath.Dir(bin)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return ""
	}
	return root
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
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

// PhoneVoicesDir is where the flite and festival phone corpora are built
// (rfstream data phones).
func PhoneVoicesDir() string { return filepath.Join(DataDir(), "phone-voices") }

// VoicesDir is where the synthesisers' digit corpora are built (rfstream
// data voices).
func VoicesDir() string { return filepath.Join(DataDir(), "voices") }

// HedgewarsVoicesDir is where hedgewars-data's voice packs are fetched to
// (datasets.FetchHedgewarsVoices): real non-digit phrases for a filler.
func HedgewarsVoicesDir() string { return filepath.Join(DataDir(), "hedgewars-voices") }

// TaughtVoicesDir is the voice folder `rfstream enroll` teaches voices in
// when given no --voices, and where recognize and stream --voice look for
// them: one folder per model inside.
func TaughtVoicesDir() string { return filepath.Join(DataDir(), "taught-voices") }
