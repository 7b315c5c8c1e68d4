package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "mnist", Summary: "MNIST digits (or any IDX image/label files): random features + RLS",
		Eval: evalMNIST})
}

func evalMNIST(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval mnist", "[flags]", stderr)
	o := train.DefaultImageOptions()
	cli.MapFlags(fs, &o.Map)
	cli.ImageFlags(fs, &o)
	cli.ThreadsFlag(fs, &o)
	fs.Float64Var(&o.Lambda, "lambda", o.Lambda, "ridge parameter (0: choose on 10% of the training set)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	modelPath := fs.String("model", "", "evaluate this saved model instead of training one")
	confusion := fs.String("confusion", "", "also draw the confusion matrix to this base name (.png, .svg)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	var run *train.ImageRun
	var err error
	if *modelPath != "" {
		run, err = evalSavedImageModel(*modelPath, &o, stderr)
	} else {
		o.Log = stderr
		run, err = recipes.TrainImages(o, stderr)
	}
	if err != nil {
		return err
	}
	if run.Test == nil {
		return errors.New("no test set: give --test-images and --test-labels")
	}
	r := run.Report
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "map\tfeatures\tseed\ttrain n\tλ\ttrain s\ttest error\tfeatures/s\tpeak RSS")
	fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3g\t%.1f\t%.2f%%\t%.3g\t%.0f MiB\n", o.Map.Label(features.NewIdentity(r.M)), r.M, r.Seed, r.TrainN, r.Lambda, r.TrainSeconds, 100*r.TestError, r.FeaturesPerSecond, r.PeakRSSMB)
	tw.Flush()
	cli.ShowImageExamples(stdout, run, 8)
	if *confusion != "" {
		title := fmt.Sprintf("MNIST test set, %s: %.2f%% error", o.Map.Label(features.NewIdentity(r.M)), 100*r.TestError)
		if err := drawConfusion(*confusion, title, run.Model.Labels, run.Test.Labels, run.Pred); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s.png and %s.svg\n", *confusion, *confusion)
	}
	if *asJSON {
		b, _ := json.Marshal(r)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// evalSavedImageModel scores the test set with a saved model.
func evalSavedImageModel(path string, o *train.ImageOptions, log io.Writer) (*train.ImageRun, error) {
	model, err := engine.LoadModel(path)
	if err != nil {
		return nil, err
	}
	if model.RLS == nil {
		return nil, fmt.Errorf("%s has no RLS read-out", path)
	}
	fm, err := model.FeatureMap()
	if err != nil {
		return nil, err
	}
	var in engine.ImageInput
	if err := json.Unmarshal(model.Input, &in); err != nil {
		return nil, fmt.Errorf("%s: image input: %w", path, err)
	}
	o.Deskew = in.Deskew // the test images are prepared as the training ones were
	d, err := recipes.LoadImages(o, log, false)
	if err != nil {
		return nil, err
	}
	test := d.Test
	if test == nil {
		return nil, errors.New("no test set: give --test-images and --test-labels")
	}
	if test.X.Cols != fm.InDim() {
		return nil, fmt.Errorf("model expects %d pixels, test images have %d", fm.InDim(), test.X.Cols)
	}
	start := time.Now()
	pred := classifier.Predict(fm, model.RLS, test.X, 0)
	sec := time.Since(start).Seconds()
	return &train.ImageRun{Model: model, Test: test, Pred: pred, Report: train.ImageReport{
		Task: "mnist", Map: model.Map.Kind, M: fm.OutDim(), Seed: model.Map.Seed, Lambda: model.RLS.Lambda,
		TestN: test.N, TestError: classifier.ErrorRate(pred, test.Labels),
		FeaturesPerSecond: float64(test.N*fm.OutDim()) / max(sec, 1e-9), PeakRSSMB: progress.PeakRSSMB(), Backend: linalg.Backend}}, nil
}

// drawConfusion plots true against predicted classes.
func drawConfusion(base, title string, names []string, truth, pred []int) error {
	counts, err := confusionCounts(truth, pred, len(names))
	if err != nil {
		return err
	}
	return plots.Confusion(base, title, names, counts)
}
