package frontend

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
)

func pngOf(t *testing.T, h, w int, f func(y, x int) uint8) []byte {
	t.Helper()
	im := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			im.SetGray(x, y, color.Gray{Y: f(y, x)})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeImageExactAndShrunk(t *testing.T) {
	b := pngOf(t, 4, 4, func(y, x int) uint8 { return uint8(16 * (y*4 + x)) })
	v, err := DecodeImage(b, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range v {
		if math.Abs(float64(p)-float64(16*i)/255) > 1e-3 {
			t.Fatalf("pixel %d = %v, want %v", i, p, float64(16*i)/255)
		}
	}
	// 2×2 shrink averages each 2×2 block.
	v, _ = DecodeImage(b, 2, 2)
	want := []float64{(0 + 16 + 64 + 80) / 4.0, (32 + 48 + 96 + 112) / 4.0}
	for i, w := range want {
		if math.Abs(float64(v[i])-w/255) > 1e-3 {
			t.Fatalf("shrunk pixel %d = %v, want %v", i, v[i], w/255)
		}
	}
}

func TestDecodePGMAndGarbage(t *testing.T) {
	pgm := append([]byte("P5\n# a comment\n2 1\n255\n"), 0, 255)
	v, err := DecodeImage(pgm, 1, 2)
	if err != nil || v[0] != 0 || v[1] != 1 {
		t.Fatalf("PGM %v %v", v, err)
	}
	if _, err := DecodeImage(append([]byte("P5 2 2 255\n"), 1), 2, 2); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated PGM: %v", err)
	}
	if _, err := DecodeImage(append([]byte("P5 2 1 1\n"), 1, 2), 2, 2); err == nil || !strings.Contains(err.Error(), "above the header's maximum") {
		t.Fatalf("PGM sample above its maximum: %v", err)
	}
	if _, err := DecodeImage([]byte("P5 4294967296 4294967296 255\n"), 2, 2); err == nil {
		t.Fatal("PGM whose pixel count overflows accepted")
	}
	if _, err := DecodeImage([]byte("hello"), 28, 28); err == nil {
		t.Fatal("garbage decoded")
	}
	if _, err := DecodeImage([]byte(fmt.Sprintf("P5 %d %d 255\n", 1<<15, 1<<15)), 2, 2); err == nil {
		t.Fatal("huge PGM header accepted")
	}
}

func FuzzDecodeImage(f *testing.F) {
	f.Add(append([]byte("P5\n2 1\n255\n"), 0, 255))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeImage(b, 28, 28)
		if err != nil {
			return
		}
		for _, p := range v {
			if p < 0 || p > 1 || math.IsNaN(float64(p)) {
				t.Fatalf("pixel %v outside [0,1]", p)
			}
		}
	})
}
