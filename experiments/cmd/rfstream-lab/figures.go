package main

import (
	"fmt"
	"io"
	"math"

	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/maxout"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "figure1", Summary: "maxout paper Figure 1: embedded vs input distance on the unit circle", Eval: evalFigure1})
}

// evalFigure1 embeds points on the unit circle with random maxout maps and
// plots, for every pair, the distance between the embeddings against the
// distance between the points: linear for near pairs, saturating sooner for
// larger q.
func evalFigure1(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval figure1", "[flags]", stderr)
	n := fs.Int("points", 100, "points on the unit circle")
	m := fs.Int("m", 1000, "maxout units")
	seed := fs.Uint64("seed", 1, "map seed")
	out := fs.String("out", "out/figure1", "base name of the plot files")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	x := linalg.NewGeneral32(*n, 2)
	for i := 0; i < *n; i++ {
		a := 2 * math.Pi * float64(i) / float64(*n)
		x.Data[2*i], x.Data[2*i+1] = float32(math.Cos(a)), float32(math.Sin(a))
	}
	var series []plots.Series
	fmt.Fprintln(stdout, "q   slope near 0   embedded distance at input distance 2 (antipodes)")
	for qi, q := range []int{8, 32} {
		mp, err := maxout.New(2, maxout.Params{M: *m, Q: q}, *seed)
		if err != nil {
			return err
		}
		z := linalg.NewGeneral32(*n, *m)
		mp.Apply(z, x)
		var xs, ys []float64
		var nearSlope, nearN, far float64
		for i := 0; i < *n; i++ {
			for j := i + 1; j < *n; j++ {
				din := dist32(linalg.Row32(x, i), linalg.Row32(x, j))
				dout := dist32(linalg.Row32(z, i), linalg.Row32(z, j))
				xs, ys = append(xs, din), append(ys, dout)
				if din < 0.2 {
					nearSlope += dout / din
					nearN++
				}
				if j-i == *n/2 {
					far = dout
				}
			}
		}
		fmt.Fprintf(stdout, "%-3d %-14.3f %.3f\n", q, nearSlope/nearN, far)
		series = append(series, plots.Series{Name: fmt.Sprintf("q=%d", q), X: xs, Y: ys, Color: qi + 1})
	}
	if err := plots.Scatter(*out, plots.Chart{Title: fmt.Sprintf("random maxout, m=%d: %d points on the unit circle", *m, *n),
		XLabel: "input distance ‖x−z‖", YLabel: "embedded distance ‖Φ(x)−Φ(z)‖", Series: series}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s.png and %s.svg\n", *out, *out)
	return nil
}

func dist32(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return math.Sqrt(s)
}
