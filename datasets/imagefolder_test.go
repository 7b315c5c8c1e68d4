package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/fixtures"
)

// writeFile writes b at dir/rel, making its folder.
func writeFile(t testing.TB, dir, rel string, b []byte) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The classes are the subfolders, sorted; pictures of every format are
// listed class by class and decoded to rows in [0, 1]; hidden files,
// other files and deeper folders are passed over.
func TestImageFolderListsAndDecodes(t *testing.T) {
	dir := t.TempDir()
	if err := fixtures.WriteShapeFolder(dir, []string{"square", "circle"}, 5, 1); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "circle/.hidden.png", []byte("junk"))
	writeFile(t, dir, "circle/notes.txt", []byte("junk"))
	writeFile(t, dir, "circle/deeper/x.png", []byte("junk"))
	f, err := ListImageFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Classes, ",") != "circle,square" || len(f.Files) != 10 {
		t.Fatalf("classes %v, %d files", f.Classes, len(f.Files))
	}
	for i, p := range f.Files {
		if want := f.Classes[f.Labels[i]]; filepath.Base(filepath.Dir(p)) != want {
			t.Fatalf("%s labelled %s", p, want)
		}
	}
	set, err := f.Decode(12, 10)
	if err != nil {
		t.Fatal(err)
	}
	if set.N != 10 || set.X.Cols != 120 {
		t.Fatalf("%d rows of %d", set.N, set.X.Cols)
	}
	for _, v := range set.X.Data {
		if v < 0 || v > 1 {
			t.Fatalf("pixel %v", v)
		}
	}
	// A test folder is read with the training classes: a class the model
	// lacks is refused by name, and a subset of classes keeps their indices.
	writeFile(t, dir+"2", "square/a.pgm", []byte("P2 1 1 255 7"))
	g, err := ListImageFolder(dir+"2", []string{"circle", "square"})
	if err != nil || g.Labels[0] != 1 {
		t.Fatalf("test folder of one known class: %+v, %v", g, err)
	}
	writeFile(t, dir+"2", "triangle/a.pgm", []byte("P2 1 1 255 7"))
	if _, err := ListImageFolder(dir+"2", []string{"circle", "square"}); err == nil || !strings.Contains(err.Error(), `"triangle"`) {
		t.Fatalf("unknown class: %v", err)
	}
}

// Malformed folders and pictures are refused with the folder or file and
// the reason.
func TestImageFolderRefusals(t *testing.T) {
	one := t.TempDir()
	writeFile(t, one, "only/a.pgm", []byte("P2 1 1 255 7"))
	if _, err := ListImageFolder(one, nil); err == nil || !strings.Contains(err.Error(), "at least two") {
		t.Fatalf("one class: %v", err)
	}
	empty := t.TempDir()
	writeFile(t, empty, "a/x.pgm", []byte("P2 1 1 255 7"))
	writeFile(t, empty, "b/readme.txt", []byte("no pictures"))
	if _, err := ListImageFolder(empty, nil); err == nil || !strings.Contains(err.Error(), `class "b" holds no picture`) {
		t.Fatalf("empty class: %v", err)
	}
	if _, err := ListImageFolder(filepath.Join(one, "missing"), nil); err == nil {
		t.Fatal("missing folder listed")
	}
	bad := t.TempDir()
	writeFile(t, bad, "a/ok.pgm", []byte("P2 1 1 255 7"))
	writeFile(t, bad, "b/broken.png", []byte("\x89PNG\r\n\x1a\nnot really"))
	writeFile(t, bad, "b/huge.pgm", []byte("P5 4000 4000 255\n"))
	f, err := ListImageFolder(bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Decode(8, 8)
	if err == nil || !strings.Contains(err.Error(), "broken.png") {
		t.Fatalf("broken PNG: %v", err)
	}
	os.Remove(filepath.Join(bad, "b/broken.png"))
	if f, err = ListImageFolder(bad, nil); err != nil {
		t.Fatal(err)
	}
	_, err = f.Decode(8, 8)
	if err == nil || !strings.Contains(err.Error(), "huge.pgm") || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("picture over the pixel limit: %v", err)
	}
}

// Whatever a picture file holds, decoding the folder gives rows in
// [0, 1] or an error naming the file; never a panic.
func FuzzImageFolderPicture(f *testing.F) {
	f.Add([]byte("P2 2 1 255 0 255"))
	f.Add([]byte("P5 1 1 255\n\x80"))
	f.Add([]byte("GIF89a"))
	f.Add([]byte("\xff\xd8\xff"))
	dir := f.TempDir()
	writeFile(f, dir, "a/ok.pgm", []byte("P2 1 1 255 7"))
	f.Fuzz(func(t *testing.T, b []byte) {
		writeFile(t, dir, "b/fuzz.png", b)
		folder, err := ListImageFolder(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		set, err := folder.Decode(6, 5)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.png") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, v := range set.X.Data {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("pixel %v", v)
			}
		}
	})
}
