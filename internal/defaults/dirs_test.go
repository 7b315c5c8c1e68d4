package defaults

import (
	"os"
	"path/filepath"
	"testing"
)

// Without $RFSTREAM_DATA the data cache is rfstream in the user's cache
// directory, an absolute path, whatever the working directory.
func TestDataDirIsTheSameFromEveryDirectory(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("RFSTREAM_DATA", "")
	t.Chdir(t.TempDir())
	here := DataDir()
	t.Chdir(t.TempDir())
	if there := DataDir(); there != here || here != filepath.Join(cache, "rfstream") {
		t.Fatalf("data cache %q from one folder, %q from another, want %q", here, there, filepath.Join(cache, "rfstream"))
	}
	t.Setenv("RFSTREAM_DATA", "/somewhere")
	if d := DataDir(); d != "/somewhere" {
		t.Fatalf("$RFSTREAM_DATA gave %q", d)
	}
}

// FSDD is found beside the working directory (a checkout's root), else
// beside the checkout whose bin/ holds the executable; $RFSTREAM_FSDD
// overrides both.
func TestFSDDDirFromTheExecutablesCheckout(t *testing.T) {
	t.Setenv("RFSTREAM_FSDD", "")
	top := t.TempDir()
	checkout := filepath.Join(top, "rfstream")
	shared := filepath.Join(top, "shared", "fsdd", "recordings")
	for _, d := range []string{filepath.Join(checkout, "bin"), shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	saved := executableCheckout
	defer func() { executableCheckout = saved }()
	executableCheckout = func() string { return checkout }

	t.Chdir(checkout)
	if d := FSDDDir(); d != fsddInCheckout {
		t.Fatalf("in the checkout: %q", d)
	}
	t.Chdir(t.TempDir())
	if d := FSDDDir(); d != shared {
		t.Fatalf("elsewhere, with the executable in the checkout's bin/: %q, want %q", d, shared)
	}
	executableCheckout = func() string { return "" }
	if d := FSDDDir(); d != fsddInCheckout {
		t.Fatalf("elsewhere, with the executable outside a checkout: %q", d)
	}
	t.Setenv("RFSTREAM_FSDD", "/x")
	if d := FSDDDir(); d != "/x" {
		t.Fatalf("$RFSTREAM_FSDD gave %q", d)
	}
}

// The executable's checkout is the folder above its bin/, when that folder
// holds go.mod; a link to the executable elsewhere leads to it.
func TestCheckoutOfAnExecutable(t *testing.T) {
	top := t.TempDir()
	checkout := filepath.Join(top, "co")
	exe := filepath.Join(checkout, "bin", "rfstream")
	other := filepath.Join(top, "tools", "rfstream")
	for _, d := range []string{filepath.Dir(exe), filepath.Dir(other)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{exe, other} {
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := checkoutOf(exe); got != "" {
		t.Fatalf("bin/ without go.mod above it taken for a checkout: %q", got)
	}
	if err := os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := checkoutOf(exe); got != checkout {
		t.Fatalf("checkout of %s: %q, want %q", exe, got, checkout)
	}
	if got := checkoutOf(other); got != "" {
		t.Fatalf("an executable outside a bin/ taken for a checkout's: %q", got)
	}
	link := filepath.Join(top, "link-rfstream")
	if err := os.Symlink(exe, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if got := checkoutOf(link); got != checkout {
		t.Fatalf("checkout through a link: %q, want %q", got, checkout)
	}
}
