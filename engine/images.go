package engine

import (
	"encoding/json"
	"fmt"
	"slices"

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
	// Polarity is how an image's light and dark are read: "auto" turns
	// every image into a light figure on a dark ground, as MNIST draws
	// digits (ink on paper is inverted), with the ground at 0; "none" or
	// "" leaves the pixels as decoded.
	Polarity string `json:"polarity,omitempty"`
	// OutOfDomain, when set, marks an image unlike every training image
	// (see OutOfDomain); its basis is the model's blob OODBasisBlob.
	OutOfDomain *OutOfDomain `json:"out_of_domain,omitempty"`
}

// MNISTInput is the input of a model that records none: models from
// before images carried their own recipe were all MNIST's.
var MNISTInput = ImageInput{Height: 28, Width: 28, Scale: "byte/255", Normalize: "unit"}

// OODBasisBlob names the model blob holding an image model's out-of-domain
// basis: OutOfDomain.Components rows of the feature dimension, orthonormal.
const OODBasisBlob = "ood.basis"

// OutOfDomain is the rule that marks an image far from everything the
// model was trained on. The features of training images lie mostly in a
// few directions (the basis, their main principal directions); an image's
// familiarity is the share of its feature vector's energy inside their
// span, and one below MinFamiliarity is out of domain. MinFamiliarity was
// chosen on training images held out of the basis so that
// HeldOutRejected of them fall below it.
type OutOfDomain struct {
	Components      int     `json:"components"`
	MinFamiliarity  float64 `json:"min_familiarity"`
	HeldOut         int     `json:"held_out"`
	HeldOutRejected float64 `json:"held_out_rejected"`
}

// Validate reports a normalisation this version does not know, so that a
// model written by a newer version is refused rather than fed rows scaled
// differently from the ones it was trained on.
func (in ImageInput) Validate() error {
	switch in.Normalize {
	case "", "none", "unit":
	default:
		return fmt.Errorf("rfstream: unknown image normalisation %q (want unit or none)", in.Normalize)
	}
	switch in.Polarity {
	case "", "none", "auto":
	default:
		return fmt.Errorf("rfstream: unknown image polarity %q (want auto or none)", in.Polarity)
	}
	return nil
}

// Prepare turns rows of pixels in [0, 1] into the map's inputs in place:
// turned light on dark (Polarity auto), deskewed when the model was
// trained so, then normalised.
func (in ImageInput) Prepare(x blas32.General) error {
	if err := in.Validate(); err != nil {
		return err
	}
	if in.Polarity == "auto" {
		for i := 0; i < x.Rows; i++ {
			lightOnDark(linalg.Row32(x, i), in.Height, in.Width)
		}
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

// lightOnDark turns an h×w image into a light figure on a dark ground
// whose level is 0. The ground is the median of the border pixels (a
// figure seldom covers half of its frame): a light ground is inverted, and
// then its level is subtracted and the rest stretched back to [0, 1], so
// grey paper and a dark ink become MNIST's black and white. An image whose
// ground is already 0, as MNIST's are, is left exactly as it was.
func lightOnDark(v []float32, h, w int) {
	if h < 1 || w < 1 || len(v) != h*w {
		return
	}
	border := make([]float32, 0, 2*(h+w))
	for x := 0; x < w; x++ {
		border = append(border, v[x], v[(h-1)*w+x])
	}
	for y := 1; y < h-1; y++ {
		border = append(border, v[y*w], v[y*w+w-1])
	}
	slices.Sort(border)
	ground := border[len(border)/2]
	if ground > 0.5 {
		for i := range v {
			v[i] = 1 - v[i]
		}
		ground = 1 - ground
	}
	if ground <= 0 || ground >= 1 {
		return
	}
	for i, p := range v {
		v[i] = max(p-ground, 0) / (1 - ground)
	}
}

// ImageTagger gives the top-k labels of images with an image model.
type ImageTagger struct {
	Model *Model
	Input ImageInput
	Map   features.Map
	// oodBasis holds the out-of-domain basis when Input.OutOfDomain is set.
	oodBasis blas32.General
}

// ImageResult is what the tagger says of one image: its best tags and, for
// a model with an out-of-domain rule, its familiarity (the share of its
// features' energy in the span of the training images', in [0, 1]) and
// whether that is too low to trust any tag.
type ImageResult struct {
	Tags        []Tag   `json:"tags"`
	Familiarity float64 `json:"familiarity,omitempty"`
	OutOfDomain bool    `json:"out_of_domain,omitempty"`
}

// NewImageTagger prepares an image model for tagging.
func NewImageTagger(m *Model) (*ImageTagger, error) {
	if m.Task != TaskImages {
		return nil, fmt.Errorf("rfstream: model task %q is not %q", m.Task, TaskImages)
	}
	in := MNISTInput
	if len(m.Input) > 0 {
		in = ImageInput{}
		if err := json.Unmarshal(m.Input, &in); err != nil {
			return nil, fmt.Errorf("rfstream: image model input: %w", err)
		}
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
	t := &ImageTagger{Model: m, Input: in, Map: fm}
	if ood := in.OutOfDomain; ood != nil {
		b, ok := m.Blobs[OODBasisBlob]
		if !ok || ood.Components < 1 || b.Rows != ood.Components || b.Cols != fm.OutDim() {
			return nil, fmt.Errorf("rfstream: image model's out-of-domain rule wants a %d×%d blob %q (found %v: %d×%d)",
				ood.Components, fm.OutDim(), OODBasisBlob, ok, b.Rows, b.Cols)
		}
		t.oodBasis = b
	}
	return t, nil
}

// TagRows tags a batch of images given as rows of pixels in [0, 1]; rows
// are prepared in place as the model was trained.
func (t *ImageTagger) TagRows(x blas32.General, k int) ([][]Tag, error) {
	res, err := t.Classify(x, k)
	if err != nil {
		return nil, err
	}
	out := make([][]Tag, len(res))
	for i, r := range res {
		out[i] = r.Tags
	}
	return out, nil
}

// Classify tags a batch of images given as rows of pixels in [0, 1] and,
// when the model has an out-of-domain rule, says which are unlike its
// training images; rows are prepared in place as the model was trained.
func (t *ImageTagger) Classify(x blas32.General, k int) ([]ImageResult, error) {
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
	out := make([]ImageResult, x.Rows)
	for i := range out {
		out[i].Tags = TopK(linalg.Row32(s, i), t.Model.Labels, k)
	}
	if ood := t.Input.OutOfDomain; ood != nil {
		for i, f := range Familiarity(z, t.oodBasis) {
			out[i].Familiarity = f
			out[i].OutOfDomain = f < ood.MinFamiliarity
		}
	}
	return out, nil
}

// Familiarity is, for each feature row of z, the share of its energy in
// the span of basis's orthonormal rows: 1 inside it, 0 orthogonal to it
// (and 0 for a row of zeros, which resembles nothing).
func Familiarity(z, basis blas32.General) []float64 {
	p := linalg.NewGeneral32(z.Rows, basis.Rows)
	linalg.MulABt32(p, z, basis)
	out := make([]float64, z.Rows)
	for i := range out {
		var all, in float64
		for _, v := range linalg.Row32(z, i) {
			all += float64(v) * float64(v)
		}
		for _, v := range linalg.Row32(p, i) {
			in += float64(v) * float64(v)
		}
		if all > 0 {
			out[i] = min(in/all, 1)
		}
	}
	return out
}

// TagImage decodes an encoded image (PNG, JPEG, GIF, PGM) and tags it.
func (t *ImageTagger) TagImage(b []byte, k int) ([]Tag, error) {
	r, err := t.ClassifyImage(b, k)
	return r.Tags, err
}

// ClassifyImage decodes an encoded image (PNG, JPEG, GIF, PGM), brings it
// to the model's size and grey levels, and classifies it.
func (t *ImageTagger) ClassifyImage(b []byte, k int) (ImageResult, error) {
	px, err := frontend.DecodeImage(b, t.Input.Height, t.Input.Width)
	if err != nil {
		return ImageResult{}, err
	}
	res, err := t.Classify(blas32.General{Rows: 1, Cols: len(px), Stride: len(px), Data: px}, k)
	if err != nil {
		return ImageResult{}, err
	}
	return res[0], nil
}
