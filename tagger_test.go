package rfstream

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// bars draws an 8×8 image with a bright horizontal (class 0) or vertical
// (class 1) bar at position p.
func bars(class, p int) []float32 {
	v := make([]float32, 64)
	for i := 0; i < 8; i++ {
		if class == 0 {
			v[p*8+i] = 1
		} else {
			v[i*8+p] = 1
		}
	}
	return v
}

func TestImageTaggerTagsEncodedImages(t *testing.T) {
	x := linalg.NewGeneral32(64, 64)
	labels := make([]int, 64)
	for i := 0; i < 64; i++ {
		labels[i] = i % 2
		copy(linalg.Row32(x, i), bars(i%2, (i/2)%8))
	}
	frontend.NormalizeRows(x)
	mp, _ := maxout.New(64, maxout.Params{M: 100, Q: 2}, 1)
	rls, _, err := FitRLS(mp, x, labels, 2, FitOptions{Lambda: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(ImageInput{Height: 8, Width: 8, Scale: "byte/255", Normalize: "unit"})
	tg, err := NewImageTagger(&Model{Task: TaskImages, Labels: []string{"horizontal", "vertical"}, Input: in, Map: mp.Recipe(), RLS: rls})
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
