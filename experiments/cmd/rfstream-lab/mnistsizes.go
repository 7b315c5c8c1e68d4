package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/experiments/counttable"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "mnist-sizes", Summary: "MNIST accuracy against labelled examples per class: the invariant map against raw pixels, maxout and Fourier of equal dimension",
		Eval: evalMNISTSizes})
}

// testBlock is how many test rows mnist-sizes maps at a time when scoring:
// 200 MB of features at 49 500 features, and a multiple of the invariant
// map's 512-row tiles.
const testBlock = 1024

type sizesRow struct {
	Map      string `json:"map"`
	PerClass int    `json:"per_class"`
	// SubsetSeed is the seed that drew this row's training subset.
	SubsetSeed uint64  `json:"subset_seed"`
	TrainN     int     `json:"train_n"`
	Features   int     `json:"features"`
	Lambda     float64 `json:"lambda"`
	// LambdaTrials are the λ tried and their held-out or leave-one-out
	// errors, so the choice can be checked.
	LambdaTrials []classifier.LambdaTrial `json:"lambda_trials"`
	Accuracy     float64                  `json:"accuracy"`
	TrainSecs    float64                  `json:"train_seconds"`
	// LambdaPath, with --lambda-path, is the test accuracy of the model
	// refitted at each λ of the path: what every fixed choice of λ would
	// have scored on this draw.
	LambdaPath []pathScore `json:"lambda_path,omitempty"`
}

// pathScore is one λ of a draw's λ path and its test accuracy.
type pathScore struct {
	Relative float64 `json:"relative"`
	Lambda   float64 `json:"lambda"`
	Accuracy float64 `json:"accuracy"`
}

// evalMNISTSizes is the sample-complexity experiment of the invariant
// features paper: RLS trained on N labelled examples per class, tested on
// the whole test set, for the invariant map and for non-invariant maps with
// the same number of features. Data templates come from the whole training
// image file with its labels unread, so every size uses the same map.
func evalMNISTSizes(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval mnist-sizes", "[flags]", stderr)
	mf := train.DefaultMapOptions(invariant.Kind, 1000)
	imo := train.DefaultImageOptions()
	cli.MapFlags(fs, &mf)
	cli.ImageFlags(fs, &imo)
	sizes := fs.String("sizes", "10,50,100,500,1000", "labelled training examples per class")
	maps := fs.String("maps", "invariant,identity,maxout,fourier", "maps to compare; maxout (q = --q) and fourier get the invariant map's feature count")
	draws := fs.Int("draws", 1, "training subsets drawn per size (subset seeds --subset-seed, +1, …); the table shows their mean ± std, as the paper averages over training draws")
	out := fs.String("out", "out/mnist-invariant", "base name of the CSV and plot files")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	exactCounts := fs.Bool("exact-counts", true, "invariant map: form the kernel from its integer CDF counts (exact float32 chunks, about 1.6× faster than float64 products, whose last bits differ); =false gives the float64 kernel of rounds 1–7")
	tabulate := fs.Bool("table", true, "map every training and test image once and fit each draw from those features, when that maps fewer images than mapping each fit's own would (maps whose features are counts, e.g. the invariant map): the same models, bit for bit; =false always maps each fit's images")
	resume := fs.Bool("resume", false, "continue an interrupted run from its journal (--out plus .rows.jsonl, written as each fit ends): fits already in it are not made again; refused if the journal was made with other settings (more --draws, --sizes or --maps are allowed)")
	lambdaPath := fs.String("lambda-path", "", "also score the test set at each of these λ (relative to the mean diagonal, scaled as the chosen λ is; e.g. 1e-8,1e-7,…,1e-2), refitted from the same kernel, and record them with each row; the chosen λ and its model are unchanged")
	lambdaGrid := fs.String("lambda-grid", "", "the λ to choose from, relative to the mean diagonal (default 1e-6,1e-5,…,1e-1 by decades; with --lambda-by loo, half decades from 1e-8); one value fixes the relative λ")
	lambdaBy := fs.String("lambda-by", "holdout", "how λ is chosen for every map: holdout (10 % of the training rows, then a refit on all) or loo (exact leave-one-out over all training rows, half-decade grid, as GURLS does)")
	// Defaults: the configuration chosen on held-out training rows (experiments/journal/results.md).
	for name, v := range map[string]string{"templates": invariant.Data, "center": "true", "s": "1", "bins": "4", "g": "20", "m": "500"} {
		if err := fs.Set(name, v); err != nil {
			return err
		}
		fs.Lookup(name).DefValue = v
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if err := mf.RefuseSelect("mnist-sizes"); err != nil {
		return err
	}
	sv, err := parseInts(*sizes)
	if err != nil {
		return err
	}
	var loo bool
	switch *lambdaBy {
	case "holdout":
	case "loo":
		loo = true
	default:
		return fmt.Errorf("--lambda-by %q: want holdout or loo", *lambdaBy)
	}
	pathGrid, err := parseRelativeLambdas("--lambda-path", *lambdaPath)
	if err != nil {
		return err
	}
	searchGrid, err := parseRelativeLambdas("--lambda-grid", *lambdaGrid)
	if err != nil {
		return err
	}
	if *draws < 1 {
		return fmt.Errorf("--draws %d: need at least one training draw", *draws)
	}
	if imo.PerClass != 0 {
		return fmt.Errorf("give the sizes with --sizes, not --per-class")
	}
	d, err := recipes.LoadImages(&imo, stderr, true)
	if err != nil {
		return err
	}
	full, test := d.Train, d.Test
	if test == nil {
		return fmt.Errorf("mnist-sizes needs a test set")
	}
	if mf.Kind != invariant.Kind {
		return fmt.Errorf("mnist-sizes compares the invariant map with others: leave --map at invariant")
	}
	if mf, err = imo.MapFor(mf, d); err != nil {
		return err
	}
	inv, err := mf.Recipe(full.X.Cols)
	if err != nil {
		return err
	}
	var ip invariant.Params
	if err := features.UnmarshalParams(inv, &ip); err != nil {
		return err
	}
	dim := ip.M * (2*ip.N + 1)
	recipes := map[string]features.Recipe{}
	var order []string
	for _, k := range strings.Split(*maps, ",") {
		k = strings.TrimSpace(k)
		r := features.Recipe{Kind: k, In: full.X.Cols, Seed: mf.Seed}
		switch k {
		case invariant.Kind:
			r = inv
		case "identity", "raw":
			r.Kind, k = "identity", "identity"
		case maxout.Kind:
			r.Params = features.MarshalParams(maxout.Params{M: dim, Q: mf.Q})
		case features.FourierKind:
			sigma := mf.Sigma
			if sigma == 0 {
				sigma = 1
			}
			r.Params = features.MarshalParams(features.FourierParams{M: dim, Sigma: sigma})
		default:
			return fmt.Errorf("unknown map %q in --maps (invariant, identity, maxout, fourier)", k)
		}
		recipes[k] = r
		order = append(order, k)
	}
	label := map[string]string{
		invariant.Kind:       fmt.Sprintf("invariant (%s)", strings.TrimPrefix(mf.Label(nil), "invariant ")),
		"identity":           "raw pixels (784)",
		maxout.Kind:          fmt.Sprintf("maxout m=%d q=%d", dim, mf.Q),
		features.FourierKind: fmt.Sprintf("fourier m=%d", dim),
	}
	prep := "unit-length pixel rows"
	if imo.Deskew {
		prep = "deskewed, unit-length pixel rows (every map)"
	}
	choice, selection := "λ from 10 % of the training rows", "held-out"
	if loo {
		choice, selection = "λ by leave-one-out over all training rows", "leave-one-out"
	}
	fmt.Fprintf(stdout, "MNIST, RLS (%s), test on all %d test images, %s; invariant map: %s, rotations ±%g°, shifts ±%g px, %d features\n\n",
		choice, test.N, prep, mf.Label(nil), imo.Degrees, imo.Shift, dim)

	f, cw, err := createCSV(*out, []string{"map", "per_class", "subset_seed", "train_n", "features", "lambda", "accuracy", "train_seconds"})
	if err != nil {
		return err
	}
	defer f.Close()
	journal, err := openSizesJournal(*out+".rows.jsonl", fs, *resume, stderr)
	if err != nil {
		return err
	}
	defer journal.Close()
	var rows []sizesRow
	// Map by map. Every model scores the test set through the map block by
	// block: keeping the test features whole would save ~20 s a fit but hold
	// 2 GB (10 000 × 49 500 float32) beside the fit's own matrices.
	for _, k := range order {
		fm, err := features.Build(recipes[k])
		if err != nil {
			return err
		}
		var pending []int
		for _, n := range sv {
			for d := 0; d < *draws; d++ {
				if _, ok := journal.done[fitKey{k, n, imo.SubsetSeed + uint64(d)}]; !ok {
					pending = append(pending, n)
				}
			}
		}
		tables, err := tabulateImages(fm, *tabulate && tablePays(full, test.N, pending), full, test, stderr)
		if err != nil {
			return err
		}
		for _, n := range sv {
			for d := 0; d < *draws; d++ {
				seed := imo.SubsetSeed + uint64(d)
				if r, ok := journal.done[fitKey{k, n, seed}]; ok {
					rows = append(rows, r)
					writeSizesRow(cw, r)
					fmt.Fprintf(stderr, "%s, %d per class, subset seed %d: accuracy %.2f%% (from the journal)\n", k, n, seed, 100*r.Accuracy)
					continue
				}
				picked := train.PerClassRows(full.Labels, n, seed)
				labels := make([]int, len(picked))
				for j, i := range picked {
					labels[j] = full.Labels[i]
				}
				// With the table a draw is its row numbers: no pixels are copied.
				var fitMap, testMap features.Map = fm, fm
				var fitX, testX blas32.General
				if tables != nil {
					fitMap, fitX, testMap, testX = tables.train, counttable.Input(picked), tables.test, counttable.Input(tables.testRows)
				} else {
					fitX, testX = train.GatherImages(full, picked).X, test.X
				}
				start := time.Now()
				opt := classifier.FitOptions{Seed: mf.Seed, Float64Gram: true, ExactCounts: *exactCounts, LeaveOneOut: loo, Grid: searchGrid}
				var path []pathScore
				var fitted time.Time // when the chosen model was ready: the path comes after it
				if len(pathGrid) > 0 {
					opt.PathGrid = pathGrid
					opt.Path = func(p classifier.PathPoint, r *classifier.RLS) error {
						if fitted.IsZero() {
							fitted = time.Now()
						}
						acc := 1 - classifier.ErrorRate(classifier.Predict(testMap, r, testX, testBlock), test.Labels)
						path = append(path, pathScore{Relative: p.Relative, Lambda: p.Lambda, Accuracy: acc})
						return nil
					}
				}
				rls, rep, err := classifier.FitRLS(fitMap, fitX, labels, train.NumClasses(labels, test.Labels), opt)
				if err != nil {
					return fmt.Errorf("%s, %d per class, subset seed %d: %w", k, n, seed, err)
				}
				if fitted.IsZero() {
					fitted = time.Now()
				}
				secs := fitted.Sub(start).Seconds()
				r := sizesRow{Map: k, PerClass: n, SubsetSeed: seed, TrainN: len(picked), Features: fm.OutDim(), Lambda: rls.Lambda, LambdaTrials: rep.Trials,
					Accuracy: 1 - classifier.ErrorRate(classifier.Predict(testMap, rls, testX, testBlock), test.Labels), TrainSecs: secs, LambdaPath: path}
				rows = append(rows, r)
				if err := journal.add(r); err != nil {
					return err
				}
				writeSizesRow(cw, r)
				fmt.Fprintf(stderr, "%s, %d per class, subset seed %d: accuracy %.2f%% (λ=%.3g, trained in %.1fs)\n", k, n, seed, 100*r.Accuracy, r.Lambda, r.TrainSecs)
				for _, t := range rep.Trials {
					fmt.Fprintf(stderr, "  λ = %.3g (×%.3g of mean diag): %s error %.4f\n", t.Lambda, t.Relative, selection, t.HeldOutError)
				}
				for _, p := range path {
					fmt.Fprintf(stderr, "  path: λ = %.3g (×%.3g of mean diag): test accuracy %.2f%%\n", p.Lambda, p.Relative, 100*p.Accuracy)
				}
			}
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "per class\t")
	for _, k := range order {
		fmt.Fprintf(tw, "%s\t", label[k])
	}
	fmt.Fprintln(tw)
	var series []plots.Series
	for _, k := range order {
		series = append(series, plots.Series{Name: label[k]})
	}
	for _, n := range sv {
		fmt.Fprintf(tw, "%d\t", n)
		for i, k := range order {
			var acc []float64
			for _, r := range rows {
				if r.Map == k && r.PerClass == n {
					acc = append(acc, 100*r.Accuracy)
				}
			}
			mean, std := meanStd(acc)
			if len(acc) > 1 {
				fmt.Fprintf(tw, "%.2f ± %.2f%%\t", mean, std)
			} else {
				fmt.Fprintf(tw, "%.2f%%\t", mean)
			}
			series[i].X = append(series[i].X, float64(n))
			series[i].Y = append(series[i].Y, mean)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	series = append(series, plots.Series{Name: "paper, invariant (98.97%)", X: []float64{1000}, Y: []float64{98.97}, Reference: true, Color: 1})
	if err := plots.Lines(*out, plots.Chart{Title: "MNIST: test accuracy against labelled examples per class (RLS)",
		XLabel: "training examples per class", YLabel: "test accuracy %", LogX: true, Series: series}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s.csv, %s.png, %s.svg\n", *out, *out, *out)
	if *asJSON {
		b, _ := json.Marshal(map[string]any{"task": "mnist-sizes", "features": dim, "deskew": imo.Deskew, "recipe_kind": inv.Kind, "rows": rows, "peak_rss_mb": progress.PeakRSSMB()})
		fmt.Fprintln(stdout, string(b))
	}
	return cw.Error()
}

// parseRelativeLambdas reads a list of distinct λ relative to the mean
// diagonal; "" is no list.
func parseRelativeLambdas(name, s string) ([]float64, error) {
	return cli.ParseDistinct(name, s, func(part string) (float64, error) {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s: %q is not a positive relative λ", name, part)
		}
		return v, nil
	})
}

// imageTables are the features of every training and test image under a
// map whose features are counts.
type imageTables struct {
	train, test *counttable.Table
	testRows    []int
}

// writeSizesRow adds r to the CSV and flushes it, so the file is current
// while a long run goes on.
func writeSizesRow(cw *csv.Writer, r sizesRow) {
	cw.Write([]string{r.Map, fmt.Sprint(r.PerClass), fmt.Sprint(r.SubsetSeed), fmt.Sprint(r.TrainN), fmt.Sprint(r.Features), fmt.Sprintf("%.4g", r.Lambda),
		fmt.Sprintf("%.4f", r.Accuracy), fmt.Sprintf("%.1f", r.TrainSecs)})
	cw.Flush()
}

// tablePays reports whether mapping every training and test image once
// maps fewer images than the pending fits would, each mapping its training
// subset (perClass examples of every class) and the test set: many draws,
// not one process per draw.
func tablePays(trainSet *frontend.LabelledImages, testN int, perClass []int) bool {
	classes := train.NumClasses(trainSet.Labels)
	perFits := 0
	for _, n := range perClass {
		perFits += min(n*classes, trainSet.N) + testN
	}
	return perFits > trainSet.N+testN
}

// tabulateImages maps every image of train and test once through m when
// asked and m's features are counts; otherwise it returns nil and each fit
// maps its own images. The fits' times then leave out the mapping of their
// training images, which this reports once.
func tabulateImages(m features.Map, asked bool, train, test *frontend.LabelledImages, stderr io.Writer) (*imageTables, error) {
	cm, ok := m.(classifier.CountMap)
	if !asked || !ok {
		return nil, nil
	}
	start := time.Now()
	var t imageTables
	var err error
	if t.train, err = counttable.New(cm, train.X, testBlock); err != nil {
		return nil, err
	}
	if t.test, err = counttable.New(cm, test.X, testBlock); err != nil {
		return nil, err
	}
	t.testRows = make([]int, test.N)
	for i := range t.testRows {
		t.testRows[i] = i
	}
	fmt.Fprintf(stderr, "mapped %d training and %d test images once in %.1fs (--table)\n", train.N, test.N, time.Since(start).Seconds())
	return &t, nil
}
