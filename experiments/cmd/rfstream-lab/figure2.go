package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "figure2", Summary: "maxout paper Figure 2 analogue: maxout + PCA of one MNIST digit rotated through −90..90°", Eval: evalFigure2})
}

// evalFigure2 rotates one MNIST test digit through −90..90°, embeds the
// rotations with random maxout and projects them on their top two
// principal components; raw pixels go through the same PCA for contrast.
// The paper does this with 33 face images and reads the maxout embedding
// as ordered by viewing angle: a locally linear kernel keeps near angles
// near and lets far ones separate.
func evalFigure2(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval figure2", "[flags]", stderr)
	index := fs.Int("index", 0, "which MNIST test image to rotate")
	points := fs.Int("points", 37, "rotations, equally spaced from −90° to 90°")
	m := fs.Int("m", 10000, "maxout units")
	q := fs.Int("q", 12, "projections per unit")
	seed := fs.Uint64("seed", 1, "map seed")
	out := fs.String("out", "out/figure2", "base name of the plot files")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *points < 3 || *points%2 == 0 {
		return errors.New("--points must be odd and at least 3 (so 0° is among them)")
	}
	if err := defaults.EnsureMNIST(stderr); err != nil {
		return err
	}
	test, err := frontend.ReadIDXPair(filepath.Join(defaults.MNISTDir(), "t10k-images-idx3-ubyte"), filepath.Join(defaults.MNISTDir(), "t10k-labels-idx1-ubyte"))
	if err != nil {
		return err
	}
	if *index < 0 || *index >= test.N {
		return fmt.Errorf("--index %d: the test set has %d images", *index, test.N)
	}
	steps := (*points - 1) / 2
	rot, err := transforms.NewRotationGroup(transforms.RotationParams{ImageSize: transforms.ImageSize{Width: test.Width, Height: test.Height}, MaxDegrees: 90, Steps: steps})
	if err != nil {
		return err
	}
	angles, _ := rot.Elements()
	x := linalg.NewGeneral32(len(angles), rot.Dim())
	for i, a := range angles {
		rot.Apply(linalg.Row32(x, i), linalg.Row32(test.X, *index), a)
	}
	// Rows scaled to length one, as the MNIST models see their inputs.
	if err := frontend.NormalizeRows(x); err != nil {
		return err
	}
	mp, err := maxout.New(x.Cols, maxout.Params{M: *m, Q: *q}, *seed)
	if err != nil {
		return err
	}
	z := linalg.NewGeneral32(x.Rows, mp.OutDim())
	mp.Apply(z, x)

	deg := make([]float64, len(angles))
	for i, a := range angles {
		deg[i] = float64(a.(transforms.Angle))
	}
	var series []plots.Series
	fmt.Fprintf(stdout, "MNIST test image %d (label %d) rotated %d times from −90° to 90°; PCA to 2-D\n\n", *index, test.Labels[*index], len(angles))
	fmt.Fprintln(stdout, "input                      variance in 2 PCs   nearest 2-D neighbour is an adjacent angle   4 nearest 2-D = 4 nearest angles")
	for k, in := range []struct {
		name string
		x    blas32.General
	}{{fmt.Sprintf("maxout m=%d q=%d", *m, *q), z}, {"raw pixels", x}} {
		pc, explained := pca2(in.x)
		adj, kept := angleOrder(pc)
		fmt.Fprintf(stdout, "%-26s %6.1f %%             %3d of %d                                     %5.1f %%\n", in.name, 100*explained, adj, len(angles), 100*kept)
		xs, ys := make([]float64, len(pc)), make([]float64, len(pc))
		for i, p := range pc {
			xs[i], ys[i] = p[0], p[1]
		}
		series = append(series,
			plots.Series{Name: in.name, X: xs, Y: ys, Color: k + 1},
			plots.Series{Name: fmt.Sprintf("%.0f° (start)", deg[0]), X: xs[:1], Y: ys[:1], Reference: true, Color: k + 1})
	}
	if err := plots.Lines(*out, plots.Chart{Title: fmt.Sprintf("MNIST %d rotated −90°..90° in %d steps, joined in angle order: top 2 PCs", test.Labels[*index], len(angles)-1),
		XLabel: "PC 1 (unit RMS)", YLabel: "PC 2 (unit RMS)", Series: series}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s.png and %s.svg\n", *out, *out)
	return nil
}

// pca2 centres the rows and returns their coordinates on the top two
// principal components, scaled so the points have unit RMS distance from
// the centre, with the fraction of the variance those components hold.
func pca2(x blas32.General) ([][2]float64, float64) {
	n := x.Rows
	mean := make([]float64, x.Cols)
	for i := 0; i < n; i++ {
		for j, v := range linalg.Row32(x, i) {
			mean[j] += float64(v) / float64(n)
		}
	}
	// n×n Gram of the centred rows: n is small, the rows may be long.
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float64
			a, b := linalg.Row32(x, i), linalg.Row32(x, j)
			for k := range a {
				s += (float64(a[k]) - mean[k]) * (float64(b[k]) - mean[k])
			}
			g.SetSym(i, j, s)
		}
	}
	var eig mat.EigenSym
	eig.Factorize(g, true)
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	var total float64
	for _, v := range vals {
		total += math.Max(v, 0)
	}
	out := make([][2]float64, n)
	var rms float64
	for c := 0; c < 2; c++ {
		l := math.Sqrt(math.Max(vals[order[c]], 0))
		for i := 0; i < n; i++ {
			out[i][c] = l * vecs.At(i, order[c])
			rms += out[i][c] * out[i][c]
		}
	}
	rms = math.Sqrt(rms / float64(n))
	for i := range out {
		out[i][0] /= rms
		out[i][1] /= rms
	}
	return out, (vals[order[0]] + vals[order[1]]) / total
}

// angleOrder measures how well 2-D points keep the order they were made
// in: how many have an angle neighbour (the previous or next rotation) as
// their nearest point, and the fraction of each point's k nearest points
// that are among its k nearest angles (k = 4: two steps either side; ends
// have fewer), averaged over the points.
func angleOrder(p [][2]float64) (adjacent int, kept float64) {
	const k = 4
	d := func(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }
	for i := range p {
		others := make([]int, 0, len(p)-1)
		for j := range p {
			if j != i {
				others = append(others, j)
			}
		}
		sort.SliceStable(others, func(a, b int) bool { return d(p[i], p[others[a]]) < d(p[i], p[others[b]]) })
		if best := others[0]; best == i-1 || best == i+1 {
			adjacent++
		}
		// The k angle neighbours: the k other indices closest to i.
		byAngle := append([]int(nil), others...)
		sort.SliceStable(byAngle, func(a, b int) bool { return abs(byAngle[a]-i) < abs(byAngle[b]-i) })
		near := map[int]bool{}
		for _, j := range byAngle[:min(k, len(byAngle))] {
			near[j] = true
		}
		hits := 0
		for _, j := range others[:min(k, len(others))] {
			if near[j] {
				hits++
			}
		}
		kept += float64(hits) / float64(min(k, len(others)))
	}
	return adjacent, kept / float64(len(p))
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
