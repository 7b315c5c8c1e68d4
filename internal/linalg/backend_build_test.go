package linalg

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A default build (no tags), even where cgo is on, links no C: go install
// must work wherever Go does, without OpenBLAS or a C compiler. OpenBLAS
// comes with -tags openblas (and cgo), and purego overrides it.
func TestOpenBLASOnlyWithItsTag(t *testing.T) {
	for _, c := range []struct {
		tags     []string
		cgo      bool
		openblas bool
	}{
		{nil, true, false},
		{nil, false, false},
		{[]string{"openblas"}, true, true},
		{[]string{"openblas"}, false, false},
		{[]string{"openblas", "purego"}, true, false},
		{[]string{"purego"}, true, false},
	} {
		ctx := build.Default
		ctx.CgoEnabled, ctx.BuildTags = c.cgo, c.tags
		pkg, err := ctx.ImportDir(".", 0)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Contains(pkg.CgoFiles, "backend_openblas.go")
		purego := slices.Contains(pkg.GoFiles, "backend_purego.go")
		if got != c.openblas || purego == c.openblas {
			t.Errorf("tags %v, cgo %v: OpenBLAS backend %v, pure-Go backend %v; want OpenBLAS %v", c.tags, c.cgo, got, purego, c.openblas)
		}
	}
}

// No package of the module has cgo files in the default build.
func TestDefaultBuildHasNoCgo(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	ctx := build.Default
	ctx.CgoEnabled, ctx.BuildTags = true, nil
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "data" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := ctx.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		checked++
		if len(pkg.CgoFiles) > 0 {
			t.Errorf("%s: cgo files %v in the default build", path, pkg.CgoFiles)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked under %s", checked, root)
	}
}
