package plots

import (
	"fmt"
	"image/color"

	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one curve. Err, when set, gives a symmetric error bar per point.
// Reference series are drawn as points only: that is how a paper's numbers
// are overlaid on measured curves.
type Series struct {
	Name string
	X, Y []float64
	Err  []float64
	// Reference draws the series as markers without a line.
	Reference bool
	// Color is a 1-based palette index, so a reference series can share its
	// measured curve's colour; 0 picks the colour by position.
	Color int
}

func (s Series) color(i int) color.Color {
	if s.Color > 0 {
		return plotutil.Color(s.Color - 1)
	}
	return plotutil.Color(i)
}

// Chart describes a line chart.
type Chart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []Series
}

// size of every figure: wide enough for a legend beside six curves.
const width, height = 16 * vg.Centimeter, 11 * vg.Centimeter

// Save writes base.png and base.svg, creating the folder.
func save(p *plot.Plot, base string) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".png"), ".svg")
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(width, height, base+ext); err != nil {
			return fmt.Errorf("plots: %s%s: %w", base, ext, err)
		}
	}
	return nil
}

// Lines draws c to base.png and base.svg.
func Lines(base string, c Chart) error {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	// A log axis cannot place a value ≤ 0 (gonum/plot panics on one): a
	// test error of 0 % on a small set, say. That axis is then drawn linear
	// and its label says why, rather than losing the chart.
	if c.LogX && positive(c.Series, false) {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	} else if c.LogX {
		p.X.Label.Text += linearNote
	}
	if c.LogY && positive(c.Series, true) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	} else if c.LogY {
		p.Y.Label.Text += linearNote
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) || (s.Err != nil && len(s.Err) != len(s.Y)) {
			return fmt.Errorf("plots: series %q has %d x, %d y, %d err", s.Name, len(s.X), len(s.Y), len(s.Err))
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		col := s.color(i)
		if s.Reference {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.GlyphStyle.Color = col
			sc.GlyphStyle.Radius = vg.Points(4)
			sc.GlyphStyle.Shape = plotutil.Shape(i)
			p.Add(sc)
			p.Legend.Add(s.Name, sc)
			continue
		}
		line, marks, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color, marks.Color = col, col
		marks.Shape = plotutil.Shape(i)
		p.Add(line, marks)
		p.Legend.Add(s.Name, line, marks)
		if s.Err != nil {
			eb := make(errPoints, len(pts))
			for j := range pts {
				eb[j] = errPoint{pts[j].X, pts[j].Y, s.Err[j]}
			}
			bars, err := plotter.NewYErrorBars(eb)
			if err != nil {
				return err
			}
			bars.Color = col
			p.Add(bars)
		}
	}
	return save(p, base)
}

// linearNote ends the label of an axis asked to be logarithmic that holds
// a value ≤ 0.
const linearNote = " (linear: a value ≤ 0)"

// positive reports whether every x (or, with y, every y and the bottom of
// every error bar) of the series is above zero, as a log axis needs.
func positive(series []Series, y bool) bool {
	for _, s := range series {
		vals := s.X
		if y {
			vals = s.Y
		}
		for j, v := range vals {
			if !(v > 0) || (y && j < len(s.Err) && !(v-s.Err[j] > 0)) {
				return false
			}
		}
	}
	return true
}

type errPoint struct{ x, y, e float64 }
type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].e, e[i].e }

// Confusion draws a confusion matrix (rows: true class, columns: predicted),
// shaded by the fraction of each true class, with the counts written in.
func Confusion(base, title string, labels []string, counts [][]int) error {
	n := len(labels)
	if len(counts) != n {
		return fmt.Errorf("plots: %d labels but %d rows", n, len(counts))
	}
	g := grid{n: n, v: make([]float64, n*n)}
	for i, row := range counts {
		if len(row) != n {
			return fmt.Errorf("plots: row %d has %d columns, want %d", i, len(row), n)
		}
		sum := 0
		for _, c := range row {
			sum += c
		}
		for j, c := range row {
			if sum > 0 {
				// Row i is drawn at the top for i = 0, as tables read.
				g.v[(n-1-i)*n+j] = float64(c) / float64(sum)
			}
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "predicted"
	p.Y.Label.Text = "true"
	pal := moreland.SmoothBlueRed()
	pal.SetMin(0)
	pal.SetMax(1)
	hm := plotter.NewHeatMap(g, pal.Palette(64))
	p.Add(hm)
	var lbl plotter.XYLabels
	for i, row := range counts {
		for j, c := range row {
			if c == 0 {
				continue
			}
			lbl.XYs = append(lbl.XYs, plotter.XY{X: float64(j), Y: float64(n - 1 - i)})
			lbl.Labels = append(lbl.Labels, fmt.Sprint(c))
		}
	}
	if len(lbl.Labels) > 0 {
		l, err := plotter.NewLabels(lbl)
		if err != nil {
			return err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Color = color.Black
			l.TextStyle[i].XAlign = -0.5
			l.TextStyle[i].YAlign = -0.5
		}
		p.Add(l)
	}
	ticks := make([]plot.Tick, n)
	yticks := make([]plot.Tick, n)
	for i, s := range labels {
		ticks[i] = plot.Tick{Value: float64(i), Label: s}
		yticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: s}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Marker = plot.ConstantTicks(yticks)
	return save(p, base)
}

type grid struct {
	n int
	v []float64
}

func (g grid) Dims() (int, int)   { return g.n, g.n }
func (g grid) Z(c, r int) float64 { return g.v[r*g.n+c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) Min() float64       { return 0 }
func (g grid) Max() float64       { return 1 }

var _ plotter.GridXYZ = grid{}

// Scatter draws labelled points, coloured by group, e.g. an embedding whose
// points should order by a known parameter.
func Scatter(base string, c Chart) error {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Add(plotter.NewGrid())
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plots: series %q has %d x, %d y", s.Name, len(s.X), len(s.Y))
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		p.Add(sc)
		if s.Name != "" {
			p.Legend.Add(s.Name, sc)
		}
	}
	return save(p, base)
}
