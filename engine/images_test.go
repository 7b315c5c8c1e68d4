package engine_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/transforms"
)

func TestImageTaggerTagsEncodedImages(t *testing.T) {
	tg, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	// A 16×16 PNG of a vertical bar two pixels wide: shrunk to 8×8 it is a
	// one-pixel bar the model has seen.
	im := image.NewGray(image.Rect(0, 0, 16, 16))
	for y := 0; y < 16; y++ {
		im.SetGray(6, y, color.Gray{255})
		im.SetGray(7, y, color.Gray{255})
	}
	var b bytes.Buffer
	png.Encode(&b, im)
	tags, err := tg.TagImage(b.Bytes(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 2 || tags[0].Label != "vertical" || tags[0].Score <= tags[1].Score || tags[0].Score+tags[1].Score > 1+1e-9 {
		t.Fatalf("tags %+v", tags)
	}
	if _, err := tg.TagImage([]byte("not an image"), 1); err == nil {
		t.Fatal("garbage tagged")
	}
}

// An image model trained on deskewed images prepares its inputs the same
// way: deskewed, then scaled to unit length.
func TestImageInputPrepareDeskews(t *testing.T) {
	const w, h = 12, 10
	x := linalg.NewGeneral32(2, w*h)
	for y := 2; y < 8; y++ {
		x.Data[y*w+3+y/2] = 1 // a slanted stroke
		x.Data[w*h+y*w+6] = 0.5
	}
	want := make([]float32, w*h)
	if err := transforms.Deskew(want, linalg.Row32(x, 0), transforms.ImageSize{Width: w, Height: h}); err != nil {
		t.Fatal(err)
	}
	in := engine.ImageInput{Height: h, Width: w, Normalize: "unit", Deskew: true}
	if err := in.Prepare(x); err != nil {
		t.Fatal(err)
	}
	var n2 float64
	for _, v := range want {
		n2 += float64(v) * float64(v)
	}
	for i, v := range linalg.Row32(x, 0) {
		if d := float64(v) - float64(want[i])/math.Sqrt(n2); math.Abs(d) > 1e-6 {
			t.Fatalf("pixel %d: %v, want %v", i, v, float64(want[i])/math.Sqrt(n2))
		}
	}
	var rn2 float64
	for _, v := range linalg.Row32(x, 1) {
		rn2 += float64(v) * float64(v)
	}
	if math.Abs(rn2-1) > 1e-5 {
		t.Errorf("second row has squared length %v after Prepare, want 1", rn2)
	}
	bad := engine.ImageInput{Height: 3, Width: 3, Deskew: true}
	if err := bad.Prepare(x); err == nil {
		t.Error("3x3 input on rows of 120 pixels: no error")
	}
}

// "none" leaves the pixels as they are, "unit" scales rows to length 1, and
// a normalisation this version does not know is refused before any row
// changes.
func TestImageInputNormalizations(t *testing.T) {
	row := []float32{0.5, 0, 1, 0.25}
	for _, tc := range []struct {
		normalize string
		want      []float32
	}{
		{"none", []float32{0.5, 0, 1, 0.25}},
		{"", []float32{0.5, 0, 1, 0.25}},
		{"unit", []float32{0.5 / 1.1456439, 0, 1 / 1.1456439, 0.25 / 1.1456439}},
	} {
		x := linalg.NewGeneral32(1, len(row))
		copy(x.Data, row)
		in := engine.ImageInput{Height: 2, Width: 2, Normalize: tc.normalize}
		if err := in.Prepare(x); err != nil {
			t.Fatalf("%q: %v", tc.normalize, err)
		}
		for i, v := range x.Data {
			if math.Abs(float64(v-tc.want[i])) > 1e-6 {
				t.Errorf("%q: pixel %d is %v, want %v", tc.normalize, i, v, tc.want[i])
			}
		}
	}
	x := linalg.NewGeneral32(1, len(row))
	copy(x.Data, row)
	if err := (engine.ImageInput{Height: 2, Width: 2, Normalize: "l1"}).Prepare(x); err == nil {
		t.Error(`normalisation "l1" accepted`)
	}
	for i, v := range x.Data {
		if v != row[i] {
			t.Fatalf("refused Prepare changed pixel %d: %v", i, v)
		}
	}
}
