package plots

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func checkFiles(t *testing.T, base string) {
	t.Helper()
	png, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, pngMagic) || len(png) < 1000 {
		t.Fatalf("%s.png is not a plausible PNG (%d bytes)", base, len(png))
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) {
		t.Fatalf("%s.svg has no <svg element", base)
	}
}

func TestLinesWritesBothFormats(t *testing.T) {
	base := filepath.Join(t.TempDir(), "sub", "curve")
	err := Lines(base, Chart{Title: "t", XLabel: "m", YLabel: "error %", LogX: true, Series: []Series{
		{Name: "ours", X: []float64{100, 1000, 10000}, Y: []float64{10, 5, 2}, Err: []float64{1, 0.5, 0.1}},
		{Name: "paper", X: []float64{100, 1000, 10000}, Y: []float64{11, 5.5, 2.2}, Reference: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, base)
	if err := Lines(base, Chart{Series: []Series{{X: []float64{1}, Y: nil}}}); err == nil {
		t.Fatal("mismatched series lengths accepted")
	}
}

// A log axis asked for values it cannot place (0, or an error bar reaching
// below 0) is drawn linear, and its label says so, instead of panicking.
func TestLinesLogAxisWithValuesAtOrBelowZero(t *testing.T) {
	for name, s := range map[string]Series{
		"zero":          {Name: "ours", X: []float64{10, 100}, Y: []float64{0, 1.5}},
		"bar below one": {Name: "ours", X: []float64{10, 100}, Y: []float64{0.5, 1.5}, Err: []float64{0.6, 0.1}},
	} {
		base := filepath.Join(t.TempDir(), "log")
		if err := Lines(base, Chart{YLabel: "test error %", LogX: true, LogY: true, Series: []Series{s}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkFiles(t, base)
		svg, err := os.ReadFile(base + ".svg")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte("linear: a value")) {
			t.Errorf("%s: the y label does not say the axis is linear", name)
		}
	}
}

func TestConfusion(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cm")
	if err := Confusion(base, "cm", []string{"a", "b"}, [][]int{{9, 1}, {2, 8}}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, base)
	if err := Confusion(base, "cm", []string{"a", "b"}, [][]int{{9, 1}}); err == nil {
		t.Fatal("ragged matrix accepted")
	}
}

func TestScatter(t *testing.T) {
	base := filepath.Join(t.TempDir(), "sc")
	if err := Scatter(base, Chart{Series: []Series{{Name: "q=8", X: []float64{0, 1, 2}, Y: []float64{0, 1, 1.5}}}}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, base)
}
