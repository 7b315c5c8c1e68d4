package frontend

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// A plain PGM (P2), with comments and ragged white space, decodes to the
// same raster as the binary PGM (P5) of the same samples.
func TestPlainPGMEqualsBinary(t *testing.T) {
	samples := []byte{0, 10, 200, 255, 17, 99}
	p5 := append([]byte("P5\n# made by a test\n3 2\n255\n"), samples...)
	var p2 strings.Builder
	p2.WriteString("P2\n# a comment\n3   2\n255\n")
	for i, s := range samples {
		fmt.Fprintf(&p2, "%d", s)
		if i%2 == 0 {
			p2.WriteString("\t")
		} else {
			p2.WriteString("\n")
		}
	}
	a, err := DecodeImage(p5, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeImage([]byte(p2.String()), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] || a[i] != float32(samples[i])/255 {
			t.Fatalf("pixel %d: P5 %v, P2 %v, want %v", i, a[i], b[i], float32(samples[i])/255)
		}
	}
	if err := CheckImageSize([]byte(p2.String())); err != nil {
		t.Fatalf("plain PGM's size refused: %v", err)
	}
}

// Broken plain maps are refused with the reason: too few samples, a word
// that is no number, a sample above the maximum, an endless number.
func TestPlainPGMRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"P2 2 2 255 1 2 3", "truncated"},
		{"P2 2 1 255 1 x", "not a sample"},
		{"P2 2 1 15 1 16", "above the header's maximum"},
		{"P2 1 1 255 " + strings.Repeat("9", 100), "longer than"},
		{"P2 1 1 256 1", "only 8-bit"},
		{"P3 1 1 255 1", "not an image"},
	} {
		if _, err := DecodeImage([]byte(c.in), 1, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.in, err, c.want)
		}
	}
}

func FuzzDecodePGM(f *testing.F) {
	f.Add([]byte("P2\n2 1\n255\n0 255\n"))
	f.Add(append([]byte("P5 2 1 7\n"), 0, 7))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !isPGM(b) {
			return
		}
		g, err := decodePGM(b)
		if err != nil {
			return
		}
		if g.w*g.h != len(g.v) || g.w*g.h > MaxImagePixels {
			t.Fatalf("%dx%d raster of %d values", g.w, g.h, len(g.v))
		}
		for _, p := range g.v {
			if p < 0 || p > 1 || math.IsNaN(float64(p)) {
				t.Fatalf("pixel %v outside [0,1]", p)
			}
		}
	})
}
