package frontend

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
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

// MaxImageDecodedBytes bounds the bytes an image decodes to, read from
// its header with the pixels (decodedBytes): a pixel bound alone let a
// 38 KB PNG of 2048×2048 16-bit RGBA pixels decode to 32 MiB (80 MB
// allocated in all, with the interfaces At boxed), four times an 8-bit
// grey image of the same size. 16 MiB still takes a 2560×1600 RGBA PNG
// or JPEG photograph; the grey raster DecodeImage works on adds 4 bytes a
// pixel at most.
const MaxImageDecodedBytes = 16 << 20

// CheckImageSize reads an encoded image's size from its header (PNG, JPEG,
// GIF, PGM) and refuses one of more than MaxImagePixels pixels or
// MaxImageDecodedBytes decoded bytes, or a header it cannot read, without
// decoding the pixels.
func CheckImageSize(b []byte) error {
	var w, h, depth int
	if isPGM(b) {
		var err error
		var maxv int
		if w, h, maxv, err = pgmHeader(bufio.NewReader(bytes.NewReader(b))); err != nil {
			return err
		}
		depth = 1
		if maxv > 255 {
			depth = 2
		}
	} else {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("frontend: not an image this tagger reads (PNG, JPEG, GIF, PGM): %w", err)
		}
		w, h, depth = cfg.Width, cfg.Height, decodedPixelBytes(cfg.ColorModel)
		switch {
		case isInterlacedPNG(b):
			// image/png decodes each of Adam7's seven passes into an image
			// of its own before it copies them into the whole.
			depth *= 2
		case isProgressiveJPEG(b):
			// image/jpeg keeps a progressive JPEG's coefficients, 4 bytes
			// a pixel for each component (as many as the model's bytes),
			// until its last scan.
			depth *= 5
		}
	}
	// Each side is bounded first so that w*h cannot overflow.
	if w < 1 || h < 1 || w > MaxImagePixels || h > MaxImagePixels || w*h > MaxImagePixels {
		return fmt.Errorf("frontend: image of %dx%d pixels is over the %d-pixel limit", w, h, MaxImagePixels)
	}
	if n := w * h * depth; n > MaxImageDecodedBytes {
		return fmt.Errorf("frontend: image of %dx%d pixels at %d bytes a pixel decodes to %d bytes, over the %d-byte limit (send it with 8 bits a channel, or smaller)", w, h, depth, n, MaxImageDecodedBytes)
	}
	return nil
}

// decodedPixelBytes is what one pixel of the colour model takes decoded by the
// standard library's decoders; a JPEG's YCbCr counts 3, its most (4:4:4).
func decodedPixelBytes(m color.Model) int {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4 // RGBA, NRGBA, CMYK, NYCbCrA (4 or 5), and anything else
}

// isProgressiveJPEG reports whether b is a JPEG whose frame header (the
// first SOF marker, found by walking the segments before it) is a
// progressive one.
func isProgressiveJPEG(b []byte) bool {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return false
	}
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return false
		}
		switch m := b[i+1]; {
		case m == 0xFF: // a fill byte before the marker
			i++
			continue
		case m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE:
			return true
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC, m == 0xDA, m == 0xD9:
			return false // another frame type, or scans with no frame before them
		case m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			i += 2 // markers without a length
			continue
		}
		i += 2 + (int(b[i+2])<<8 | int(b[i+3]))
	}
	return false
}

// isInterlacedPNG reports whether b is a PNG whose header says Adam7
// interlacing (IHDR's interlace byte, the file's 29th).
func isInterlacedPNG(b []byte) bool {
	return len(b) > 28 && bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) && string(b[12:16]) == "IHDR" && b[28] == 1
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
	read := pixelReader(im)
	g := &grey{h: r.Dy(), w: r.Dx(), v: make([]float32, r.Dx()*r.Dy())}
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			// The channels are premultiplied by alpha: what is missing of
			// alpha is the white showing through.
			cr, cg, cb, ca := read(r.Min.X+x, r.Min.Y+y)
			luma := 0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)
			g.v[y*g.w+x] = float32(min((luma+float64(65535-ca))/65535, 1))
		}
	}
	return g, nil
}

// pixelReader reads pixels through RGBA64At where the image has it (every
// standard decoder's does), which returns a struct: At returns an
// interface, and boxing each pixel's colour allocated as many bytes again
// as the image holds.
func pixelReader(im image.Image) func(x, y int) (r, g, b, a uint32) {
	if im64, ok := im.(image.RGBA64Image); ok {
		return func(x, y int) (r, g, b, a uint32) {
			c := im64.RGBA64At(x, y)
			return uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A)
		}
	}
	return func(x, y int) (r, g, b, a uint32) { return im.At(x, y).RGBA() }
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
