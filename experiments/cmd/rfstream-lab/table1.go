package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/train"
)

// paperTable1 is Table 1 of the random maxout paper: MNIST test error (%),
// mean of 5 seeds, by q (rows) and m (columns).
var paperTable1 = map[int]map[int]float64{
	1:  {100: 17.68, 500: 14.76, 1000: 14.64, 5000: 15.02, 10000: 15.12},
	2:  {100: 16.95, 500: 7.98, 1000: 5.62, 5000: 2.86, 10000: 2.35},
	4:  {100: 18.24, 500: 7.70, 1000: 5.50, 5000: 2.78, 10000: 2.23},
	8:  {100: 18.9, 500: 7.98, 1000: 5.59, 5000: 2.81, 10000: 2.32},
	16: {100: 20.57, 500: 8.19, 1000: 5.66, 5000: 2.87, 10000: 2.58},
}

func init() {
	cli.RegisterTask(&cli.Task{Name: "table1", Summary: "reproduce Table 1 of the maxout paper on MNIST (a long grid)", Eval: evalTable1})
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("bad list %q: %w", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func meanStd(v []float64) (float64, float64) {
	var s, ss float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	if len(v) < 2 {
		return mean, 0
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

func evalTable1(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval table1", "[flags]", stderr)
	imo := train.DefaultImageOptions()
	cli.ImageFlags(fs, &imo)
	cli.ThreadsFlag(fs, &imo)
	qs := fs.String("q", "1,2,4,8", "values of q")
	ms := fs.String("m", "500,1000,5000,10000", "values of m")
	seedsSmall := fs.Int("seeds", 3, "seeds for m ≤ 1000 (one seed above)")
	rff := fs.Int("rff", 10000, "also run random Fourier features with this many features (0: skip)")
	out := fs.String("out", "out/table1", "base name of the CSV and plot files")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	qv, err := parseInts(*qs)
	if err != nil {
		return err
	}
	mv, err := parseInts(*ms)
	if err != nil {
		return err
	}
	d, err := recipes.LoadImages(&imo, stderr, true)
	if err != nil {
		return err
	}
	trainSet, test := d.Train, d.Test
	if test == nil {
		return fmt.Errorf("table1 needs a test set")
	}
	type cell struct{ errs, secs []float64 }
	cells := map[[2]int]*cell{}
	var rffErr, rffSec float64
	csvf, cw, err := createCSV(*out, []string{"map", "q", "m", "seed", "test_error", "train_seconds", "lambda", "paper_error"})
	if err != nil {
		return err
	}
	defer csvf.Close()
	runs := 0
	for _, m := range mv {
		if m <= 1000 {
			runs += len(qv) * *seedsSmall
		} else {
			runs += len(qv)
		}
	}
	if *rff > 0 {
		runs++
	}
	grid := progress.New(stderr, "table1", int64(runs), "runs")
	defer grid.Finish()
	for _, m := range mv {
		for _, q := range qv {
			seeds := 1
			if m <= 1000 {
				seeds = *seedsSmall
			}
			c := &cell{}
			cells[[2]int{q, m}] = c
			for s := 1; s <= seeds; s++ {
				r := features.Recipe{Kind: maxout.Kind, In: trainSet.X.Cols, Seed: uint64(s), Params: features.MarshalParams(maxout.Params{M: m, Q: q})}
				run, err := imo.FitImages(trainSet, test, r)
				if err != nil {
					return err
				}
				c.errs = append(c.errs, 100*run.Report.TestError)
				c.secs = append(c.secs, run.Report.TrainSeconds)
				paper := ""
				if p, ok := paperTable1[q][m]; ok {
					paper = fmt.Sprint(p)
				}
				cw.Write([]string{"maxout", fmt.Sprint(q), fmt.Sprint(m), fmt.Sprint(s), fmt.Sprintf("%.4f", run.Report.TestError), fmt.Sprintf("%.2f", run.Report.TrainSeconds), fmt.Sprintf("%.4g", run.Report.Lambda), paper})
				cw.Flush()
				b, _ := json.Marshal(run.Report)
				grid.Logf("%s", b)
				grid.Add(1)
			}
		}
	}
	if *rff > 0 {
		r := features.Recipe{Kind: features.FourierKind, In: trainSet.X.Cols, Seed: 1, Params: features.MarshalParams(features.FourierParams{M: *rff, Sigma: 1})}
		run, err := imo.FitImages(trainSet, test, r)
		if err != nil {
			return err
		}
		grid.Add(1)
		rffErr, rffSec = 100*run.Report.TestError, run.Report.TrainSeconds
		cw.Write([]string{"fourier", "", fmt.Sprint(*rff), "1", fmt.Sprintf("%.4f", run.Report.TestError), fmt.Sprintf("%.2f", run.Report.TrainSeconds), fmt.Sprintf("%.4g", run.Report.Lambda), ""})
		cw.Flush()
	}

	fmt.Fprintf(stdout, "MNIST test error %% (ours: mean ± std over seeds; paper: mean of 5 seeds), %d train / %d test\n\n", trainSet.N, test.N)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "q \\ m\t")
	for _, m := range mv {
		fmt.Fprintf(tw, "%d ours\t%d paper\t", m, m)
	}
	fmt.Fprintln(tw)
	var series []plots.Series
	for i, q := range qv {
		fmt.Fprintf(tw, "%d\t", q)
		var xs, ys, es, px, py []float64
		for _, m := range mv {
			c := cells[[2]int{q, m}]
			mean, std := meanStd(c.errs)
			if len(c.errs) > 1 {
				fmt.Fprintf(tw, "%.2f ± %.2f\t", mean, std)
			} else {
				fmt.Fprintf(tw, "%.2f\t", mean)
			}
			if p, ok := paperTable1[q][m]; ok {
				fmt.Fprintf(tw, "%.2f\t", p)
				px, py = append(px, float64(m)), append(py, p)
			} else {
				fmt.Fprint(tw, "–\t")
			}
			xs, ys, es = append(xs, float64(m)), append(ys, mean), append(es, std)
		}
		fmt.Fprintln(tw)
		series = append(series,
			plots.Series{Name: fmt.Sprintf("q=%d (ours)", q), X: xs, Y: ys, Err: es, Color: i + 1},
			plots.Series{Name: fmt.Sprintf("q=%d (paper)", q), X: px, Y: py, Reference: true, Color: i + 1})
	}
	tw.Flush()
	if *rff > 0 {
		fmt.Fprintf(stdout, "\nrandom Fourier features m=%d, σ=1: %.2f%% (trained in %.1fs)\n", *rff, rffErr, rffSec)
	}
	fmt.Fprintln(stdout, "\ntraining seconds (mean over seeds, features + Gram + λ search + solve):")
	tw = tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "q \\ m\t")
	for _, m := range mv {
		fmt.Fprintf(tw, "%d\t", m)
	}
	fmt.Fprintln(tw)
	for _, q := range qv {
		fmt.Fprintf(tw, "%d\t", q)
		for _, m := range mv {
			mean, _ := meanStd(cells[[2]int{q, m}].secs)
			fmt.Fprintf(tw, "%.1f\t", mean)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if err := plots.Lines(*out, plots.Chart{Title: "MNIST: random maxout + RLS (lines: ours, markers: paper)",
		XLabel: "m (units)", YLabel: "test error %", LogX: true, LogY: true, Series: series}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s.csv, %s.png, %s.svg\n", *out, *out, *out)
	return cw.Error()
}
