package frontend

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// A transparent pixel is white (the page behind it), an opaque black one
// black, and a half-transparent black one mid-grey.
func TestTransparencyIsComposedOverWhite(t *testing.T) {
	im := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	im.Set(0, 0, color.NRGBA{A: 0})
	im.Set(1, 0, color.NRGBA{A: 255})
	im.Set(2, 0, color.NRGBA{A: 128})
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	v, err := DecodeImage(b.Bytes(), 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if v[0] != 1 || v[1] != 0 || v[2] < 0.49 || v[2] > 0.51 {
		t.Fatalf("transparent, black, half-transparent black: %v, want 1, 0, about 0.5", v)
	}
}
