package transforms

import (
	"math"
	"testing"
)

// slantedBar draws a soft vertical stroke of the given slant (columns per
// row) through (x0, y0) on a 28×28 image.
func slantedBar(slant, x0, y0 float64) []float32 {
	const w, h = 28, 28
	img := make([]float32, w*h)
	for y := 4; y < 24; y++ {
		cx := x0 + slant*(float64(y)-y0)
		for x := 0; x < w; x++ {
			d := float64(x) - cx
			img[y*w+x] = float32(math.Exp(-d * d / 2))
		}
	}
	return img
}

// moments returns the centre of mass and the covariance of column and row
// coordinates over the row variance: the slant Deskew removes.
func moments(img []float32, w int) (mx, my, slant float64) {
	var s, sx, sy float64
	for i, v := range img {
		x, y := float64(i%w), float64(i/w)
		s += float64(v)
		sx += float64(v) * x
		sy += float64(v) * y
	}
	mx, my = sx/s, sy/s
	var vyy, vxy float64
	for i, v := range img {
		x, y := float64(i%w), float64(i/w)
		vyy += float64(v) * (y - my) * (y - my)
		vxy += float64(v) * (x - mx) * (y - my)
	}
	return mx, my, vxy / vyy
}

func TestDeskewStandsStrokesUpright(t *testing.T) {
	sz := ImageSize{Width: 28, Height: 28}
	for _, slant := range []float64{-0.4, -0.15, 0.2, 0.35} {
		src := slantedBar(slant, 11, 12)
		dst := make([]float32, len(src))
		if err := Deskew(dst, src, sz); err != nil {
			t.Fatal(err)
		}
		_, _, before := moments(src, 28)
		mx, my, after := moments(dst, 28)
		if math.Abs(before-slant) > 0.02 {
			t.Fatalf("test image slant %.3f, meant %.3f", before, slant)
		}
		// Bilinear resampling leaves a little slant; the bar's own is gone.
		if math.Abs(after) > 0.02 {
			t.Errorf("slant %.2f: %.4f left after deskewing", slant, after)
		}
		if math.Abs(mx-13.5) > 0.3 || math.Abs(my-13.5) > 0.3 {
			t.Errorf("slant %.2f: centre of mass at (%.2f, %.2f), want the centre (13.5, 13.5)", slant, mx, my)
		}
	}
}

func TestDeskewKeepsCentredUprightImage(t *testing.T) {
	sz := ImageSize{Width: 28, Height: 28}
	// An upright bar centred on (13.5, 13.5) is its own deskewed image.
	src := slantedBar(0, 13.5, 13.5)
	dst := make([]float32, len(src))
	if err := Deskew(dst, src, sz); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if math.Abs(float64(dst[i]-src[i])) > 1e-5 {
			t.Fatalf("pixel %d: %v, was %v", i, dst[i], src[i])
		}
	}
}

func TestDeskewBlankAndBadShapes(t *testing.T) {
	sz := ImageSize{Width: 4, Height: 4}
	src := make([]float32, 16)
	dst := make([]float32, 16)
	dst[3] = 7
	if err := Deskew(dst, src, sz); err != nil {
		t.Fatal(err)
	}
	for i, v := range dst {
		if v != 0 {
			t.Fatalf("blank image: pixel %d is %v", i, v)
		}
	}
	if err := Deskew(dst, src[:15], sz); err == nil {
		t.Error("15 pixels for a 4x4 image: no error")
	}
	if err := Deskew(dst, src, ImageSize{}); err == nil {
		t.Error("0x0 image: no error")
	}
}
