package features

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The cached values are the drawn ones, whether the file is missing,
// present, damaged, cut short or cannot be written.
func TestSeededNormalsAreTheDrawnOnes(t *testing.T) {
	data := t.TempDir()
	t.Setenv("RFSTREAM_DATA", data)
	n := minCachedDraw + 3 // odd: the last pair's second value is dropped
	want := make([]float32, n)
	FillNormal32(NewRand(7, 1), want)
	check := func(when string) {
		t.Helper()
		got := make([]float32, n)
		SeededNormal32(7, 1, got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: the values differ from the drawn ones", when)
		}
	}
	check("first draw")
	files, _ := filepath.Glob(filepath.Join(data, "draws", "normal32-*"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	path := files[0]
	check("read from the cache")

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := slices.Clone(b)
	damaged[len(damaged)/2] ^= 0x40
	os.WriteFile(path, damaged, 0o600)
	check("damaged file")
	if again, _ := os.ReadFile(path); !slices.Equal(again, b) {
		t.Fatal("a damaged file was not written again")
	}
	os.WriteFile(path, b[:len(b)-4], 0o600)
	check("file cut short")

	other := make([]float32, n+1)
	SeededNormal32(7, 1, other)
	longer := make([]float32, n+1)
	FillNormal32(NewRand(7, 1), longer)
	if !slices.Equal(other, longer) {
		t.Fatal("a draw of another length differs from its drawn values")
	}

	// A cache that cannot be written (its folder is a file).
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o600)
	t.Setenv("RFSTREAM_DATA", blocked)
	check("unwritable cache")
}

func TestTrimDrawsRemovesTheLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i, name := range []string{"a", "b", "c", ".draw-partial"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, make([]byte, 100), 0o600)
		at := now.Add(time.Duration(i-10) * time.Minute) // a oldest
		os.Chtimes(p, at, at)
	}
	trimDraws(dir, 150)
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{".draw-partial", "c"}) {
		t.Fatalf("left %v, want the newest and the file being written", left)
	}
}

func BenchmarkSeededNormal32(b *testing.B) {
	b.Setenv("RFSTREAM_DATA", b.TempDir())
	dst := make([]float32, 4<<20)
	b.Run("drawn", func(b *testing.B) {
		for b.Loop() {
			FillNormal32(NewRand(3, 0), dst)
		}
	})
	SeededNormal32(3, 0, dst)
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			SeededNormal32(3, 0, dst)
		}
	})
}
