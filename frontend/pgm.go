package frontend

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// PGM (Netpbm grey map) comes in two forms: P5, a text header and then
// one byte per pixel, and P2, where the pixels too are decimal numbers
// separated by white space. Both may carry # comments in the header;
// only 8-bit maps (maximum ≤ 255) are read.

// isPGM tells a PGM from the other formats by its magic.
func isPGM(b []byte) bool {
	return bytes.HasPrefix(b, []byte("P5")) || bytes.HasPrefix(b, []byte("P2"))
}

// decodePGM reads a P5 or P2 PGM, its size checked against MaxImagePixels
// before the raster is allocated.
func decodePGM(b []byte) (*grey, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	w, h, maxv, err := pgmHeader(r)
	if err != nil {
		return nil, err
	}
	if w*h > MaxImagePixels {
		return nil, fmt.Errorf("frontend: image of %dx%d pixels is over the %d-pixel limit", w, h, MaxImagePixels)
	}
	g := &grey{h: h, w: w, v: make([]float32, w*h)}
	if b[1] == '2' {
		return g, readPlainPixels(r, g.v, maxv)
	}
	px := make([]byte, w*h)
	if n, _ := io.ReadFull(r, px); n != len(px) {
		return nil, fmt.Errorf("frontend: PGM truncated: %d of %d pixels", n, len(px))
	}
	for i, p := range px {
		// A sample above the declared maximum breaks the format; scaling it
		// would give a pixel brighter than white.
		if int(p) > maxv {
			return nil, fmt.Errorf("frontend: PGM pixel %d is %d, above the header's maximum %d", i, p, maxv)
		}
		g.v[i] = float32(p) / float32(maxv)
	}
	return g, nil
}

// readPlainPixels reads the decimal samples of a P2 map into v, scaled by
// maxv.
func readPlainPixels(r *bufio.Reader, v []float32, maxv int) error {
	for i := range v {
		s, err := pgmWord(r)
		if err == io.EOF {
			return fmt.Errorf("frontend: PGM truncated: %d of %d pixels", i, len(v))
		}
		if err != nil {
			return err
		}
		p, err := strconv.Atoi(s)
		if err != nil || p < 0 {
			return fmt.Errorf("frontend: PGM pixel %d is %q, not a sample", i, s)
		}
		if p > maxv {
			return fmt.Errorf("frontend: PGM pixel %d is %d, above the header's maximum %d", i, p, maxv)
		}
		v[i] = float32(p) / float32(maxv)
	}
	return nil
}

// maxPGMWord bounds one header field or plain sample: "65535" and a sign
// fit many times over, and a file of digits without end is refused early.
const maxPGMWord = 20

// pgmWord reads the next white-space separated word, skipping # comments
// that start where a word would.
func pgmWord(r *bufio.Reader) (string, error) {
	var s []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if len(s) > 0 && err == io.EOF {
				return string(s), nil
			}
			return "", err
		}
		if c == '#' && len(s) == 0 {
			if _, err := r.ReadString('\n'); err != nil {
				return "", err
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			if len(s) > 0 {
				return string(s), nil
			}
			continue
		}
		if len(s) == maxPGMWord {
			return "", fmt.Errorf("frontend: PGM field longer than %d bytes", maxPGMWord)
		}
		s = append(s, c)
	}
}

// pgmHeader reads an 8-bit PGM's header (P5 or P2), leaving r at its
// pixels.
func pgmHeader(r *bufio.Reader) (w, h, maxv int, err error) {
	if m, err := pgmWord(r); err != nil || (m != "P5" && m != "P2") {
		return 0, 0, 0, fmt.Errorf("frontend: not a PGM (P5 or P2)")
	}
	var fields []int
	for len(fields) < 3 {
		s, err := pgmWord(r)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("frontend: PGM header truncated")
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return 0, 0, 0, fmt.Errorf("frontend: PGM header field %q", s)
		}
		fields = append(fields, v)
	}
	w, h, maxv = fields[0], fields[1], fields[2]
	// Each side is bounded first so that w*h cannot overflow.
	if maxv > 255 || w > MaxImagePixels || h > MaxImagePixels {
		return 0, 0, 0, fmt.Errorf("frontend: PGM %dx%d with maximum %d (only 8-bit PGM)", w, h, maxv)
	}
	return w, h, maxv, nil
}
