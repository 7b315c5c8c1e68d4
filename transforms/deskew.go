package transforms

import "fmt"

// Deskew writes to dst the image src sheared horizontally so that its
// strokes stand upright, with its centre of mass moved to the image centre.
// The shear is the one that makes the intensity-weighted covariance of the
// column and row coordinates zero: a slanted digit and an upright one then
// look alike to every map, invariant or not. An image with no ink (or ink in
// a single row) is copied unchanged. dst and src must not overlap.
func Deskew(dst, src []float32, sz ImageSize) error {
	if err := sz.check(); err != nil {
		return err
	}
	if len(src) != sz.Width*sz.Height || len(dst) != len(src) {
		return fmt.Errorf("transforms: deskew of %d pixels into %d for a %dx%d image", len(src), len(dst), sz.Width, sz.Height)
	}
	var sum, sx, sy float64
	for y := 0; y < sz.Height; y++ {
		for x := 0; x < sz.Width; x++ {
			v := float64(src[y*sz.Width+x])
			sum += v
			sx += v * float64(x)
			sy += v * float64(y)
		}
	}
	if !(sum > 0) {
		copy(dst, src)
		return nil
	}
	mx, my := sx/sum, sy/sum
	var vyy, vxy float64
	for y := 0; y < sz.Height; y++ {
		for x := 0; x < sz.Width; x++ {
			v := float64(src[y*sz.Width+x])
			dy := float64(y) - my
			vyy += v * dy * dy
			vxy += v * (float64(x) - mx) * dy
		}
	}
	if !(vyy > 0) {
		copy(dst, src)
		return nil
	}
	alpha := vxy / vyy
	cx, cy := float64(sz.Width-1)/2, float64(sz.Height-1)/2
	// Output pixel (x, y) reads the source at (x + α(y−cy) + mx−cx, y + my−cy):
	// the output's centre is the source's centre of mass, and each row is
	// shifted by the slant times its height above the centre.
	warpBilinear(dst, src, sz, affine{a: 1, b: alpha, e: mx - cx - alpha*cy, c: 0, d: 1, f: my - cy})
	return nil
}
