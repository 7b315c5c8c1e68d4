package frontend

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // registered decoders: the tagger accepts what browsers send
	_ "image/jpeg"
	_ "image/png"
)

// MaxImagePixels bounds the pixels of an image to decode, checked from its
// header before any pixel is decoded (CheckImageSize), so a small file that
// claims a huge image costs nothing: a 40 KB PNG of 6400×6400 once took
// 0.4 s and 50 MB to decode. 4 Mi pixels still takes a 2560×1600 picture.
// The tagger stage and rfstream tag share it.
const MaxImagePixels = 4 << 20

// CheckImageSize reads an encoded image's size from its header (PNG, JPEG,
// GIF, PGM) and refuses one of more than MaxImagePixels pixels, or
// a header it cannot read, without decoding the pixels.
func CheckImageSize(b []byte) error {
	var w, h int
	if isPGM(b) {
		var err error
		if w, h, _, err = pgmHeader(bufio.NewReader(bytes.NewReader(b))); err != nil {
			return err
		}
	} else {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("frontend: not an image this tagger reads (PNG, JPEG, GIF, PGM): %w", err)
		}
		w, h = cfg.Width, cfg.Height
	}
	// Each side is bounded first so that w*h cannot overflow.
	if w < 1 || h < 1 || w > MaxImagePixels || h > MaxImagePixels || w*h > MaxImagePixels {
		return fmt.Errorf("frontend: image of %dx%d pixels is over the %d-pixel limit", w, h, MaxImagePixels)
	}
	return nil
}

// DecodeImage decodes a PNG, JPEG, GIF or PGM (binary P5 or plain P2)
// image to a grey-level h×w raster in [0, 1], row-major, by
// area-averaging (or bilinear sampling when enlarging). Colour is
// converted with Rec. 601 luma weights; a transparent pixel is composed
// over white, as a page shows it.
func DecodeImage(b []byte, h, w int) ([]float32, error) {
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("frontend: target size %dx%d", h, w)
	}
	var g *grey
	var err error
	if isPGM(b) {
		g, err = decodePGM(b)
	} else {
		g, err = decodeStd(b)
	}
	if err != nil {
		return nil, err
	}
	return g.resize(h, w), nil
}

type grey struct {
	h, w int
	v    []float32
}

func decodeStd(b []byte) (*grey, error) {
	if err := CheckImageSize(b); err != nil {
		return nil, err
	}
	im, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("frontend: decoding image: %w", err)
	}
	r := im.Bounds()
	g := &grey{h: r.Dy(), w: r.Dx(), v: make([]float32, r.Dx()*r.Dy())}
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			// The channels are premultiplied by alpha: what is missing of
			// alpha is the white showing through.
			cr, cg, cb, ca := im.At(r.Min.X+x, r.Min.Y+y).RGBA()
			luma := 0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)
			g.v[y*g.w+x] = float32(min((luma+float64(65535-ca))/65535, 1))
		}
	}
	return g, nil
}

// resize maps the raster onto h×w: each target pixel averages the source
// area it covers, which for shrinking is the right anti-aliasing and for
// enlarging reduces to nearest-neighbour sampling.
func (g *grey) resize(h, w int) []float32 {
	out := make([]float32, h*w)
	if g.h == h && g.w == w {
		copy(out, g.v)
		return out
	}
	sy, sx := float64(g.h)/float64(h), float64(g.w)/float64(w)
	for y := 0; y < h; y++ {
		y0, y1 := float64(y)*sy, float64(y+1)*sy
		for x := 0; x < w; x++ {
			x0, x1 := float64(x)*sx, float64(x+1)*sx
			var sum, area float64
			for yy := int(y0); yy < g.h && float64(yy) < y1; yy++ {
				fy := min(y1, float64(yy+1)) - max(y0, float64(yy))
				for xx := int(x0); xx < g.w && float64(xx) < x1; xx++ {
					fx := min(x1, float64(xx+1)) - max(x0, float64(xx))
					sum += fx * fy * float64(g.v[yy*g.w+xx])
					area += fx * fy
				}
			}
			if area > 0 {
				out[y*w+x] = float32(sum / area)
			}
		}
	}
	return out
}
