package rfstream_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/rfstream/rfstream/internal/toymodels"
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
