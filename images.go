package rfstream

import (
	"encoding/json"
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// TaskImages is the Model.Task of image models.
const TaskImages = "images"

// ImageInput is the input configuration of an image model.
type ImageInput struct {
	Height    int    `json:"height"`
	Width     int    `json:"width"`
	Scale     string `json:"scale"`     // "byte/255": pixels in [0, 1]
	Normalize string `json:"normalize"` // "unit": rows scaled to length 1; "none" or "": left as they are
	// Deskew shears each image upright (transforms.Deskew) before it is
	// normalised.
	Deskew bool `json:"deskew,omitempty"`
}

// Validate reports a normalisation this version does not know, so that a
// model written by a newer version is refused rather than fed rows scaled
// differently from the ones it was trained on.
func (in ImageInput) Validate() error {
	switch in.Normalize {
	case "", "none", "unit":
		return nil
	}
	return fmt.Errorf("rfstream: unknown image normalisation %q (want unit or none)", in.Normalize)
}

// Prepare turns rows of pixels in [0, 1] into the map's inputs in place:
// deskewed when the model was trained so, then normalised.
func (in ImageInput) Prepare(x blas32.General) error {
	if err := in.Validate(); err != nil {
		return err
	}
	if in.Deskew {
		sz := transforms.ImageSize{Width: in.Width, Height: in.Height}
		buf := make([]float32, x.Cols)
		for i := 0; i < x.Rows; i++ {
			row := linalg.Row32(x, i)
			if err := transforms.Deskew(buf, row, sz); err != nil {
				return err
			}
			copy(row, buf)
		}
	}
	if in.Normalize == "unit" {
		return frontend.NormalizeRows(x)
	}
	return nil
}

// ImageTagger gives the top-k labels of images with an image model.
type ImageTagger struct {
	Model *Model
	Input ImageInput
	Map   features.Map
}

// NewImageTagger prepares an image model for tagging.
func NewImageTagger(m *Model) (*ImageTagger, error) {
	if m.Task != TaskImages {
		return nil, fmt.Errorf("rfstream: model task %q is not %q", m.Task, TaskImages)
	}
	var in ImageInput
	if err := json.Unmarshal(m.Input, &in); err != nil {
		return nil, fmt.Errorf("rfstream: image model input: %w", err)
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	fm, err := m.FeatureMap()
	if err != nil {
		return nil, err
	}
	if in.Height*in.Width != fm.InDim() || m.RLS == nil {
		return nil, fmt.Errorf("rfstream: image model of %dx%d pixels for a %d-input map", in.Height, in.Width, fm.InDim())
	}
	return &ImageTagger{Model: m, Input: in, Map: fm}, nil
}

// TagRows tags a batch of images given as rows of pixels in [0, 1]; rows
// are normalised in place as the model was trained.
func (t *ImageTagger) TagRows(x blas32.General, k int) ([][]Tag, error) {
	if x.Cols != t.Map.InDim() {
		return nil, fmt.Errorf("rfstream: images of %d pixels for a model of %d", x.Cols, t.Map.InDim())
	}
	if err := t.Input.Prepare(x); err != nil {
		return nil, err
	}
	z := linalg.NewGeneral32(x.Rows, t.Map.OutDim())
	t.Map.Apply(z, x)
	s := linalg.NewGeneral32(x.Rows, t.Model.RLS.Classes)
	t.Model.RLS.Scores(s, z)
	out := make([][]Tag, x.Rows)
	for i := range out {
		out[i] = TopK(linalg.Row32(s, i), t.Model.Labels, k)
	}
	return out, nil
}

// TagImage decodes an encoded image (PNG, JPEG, GIF, PGM) and tags it.
func (t *ImageTagger) TagImage(b []byte, k int) ([]Tag, error) {
	px, err := frontend.DecodeImage(b, t.Input.Height, t.Input.Width)
	if err != nil {
		return nil, err
	}
	tags, err := t.TagRows(blas32.General{Rows: 1, Cols: len(px), Stride: len(px), Data: px}, k)
	if err != nil {
		return nil, err
	}
	return tags[0], nil
}
