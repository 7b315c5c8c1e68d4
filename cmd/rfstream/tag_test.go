package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// barPNG encodes a toy bar image (toymodels.Bars) as an 8×8 grey PNG.
func barPNG(t *testing.T, class, p int) []byte {
	t.Helper()
	im := image.NewGray(image.Rect(0, 0, 8, 8))
	for i, v := range toymodels.Bars(class, p) {
		im.Pix[i] = uint8(255 * v)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hugePNG is a tiny PNG whose header claims w×h pixels: what a hostile
// client sends to make a decoder allocate for the claim.
func hugePNG(t *testing.T, w, h uint32) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	// The IHDR chunk: length at 8, type at 12, width and height at 16 and
	// 20, its CRC over type and data at 29.
	binary.BigEndian.PutUint32(p[16:], w)
	binary.BigEndian.PutUint32(p[20:], h)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// tag fails image by image: an oversized file, an image whose header
// claims more than frontend.MaxImagePixels and a file that is no image
// each get a line naming the file and the reason, the good images are
// tagged all the same, and the exit status is 1. An IDX file whose header
// is wrong is reported as such, naming the file.
func TestTagNamesEachFailedImageAndExitsOne(t *testing.T) {
	images, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "bars.rfm")
	if err := engine.SaveModel(model, images.Model); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(dir, "images")
	os.Mkdir(files, 0o755)
	write := func(name string, b []byte) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good1 := write("a-horizontal.png", barPNG(t, 0, 3))
	huge := write("b-huge.png", hugePNG(t, 6400, 6400))
	big := write("c-big.png", bytes.Repeat([]byte{0xff}, streaming.MaxImageBytes+1))
	junk := write("d-junk.png", []byte("not an image"))
	good2 := write("e-vertical.png", barPNG(t, 1, 5))
	var out, errb bytes.Buffer
	code := run([]string{"tag", "--model", model, files}, &out, &errb)
	o := out.String()
	if code != 1 || !strings.Contains(errb.String(), "3 of 5 images could not be tagged") {
		t.Fatalf("three bad images of five: exit %d, stderr %q, stdout %q", code, errb.String(), o)
	}
	for _, c := range []struct{ line, want string }{
		{good1 + ": horizontal", ""},
		{good2 + ": vertical", ""},
		{huge + ": error:", "6400x6400 pixels is over the 4194304-pixel limit"},
		{big + ": error:", "over the 786432-byte limit"},
		{junk + ": error:", "not an image"},
	} {
		if !strings.Contains(o, c.line) || !strings.Contains(o[strings.Index(o, c.line):], c.want) {
			t.Fatalf("want a line %q…%q in\n%s", c.line, c.want, o)
		}
	}
	// Good images alone: exit 0.
	if code := run([]string{"tag", "--model", model, good1, good2}, &out, &errb); code != 0 {
		t.Fatalf("two good images: exit %d, %s", code, errb.String())
	}
	// An IDX file with a truncated header: the header's fault, named.
	idx := write("bad-images-idx3-ubyte", []byte{0, 0, 8, 3, 0, 0, 0, 2, 0, 0})
	errb.Reset()
	if code := run([]string{"tag", "--model", model, idx}, &out, &errb); code != 1 || !strings.Contains(errb.String(), idx+": header truncated in dimension 2 of 3") {
		t.Fatalf("IDX with a truncated header: exit %d, stderr %q", code, errb.String())
	}
}

// A folder with no images is an error, not "tagged 0 images" and exit 0.
func TestTagWithNothingToTagFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("no pictures here"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"tag", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no images to tag in "+dir) {
		t.Fatalf("tag on a folder without images: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
