package rfstream

import "github.com/rfstream/rfstream/engine"

// Tag is one label with its confidence in [0, 1].
type Tag = engine.Tag

// ImageTags is what an ImageTagger says of one picture: its best tags and,
// for a model with an out-of-domain rule, whether the picture is too
// unlike the training pictures to trust any tag.
type ImageTags = engine.ImageResult

// ImageTagger tags pictures with an image model (TaskImages), as
// `rfstream tag` does.
type ImageTagger struct {
	t *engine.ImageTagger
}

// NewImageTagger prepares an image model for tagging.
func NewImageTagger(m *Model) (*ImageTagger, error) {
	t, err := engine.NewImageTagger(m)
	if err != nil {
		return nil, err
	}
	return &ImageTagger{t}, nil
}

// Tag decodes a PNG, JPEG, GIF or PGM picture and returns its k best tags.
func (t *ImageTagger) Tag(picture []byte, k int) (ImageTags, error) {
	return t.t.ClassifyImage(picture, k)
}
