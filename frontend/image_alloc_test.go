package frontend

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"runtime"
	"strings"
	"testing"
)

// Decoding an image allocates at most bytesPerPixel for each pixel its
// header claims (and passes MaxImagePixels with), plus bytesPerInputByte
// for each byte of the file and imageAllocSlack: the decoded image (up to
// 8 bytes a pixel for 16-bit RGBA, twice for an interlaced PNG's passes)
// and the grey raster (4). An image refused from its header allocates no
// more than the file's share and the slack, whatever it claims: before the
// header was checked, a 40 KB PNG claiming 6400×6400 took 50 MB.
const (
	bytesPerPixel     = 24
	bytesPerInputByte = 8
	imageAllocSlack   = 1 << 20
)

// claimedPixels is what an encoded image's header claims, 0 when
// CheckImageSize refuses it.
func claimedPixels(b []byte) int {
	if CheckImageSize(b) != nil {
		return 0
	}
	if isPGM(b) {
		w, h, _, _ := pgmHeader(bufio.NewReader(bytes.NewReader(b)))
		return w * h
	}
	cfg, _, _ := image.DecodeConfig(bytes.NewReader(b))
	return cfg.Width * cfg.Height
}

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc:
// the test's goroutine is the only one allocating here).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// pngClaiming is a 1×1 PNG whose header claims w×h pixels (its CRC
// fixed, so only the pixel data is wrong).
func pngClaiming(w, h uint32) []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], w)
	binary.BigEndian.PutUint32(p[20:], h)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// FuzzDecodeImageAllocations: whatever the bytes, DecodeImage allocates
// within the bound above, not only without a panic.
func FuzzDecodeImageAllocations(f *testing.F) {
	var grey bytes.Buffer
	png.Encode(&grey, image.NewGray(image.Rect(0, 0, 64, 48)))
	f.Add(grey.Bytes())
	f.Add(pngClaiming(6400, 6400))
	f.Add(pngClaiming(2048, 2048)) // accepted, then its data runs out
	f.Add(append([]byte("P5\n2 1\n255\n"), 0, 255))
	f.Add([]byte("P5 40000 40000 255\n"))
	f.Add([]byte("GIF89a\x00\x40\x00\x40\x00\x00\x00;"))
	f.Fuzz(func(t *testing.T, b []byte) {
		limit := uint64(bytesPerPixel*claimedPixels(b) + bytesPerInputByte*len(b) + imageAllocSlack)
		var err error
		if got := allocated(func() { _, err = DecodeImage(b, 28, 28) }); got > limit {
			t.Fatalf("decoding %d bytes (claiming %d pixels; %v) allocated %d bytes, over the %d-byte bound", len(b), claimedPixels(b), err, got, limit)
		}
	})
}

// jpegClaiming is the start of a JPEG whose frame header (SOF0 baseline or
// SOF2 progressive, by sof) claims a w×h grey image.
func jpegClaiming(sof byte, w, h int) []byte {
	// image/jpeg's DecodeConfig stops at the frame header after a JFIF one.
	jfif := []byte{0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
	return append(append([]byte{0xFF, 0xD8}, jfif...), 0xFF, sof, 0, 11, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 1, 1, 0x11, 0)
}

// Images are bounded by the bytes they decode to, from their headers, not
// only by their pixels: 2048×2048 passes the pixel bound at 8 bits a
// channel and is refused at 16, or as a progressive JPEG (its
// coefficients), naming the bytes; an accepted 8-bit RGBA image of that
// size allocates its decoded bytes and the grey raster, not a boxed
// colour a pixel (80 MB for 16-bit pixels before the byte bound).
func TestImagesAreBoundedByTheBytesTheyDecodeTo(t *testing.T) {
	encode := func(im image.Image) []byte {
		var b bytes.Buffer
		png.Encode(&b, im)
		return b.Bytes()
	}
	wide := image.Rect(0, 0, 2048, 2048)
	for _, c := range []struct {
		name string
		file []byte
		ok   bool
	}{
		{"8-bit grey PNG", encode(image.NewGray(wide)), true},
		{"8-bit RGBA PNG", encode(image.NewNRGBA(wide)), true},
		{"16-bit RGBA PNG", encode(image.NewNRGBA64(wide)), false},
		{"16-bit RGBA PNG, 1448×1448", encode(image.NewNRGBA64(image.Rect(0, 0, 1448, 1448))), true},
		{"baseline grey JPEG header", jpegClaiming(0xC0, 2048, 2048), true},
		{"progressive grey JPEG header", jpegClaiming(0xC2, 2048, 2048), false},
	} {
		err := CheckImageSize(c.file)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), "-byte limit")) {
			t.Errorf("%s: %v, want accepted %v (refused naming the byte limit)", c.name, err, c.ok)
		}
	}
	file := encode(image.NewNRGBA(wide))
	limit := uint64(MaxImageDecodedBytes + 4*2048*2048 + bytesPerInputByte*len(file) + imageAllocSlack)
	if got := allocated(func() { DecodeImage(file, 28, 28) }); got > limit {
		t.Fatalf("decoding a 2048×2048 RGBA PNG allocated %d bytes, over %d", got, limit)
	}
}
