package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "elss", Summary: "plain random features vs leverage-score selection (ELSS-1, ELSS-2) at equal m, MNIST and spoken digits",
		Eval: evalELSS})
}

// elssData is a labelled train/test split with its unlabelled pool of
// training inputs (all training rows: scores never see labels).
type elssData struct {
	name      string
	xtr, xte  blas32.General
	ytr, yte  []int
	classes   int
	labelRows string // "all" or "k/class"
}

// elssCell is one measured run.
type elssCell struct {
	err, scoreSec, scoreMB, trainSec, lambda float64
	distinct                                 int
}

func evalELSS(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval elss", "[flags]", stderr)
	imo := train.DefaultImageOptions()
	cli.ImageFlags(fs, &imo)
	var ws cli.WordSet
	cli.WordSetFlags(fs, &ws)
	sets := fs.String("data", "mnist,digits", "data sets: mnist, digits")
	maps := fs.String("maps", "fourier,maxout", "feature maps")
	ms := fs.String("ms", "100,200,500,1000,2000", "final numbers of features (empty: only the few-labels setting)")
	seeds := fs.Int("seeds", 5, "seeds per cell (map, selection and, with few labels, the labelled subset)")
	few := fs.String("few", "10,50", "also train on this many labels per class (MNIST; scores use all training inputs); empty: skip")
	fewMs := fs.String("few-ms", "100,500,2000", "numbers of features in the few-labels setting")
	pool := fs.Int("select-pool", 10, "pool = this many times m")
	n0 := fs.Int("select-n0", 2000, "unlabelled rows the scores are computed on")
	sigma := fs.Float64("sigma", 1, "Fourier bandwidth (inputs are unit length)")
	q := fs.Int("q", 4, "maxout projections per unit")
	trainN := fs.Int("train-n", 0, "use only this many (seeded-random) MNIST training rows (0: all), for quick runs")
	quick := fs.Bool("quick", false, "a small grid for development: m 100,500, 2 seeds, MNIST on 10000 rows, few labels 10")
	out := fs.String("out", "out/elss", "base name of the CSV and plot files")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *quick {
		*ms, *seeds, *few, *fewMs = "100,500", 2, "10", "100,500"
		if *trainN == 0 {
			*trainN = 10000
		}
	}
	var err error
	var mv []int // empty: only the few-labels tables
	if *ms != "" {
		if mv, err = parseInts(*ms); err != nil {
			return err
		}
	}
	var fewV, fewMv []int
	if *few != "" {
		if fewV, err = parseInts(*few); err != nil {
			return err
		}
		if fewMv, err = parseInts(*fewMs); err != nil {
			return err
		}
	}
	mapKinds := strings.Split(*maps, ",")
	var data []*elssData
	for _, s := range strings.Split(*sets, ",") {
		switch s {
		case "mnist":
			d, err := recipes.LoadImages(&imo, stderr, true)
			if err != nil {
				return err
			}
			trainSet, test := d.Train, d.Test
			if test == nil {
				return fmt.Errorf("eval elss: no MNIST test set")
			}
			xtr, ytr := trainSet.X, trainSet.Labels
			if *trainN > 0 && *trainN < trainSet.N {
				sub := train.PerClassSubset(trainSet, (*trainN+9)/10, 7)
				xtr, ytr = sub.X, sub.Labels
			}
			data = append(data, &elssData{name: "mnist", xtr: xtr, ytr: ytr, xte: test.X, yte: test.Labels, classes: train.NumClasses(trainSet.Labels, test.Labels), labelRows: "all"})
		case "digits":
			d, err := loadDigitsOfficial(ws, stderr)
			if err != nil {
				return err
			}
			data = append(data, d)
		default:
			return fmt.Errorf("eval elss: unknown data set %q (mnist, digits)", s)
		}
	}
	csvf, cw, err := createCSV(*out, []string{"data", "labels", "map", "method", "m", "seed", "test_error", "select_lambda", "distinct_features", "score_seconds", "score_mb", "train_seconds"})
	if err != nil {
		return err
	}
	defer csvf.Close()
	g := &elssGrid{pool: *pool, n0: *n0, sigma: *sigma, q: *q, seeds: *seeds, log: stderr, cw: cw}
	start := time.Now()
	// Every data set with all its labels first, then the few-labels settings.
	for _, d := range data {
		if len(mv) == 0 {
			break
		}
		if err := g.run(d, mapKinds, mv, stdout, *out); err != nil {
			return err
		}
	}
	for _, d := range data {
		if d.name != "mnist" {
			continue
		}
		for _, k := range fewV {
			fd := *d
			fd.labelRows = fmt.Sprintf("%d/class", k)
			g.few = k
			if err := g.run(&fd, mapKinds, fewMv, stdout, *out); err != nil {
				return err
			}
		}
		g.few = 0
	}
	fmt.Fprintf(stdout, "\nwrote %s.csv and one %s-<data>-<labels>.{png,svg} per table (%.0f s in all)\n", *out, *out, time.Since(start).Seconds())
	return cw.Error()
}

// loadDigitsOfficial reads the spoken digits' official split as word vectors.
func loadDigitsOfficial(ws cli.WordSet, log io.Writer) (*elssData, error) {
	splits, err := digitSplits(ws, "official")
	if err != nil {
		return nil, err
	}
	sp := splits[0]
	wc := frontend.DefaultWordConfig()
	labels := datasets.Labels(sp.train)
	idx := train.LabelIndex(labels)
	ytr, err := train.Indices(sp.train, idx)
	if err != nil {
		return nil, err
	}
	yte, err := train.Indices(sp.test, idx)
	if err != nil {
		return nil, err
	}
	xtr, err := train.WordVectors(sp.train, wc, train.Condition{}, log)
	if err != nil {
		return nil, err
	}
	xte, err := train.WordVectors(sp.test, wc, train.Condition{}, log)
	if err != nil {
		return nil, err
	}
	return &elssData{name: "digits", xtr: xtr, ytr: ytr, xte: xte, yte: yte, classes: len(labels), labelRows: "all"}, nil
}

type elssGrid struct {
	pool, n0, q, seeds int
	sigma              float64
	few                int // labels per class, 0: all
	log                io.Writer
	cw                 *csv.Writer
}

var elssMethods = []string{"plain", "elss1", "elss2"}

// run measures every map × m × method × seed on one data set and prints its
// table. The selection's λ is chosen on held-out training rows with the
// first seed and kept for the others.
func (g *elssGrid) run(d *elssData, kinds []string, ms []int, stdout io.Writer, out string) error {
	fmt.Fprintf(stdout, "\n%s, labels: %s of %d training rows (all of them unlabelled inputs for the scores), %d test; test error %% mean ± std over %d seeds; pool %d×m, scores on %d rows\n",
		d.name, d.labelRows, d.xtr.Rows, d.xte.Rows, g.seeds, g.pool, min(g.n0, d.xtr.Rows))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "map\tm\t")
	for _, me := range elssMethods {
		fmt.Fprintf(tw, "%s\t", me)
	}
	fmt.Fprintln(tw, "λ elss1\tλ elss2\tscore s\tscore MiB\ttrain s\t")
	var series []plots.Series
	if g.few > 0 {
		raw, err := g.rawBaseline(d)
		if err != nil {
			return err
		}
		mean, std := meanStd(raw)
		fmt.Fprintf(tw, "RLS on raw inputs\t%d\t%.2f ± %.2f\t\t\t\t\t\t\t\t\n", d.xtr.Cols, mean, std)
		var xs, ys []float64
		for _, m := range ms {
			xs, ys = append(xs, float64(m)), append(ys, mean)
		}
		series = append(series, plots.Series{Name: "RLS on raw inputs", X: xs, Y: ys, Color: 7})
	}
	for ki, kind := range kinds {
		curves := map[string]*plots.Series{}
		for mi, me := range elssMethods {
			curves[me] = &plots.Series{Name: kind + " " + me, Color: 1 + ki*3 + mi}
		}
		for _, m := range ms {
			fmt.Fprintf(tw, "%s\t%d\t", kind, m)
			lambdas := map[string]float64{}
			var scoreSec, scoreMB, trainSec []float64
			for _, me := range elssMethods {
				var errs []float64
				for s := 1; s <= g.seeds; s++ {
					c, err := g.cell(d, kind, me, m, uint64(s), lambdas[me])
					if err != nil {
						return err
					}
					if s == 1 {
						lambdas[me] = c.lambda
					}
					errs = append(errs, 100*c.err)
					if me != "plain" {
						scoreSec, scoreMB = append(scoreSec, c.scoreSec), append(scoreMB, c.scoreMB)
					} else {
						trainSec = append(trainSec, c.trainSec)
					}
					g.cw.Write([]string{d.name, d.labelRows, kind, me, fmt.Sprint(m), fmt.Sprint(s), fmt.Sprintf("%.5f", c.err),
						fmt.Sprintf("%g", c.lambda), fmt.Sprint(c.distinct), fmt.Sprintf("%.2f", c.scoreSec), fmt.Sprintf("%.1f", c.scoreMB), fmt.Sprintf("%.2f", c.trainSec)})
					g.cw.Flush()
				}
				mean, std := meanStd(errs)
				fmt.Fprintf(tw, "%.2f ± %.2f\t", mean, std)
				cv := curves[me]
				cv.X, cv.Y, cv.Err = append(cv.X, float64(m)), append(cv.Y, mean), append(cv.Err, std)
				fmt.Fprintf(g.log, "%s %s %s %s m=%d: %.2f ± %.2f\n", d.name, d.labelRows, kind, me, m, mean, std)
			}
			ss, _ := meanStd(scoreSec)
			sm, _ := meanStd(scoreMB)
			ts, _ := meanStd(trainSec)
			fmt.Fprintf(tw, "%g\t%g\t%.1f\t%.0f\t%.1f\t\n", lambdas["elss1"], lambdas["elss2"], ss, sm, ts)
		}
		for _, me := range elssMethods {
			series = append(series, *curves[me])
		}
	}
	tw.Flush()
	fmt.Fprintln(stdout, "(λ: the selection's, relative to the mean diagonal of the pool's Gram, chosen on held-out training rows with seed 1; score s: scoring incl. that search on seed 1, mean over ELSS runs; train s: plain map's features + Gram + ridge search + solve)")
	base := fmt.Sprintf("%s-%s-%s", out, d.name, strings.ReplaceAll(d.labelRows, "/class", "perclass"))
	return plots.Lines(base, plots.Chart{Title: fmt.Sprintf("%s, labels: %s: plain vs leverage-selected features", d.name, d.labelRows),
		XLabel: "m (features)", YLabel: "test error %", LogX: true, LogY: true, Series: series})
}

// labelled returns the rows a seed trains on: all, or k per class.
func (g *elssGrid) labelled(d *elssData, seed uint64) (blas32.General, []int) {
	if g.few == 0 {
		return d.xtr, d.ytr
	}
	im := &frontend.LabelledImages{Images: &frontend.Images{N: d.xtr.Rows, X: d.xtr}, Labels: d.ytr}
	sub := train.PerClassSubset(im, g.few, seed)
	return sub.X, sub.Labels
}

func (g *elssGrid) rawBaseline(d *elssData) ([]float64, error) {
	var errs []float64
	for s := 1; s <= g.seeds; s++ {
		x, y := g.labelled(d, uint64(s))
		id := features.NewIdentity(x.Cols)
		rls, _, err := classifier.FitRLS(id, x, y, d.classes, classifier.FitOptions{Seed: uint64(s)})
		if err != nil {
			return nil, err
		}
		errs = append(errs, 100*classifier.ErrorRate(classifier.Predict(id, rls, d.xte, 0), d.yte))
	}
	return errs, nil
}

// cell trains and tests one configuration; lambda 0 searches the
// selection's λ.
func (g *elssGrid) cell(d *elssData, kind, method string, m int, seed uint64, lambda float64) (elssCell, error) {
	mo := train.DefaultMapOptions(kind, m)
	mo.Q, mo.Sigma, mo.Seed = g.q, g.sigma, seed
	base, err := mo.Recipe(d.xtr.Cols)
	if err != nil {
		return elssCell{}, err
	}
	x, y := g.labelled(d, seed)
	var c elssCell
	var fm features.Map
	if method == "plain" {
		if fm, err = features.Build(base); err != nil {
			return c, err
		}
	} else {
		alg := elss.Sample
		if method == "elss2" {
			alg = elss.Top
		}
		mp, rep, err := train.SelectFeatures(base, d.xtr, x, y, d.classes, train.SelectOptions{
			Config: elss.Config{Algorithm: alg, Pool: g.pool, Lambda: lambda}, N0: g.n0, Seed: seed})
		if err != nil {
			return c, err
		}
		fm = mp
		c.scoreSec, c.scoreMB, c.lambda, c.distinct = rep.Seconds, float64(rep.ScoreBytes)/(1<<20), rep.Lambda, rep.DistinctKept
	}
	start := time.Now()
	rls, _, err := classifier.FitRLS(fm, x, y, d.classes, classifier.FitOptions{Seed: seed})
	if err != nil {
		return c, err
	}
	c.trainSec = time.Since(start).Seconds()
	c.err = classifier.ErrorRate(classifier.Predict(fm, rls, d.xte, 0), d.yte)
	if c.distinct == 0 {
		c.distinct = fm.OutDim()
	}
	return c, nil
}
