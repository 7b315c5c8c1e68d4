package frontend

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"runtime"
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
