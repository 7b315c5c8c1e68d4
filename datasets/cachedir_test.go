package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// stampOf reads dir's completion stamp ("" when there is none).
func stampOf(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, completeName))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuildOnceBuildsThenReuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	builds := 0
	build := func() error {
		builds++
		if s := stampOf(t, dir); s != "" {
			t.Errorf("stamp %q present while building", s)
		}
		return os.WriteFile(filepath.Join(dir, "a.wav"), []byte("x"), 0o644)
	}
	for range 3 {
		if err := buildOnce(dir, "v1 opts\n", nil, build); err != nil {
			t.Fatal(err)
		}
	}
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}
	if s := stampOf(t, dir); s != "v1 opts\n" {
		t.Errorf("stamp %q", s)
	}
	// Other options: built again, and stamped with the new ones.
	if err := buildOnce(dir, "v1 other\n", nil, build); err != nil {
		t.Fatal(err)
	}
	if builds != 2 || stampOf(t, dir) != "v1 other\n" {
		t.Errorf("after an option change: %d builds, stamp %q", builds, stampOf(t, dir))
	}
}

func TestBuildOnceStampsOnlyAfterSuccess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	boom := errors.New("engine died")
	half := func() error {
		// What a killed or failing build leaves: some files, no stamp.
		if err := os.WriteFile(filepath.Join(dir, "0001.wav"), []byte("half"), 0o644); err != nil {
			return err
		}
		return boom
	}
	if err := buildOnce(dir, "v1\n", nil, half); !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
	if s := stampOf(t, dir); s != "" {
		t.Fatalf("a failed build left stamp %q", s)
	}
	rebuilt := false
	if err := buildOnce(dir, "v1\n", nil, func() error { rebuilt = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if !rebuilt || stampOf(t, dir) != "v1\n" {
		t.Errorf("half-built folder: rebuilt %v, stamp %q", rebuilt, stampOf(t, dir))
	}
}

func TestBuildOnceFailedRebuildDropsOldStamp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	if err := buildOnce(dir, "v1\n", nil, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The caller finds the stamped folder unusable (say, an edited
	// manifest); the rebuild then fails half-way.
	refuse := func() bool { return false }
	boom := errors.New("disk full")
	if err := buildOnce(dir, "v1\n", refuse, func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
	if s := stampOf(t, dir); s != "" {
		t.Errorf("a folder whose rebuild failed still claims to be complete (%q)", s)
	}
}

func TestBuildOnceReuseCanRefuse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	builds, accept := 0, true
	build := func() error { builds++; return nil }
	reuse := func() bool { return accept }
	for _, a := range []bool{true, true, false, true} {
		accept = a
		if err := buildOnce(dir, "v1\n", reuse, build); err != nil {
			t.Fatal(err)
		}
	}
	// Built on the first call (no stamp) and when reuse refused.
	if builds != 2 {
		t.Errorf("built %d times, want 2", builds)
	}
}
