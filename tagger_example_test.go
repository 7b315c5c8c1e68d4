package rfstream_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// An image model is loaded and tags an encoded image with its best label.
func ExampleNewImageTagger() {
	path, picture, done := exampleImage()
	defer done()

	model, err := rfstream.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	tagger, err := rfstream.NewImageTagger(model)
	if err != nil {
		log.Fatal(err)
	}
	tags, err := tagger.TagImage(picture, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tags[0].Label)
	// Output: vertical
}

// exampleImage saves the toy bars model (horizontal or vertical bar on 8×8
// pixels) in a temporary folder and returns its path, a PNG of a vertical
// bar, and a function that removes the folder.
func exampleImage() (path string, picture []byte, done func()) {
	t, err := toymodels.Images()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rfstream-example-")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "bars.rfm")
	if err := rfstream.SaveModel(path, t.Model); err != nil {
		log.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	for i, v := range toymodels.Bars(1, 5) {
		img.Set(i%8, i/8, color.Gray{Y: uint8(255 * v)})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		log.Fatal(err)
	}
	return path, b.Bytes(), func() { os.RemoveAll(dir) }
}
