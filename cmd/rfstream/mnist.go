package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

func init() {
	registerTask(&task{name: "mnist", summary: "MNIST digits (or any IDX image/label files): random features + RLS",
		eval: evalMNIST, train: trainMNIST})
}

// imageFlags locate an IDX data set and choose a training subset.
type imageFlags struct {
	trainImages, trainLabels, testImages, testLabels string
	// blasThreads, when positive, is the BLAS threads per call during a
	// fit (registerThreads); 0 chooses (fitThreads).
	blasThreads int
	perClass    int
	subsetSeed  uint64
	// degrees and shift bound the local group the invariant map transforms
	// its templates by: rotations within ±degrees, shifts within ±shift px.
	degrees, shift float64
	// rotationSteps > 0 and integerShifts make that group finite (the
	// 2·steps+1 evenly spaced angles times every integer shift), so --g 0
	// pools over all of its elements.
	rotationSteps int
	integerShifts bool
	// deskew shears every image (training, test and template pool alike)
	// upright before the rows are normalised.
	deskew bool
	// normalize is how rows are scaled after the pixels are mapped to
	// [0, 1]: "unit" (length 1, what the maxout and invariant kernels
	// assume) or "none".
	normalize string
	// unlabelled is the whole training image file, normalised: the pool
	// data templates are drawn from (its labels are never read).
	unlabelled blas32.General
}

func (f *imageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.trainImages, "train-images", "", "training images, IDX (default: MNIST from the data cache)")
	fs.StringVar(&f.trainLabels, "train-labels", "", "training labels, IDX")
	fs.StringVar(&f.testImages, "test-images", "", "test images, IDX")
	fs.StringVar(&f.testLabels, "test-labels", "", "test labels, IDX")
	fs.IntVar(&f.perClass, "per-class", 0, "train on this many examples per class (0: all)")
	fs.Uint64Var(&f.subsetSeed, "subset-seed", 1, "seed choosing the --per-class subset")
	fs.Float64Var(&f.degrees, "degrees", 20, "invariant map: templates rotated within ±degrees")
	fs.Float64Var(&f.shift, "shift", 3, "invariant map: templates shifted within ±shift pixels (sub-pixel)")
	fs.IntVar(&f.rotationSteps, "rotation-steps", 0, "invariant map: rotate templates by the 2·steps+1 evenly spaced angles in ±degrees only (0: any angle)")
	fs.BoolVar(&f.integerShifts, "integer-shifts", false, "invariant map: shift templates by whole pixels only; with --rotation-steps the group is finite and --g 0 uses all of it")
	fs.BoolVar(&f.deskew, "deskew", false, "shear every image upright (zero slant, centre of mass centred) before normalising: training, test and template rows alike")
	fs.StringVar(&f.normalize, "normalize", "unit", "rows after pixels are scaled to [0, 1]: unit (length 1) or none")
}

// input is the preparation every image of the task gets, as recorded in
// the model file. Flags built in code rather than parsed (the demo's) leave
// normalize empty and get the flag's default, unit rows.
func (f *imageFlags) input(height, width int) rfstream.ImageInput {
	norm := f.normalize
	if norm == "" {
		norm = "unit"
	}
	return rfstream.ImageInput{Height: height, Width: width, Scale: "byte/255", Normalize: norm, Deskew: f.deskew}
}

// group is the local group of the invariant map on images of the given
// size: rotations within ±degrees times shifts within ±shift (sub-pixel
// unless --integer-shifts; any angle unless --rotation-steps).
func (f *imageFlags) group(width, height int) (transforms.Spec, error) {
	sz := transforms.ImageSize{Width: width, Height: height}
	rot, err := transforms.NewRotationGroup(transforms.RotationParams{ImageSize: sz, MaxDegrees: f.degrees, Steps: f.rotationSteps})
	if err != nil {
		return transforms.Spec{}, err
	}
	tr, err := transforms.NewTranslationGroup(transforms.TranslationParams{ImageSize: sz, MaxShift: f.shift, SubPixel: !f.integerShifts})
	if err != nil {
		return transforms.Spec{}, err
	}
	prod, err := transforms.NewProductGroup(rot, tr)
	if err != nil {
		return transforms.Spec{}, err
	}
	return prod.Spec(), nil
}

// setImageGroup gives the map flags the task's group and unlabelled rows.
func setImageGroup(mf *mapFlags, imf *imageFlags, train *frontend.LabelledImages) error {
	if mf.kind != invariant.Kind {
		return nil
	}
	spec, err := imf.group(train.Width, train.Height)
	if err != nil {
		return err
	}
	mf.group = &spec
	rows := imf.unlabelled
	if rows.Rows == 0 {
		rows = train.X
	}
	mf.templateRows = &rows
	return nil
}

// load reads the training and test sets, fetching MNIST when the defaults
// are used and the cache is empty. Rows come back prepared as f.input says.
func (f *imageFlags) load(log io.Writer, needTrain bool) (train, test *frontend.LabelledImages, err error) {
	if err := f.input(0, 0).Validate(); err != nil {
		return nil, nil, err
	}
	def := f.trainImages == "" && f.trainLabels == "" && f.testImages == "" && f.testLabels == ""
	if def {
		if err := ensureMNIST(log); err != nil {
			return nil, nil, err
		}
		d := mnistDir()
		f.trainImages, f.trainLabels = filepath.Join(d, "train-images-idx3-ubyte"), filepath.Join(d, "train-labels-idx1-ubyte")
		f.testImages, f.testLabels = filepath.Join(d, "t10k-images-idx3-ubyte"), filepath.Join(d, "t10k-labels-idx1-ubyte")
	}
	if needTrain {
		if f.trainImages == "" || f.trainLabels == "" {
			return nil, nil, errors.New("give both --train-images and --train-labels")
		}
		if train, err = frontend.ReadIDXPair(f.trainImages, f.trainLabels); err != nil {
			return nil, nil, err
		}
		if err := f.input(train.Height, train.Width).Prepare(train.X); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.trainImages, err)
		}
		f.unlabelled = train.X
		if f.perClass > 0 {
			train = perClassSubset(train, f.perClass, f.subsetSeed)
		}
	}
	if f.testImages != "" || f.testLabels != "" {
		if test, err = frontend.ReadIDXPair(f.testImages, f.testLabels); err != nil {
			return nil, nil, err
		}
		if err := f.input(test.Height, test.Width).Prepare(test.X); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.testImages, err)
		}
	}
	if train != nil && test != nil && train.X.Cols != test.X.Cols {
		return nil, nil, fmt.Errorf("training images have %d pixels, test images %d", train.X.Cols, test.X.Cols)
	}
	return train, test, nil
}

// perClassSubset keeps n seeded-random examples of every class, in file order.
func perClassSubset(s *frontend.LabelledImages, n int, seed uint64) *frontend.LabelledImages {
	return gatherImages(s, perClassRows(s.Labels, n, seed))
}

// perClassRows picks the rows of n seeded-random examples of every class,
// in file order.
func perClassRows(labels []int, n int, seed uint64) []int {
	order := rand.New(rand.NewPCG(seed, 0x73756273)).Perm(len(labels))
	count := map[int]int{}
	keep := make([]bool, len(labels))
	for _, i := range order {
		if count[labels[i]] < n {
			count[labels[i]]++
			keep[i] = true
		}
	}
	var rows []int
	for i, k := range keep {
		if k {
			rows = append(rows, i)
		}
	}
	return rows
}

// gatherImages copies the given rows of s.
func gatherImages(s *frontend.LabelledImages, rows []int) *frontend.LabelledImages {
	x := linalg.NewGeneral32(len(rows), s.X.Cols)
	labels := make([]int, len(rows))
	for j, i := range rows {
		copy(linalg.Row32(x, j), linalg.Row32(s.X, i))
		labels[j] = s.Labels[i]
	}
	im := *s.Images
	im.N, im.X = len(rows), x
	return &frontend.LabelledImages{Images: &im, Labels: labels}
}

func numClasses(labels ...[]int) int {
	c := 0
	for _, ls := range labels {
		for _, l := range ls {
			c = max(c, l+1)
		}
	}
	return max(c, 2)
}

// evalResult is the machine-readable line of `rfstream eval mnist --json`.
type evalResult struct {
	Task              string  `json:"task"`
	Map               string  `json:"map"`
	M                 int     `json:"m"`
	Q                 int     `json:"q"`
	Seed              uint64  `json:"seed"`
	Lambda            float64 `json:"lambda"`
	PerClass          int     `json:"per_class,omitempty"`
	TrainN            int     `json:"train_n"`
	TestN             int     `json:"test_n"`
	TestError         float64 `json:"test_error"`
	TrainSeconds      float64 `json:"train_seconds"`
	FeaturesPerSecond float64 `json:"features_per_second"`
	PeakRSSMB         float64 `json:"peak_rss_mb"`
	Backend           string  `json:"blas"`
	*selection
}

type mnistRun struct {
	model  *rfstream.Model
	result evalResult
	pred   []int
	test   *frontend.LabelledImages
}

// fitImages trains a model on the training set (and, when the test set is
// given, evaluates it).
func fitImages(mf *mapFlags, imf *imageFlags, lambda float64, quiet bool, log io.Writer) (*mnistRun, error) {
	train, test, err := imf.load(log, true)
	if err != nil {
		return nil, err
	}
	if err := setImageGroup(mf, imf, train); err != nil {
		return nil, err
	}
	recipe, err := mf.recipe(train.X.Cols)
	if err != nil {
		return nil, err
	}
	var slog io.Writer
	if !quiet {
		slog = log
	}
	classes := numClasses(train.Labels)
	if test != nil {
		classes = numClasses(train.Labels, test.Labels)
	}
	recipe, sel, err := mf.selectFeatures(recipe, imf.unlabelled, train.X, train.Labels, classes, slog)
	if err != nil {
		return nil, err
	}
	run, err := imf.trainAndTest(train, test, recipe, lambda, quiet, log)
	if err != nil {
		return nil, err
	}
	if sel != nil {
		run.result.selection = sel
		run.result.Map = mf.kind
		if mf.kind == "maxout" {
			run.result.Q = mf.q
		}
	}
	run.result.PerClass = imf.perClass
	run.model.Meta["train_images"] = imf.trainImages
	return run, nil
}

// trainAndTest fits RLS on recipe's map of the training images and scores
// the test images when given. Both are already prepared as in says, which
// the model records.
func trainAndTest(train, test *frontend.LabelledImages, in rfstream.ImageInput, recipe features.Recipe, lambda float64, quiet bool, log io.Writer) (*mnistRun, error) {
	fm, err := features.Build(recipe)
	if err != nil {
		return nil, err
	}
	classes := numClasses(train.Labels)
	if test != nil {
		classes = numClasses(train.Labels, test.Labels)
	}
	// CDF counts are positive and strongly correlated: their Gram needs
	// more than float32 products to reach the small λ they do best with.
	// Formed from the integer counts it is exact, and faster than float64
	// products (the fallback for anything that is not a count).
	cdf := recipe.Kind == invariant.Kind
	opt := classifier.FitOptions{Lambda: lambda, Seed: recipe.Seed, Float64Gram: cdf, ExactCounts: cdf}
	if !quiet {
		opt.Progress = log
	}
	start := time.Now()
	rls, rep, err := classifier.FitRLS(fm, train.X, train.Labels, classes, opt)
	if err != nil {
		return nil, err
	}
	trainSec := time.Since(start).Seconds()
	if !quiet {
		for _, t := range rep.Trials {
			fmt.Fprintf(log, "  λ = %.3g (×%g of mean diag): held-out error %.4f\n", t.Lambda, t.Relative, t.HeldOutError)
		}
	}
	labels := make([]string, classes)
	for i := range labels {
		labels[i] = fmt.Sprint(i)
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	model := &rfstream.Model{Task: rfstream.TaskImages, Labels: labels, Input: input, Map: recipe, RLS: rls,
		Meta: map[string]any{"train_n": train.N, "lambda_trials": rep.Trials}}
	run := &mnistRun{model: model, test: test}
	run.result = evalResult{Task: "mnist", Map: recipe.Kind, M: fm.OutDim(), Seed: recipe.Seed, Lambda: rls.Lambda,
		TrainN: train.N, TrainSeconds: trainSec, Backend: linalg.Backend}
	if recipe.Kind == "maxout" {
		var p struct {
			Q int `json:"q"`
		}
		json.Unmarshal(recipe.Params, &p)
		run.result.Q = p.Q
	}
	if test != nil {
		start = time.Now()
		run.pred = classifier.Predict(fm, rls, test.X, 0)
		sec := time.Since(start).Seconds()
		run.result.TestN = test.N
		run.result.TestError = classifier.ErrorRate(run.pred, test.Labels)
		if sec > 0 {
			run.result.FeaturesPerSecond = float64(test.N*fm.OutDim()) / sec
		}
	}
	run.result.PeakRSSMB = peakRSSMB()
	return run, nil
}

// trainAndTest is trainAndTest with the BLAS threads fitThreads chooses
// for recipe on these images (or --blas-threads), restored afterwards.
func (f *imageFlags) trainAndTest(train, test *frontend.LabelledImages, recipe features.Recipe, lambda float64, quiet bool, log io.Writer) (*mnistRun, error) {
	if threads := fitThreads(f.blasThreads, recipe, train.X); threads > 0 {
		defer linalg.SetThreads(linalg.Threads())
		linalg.SetThreads(threads)
	}
	return trainAndTest(train, test, f.input(train.Height, train.Width), recipe, lambda, quiet, log)
}

// registerThreads adds --blas-threads, for the commands that fit through
// imageFlags.trainAndTest.
func (f *imageFlags) registerThreads(fs *flag.FlagSet) {
	fs.IntVar(&f.blasThreads, "blas-threads", 0, "BLAS threads per call while fitting; 0: one for a maxout map of m ≤ 2·q·(input length) on images that are mostly zeros (the map multiplies their nonzeros itself, and a second BLAS thread spends the fit spinning on the core it needs; larger m, whose Gram dominates, keep the BLAS's count: experiments/journal/results.md, \"Speed against NumPy\"), else the BLAS's own count")
}

// fitThreads is the BLAS threads per call for fitting recipe on x: given
// (flag) when positive; else one when the map multiplies x's rows itself
// (maxout, rows mostly zeros) and the Gram is not the larger part of the
// work; 0 otherwise, leaving the BLAS as it is. Between the Gram updates
// OpenBLAS's second thread spins on the core the map's goroutines need;
// but the Gram grows as m² and the map as m·q·d, and once the Gram
// dominates, its second thread pays. Measured on MNIST (q = 4, λ given,
// train seconds with one thread / two): m = 1000 1.8 / 2.5 s, m = 5000
// 21 / 25 s, m = 10000 80 / 58 s; hence one thread up to m = 2·q·d
// (6272 here). Other q were not measured.
func fitThreads(flag int, recipe features.Recipe, x blas32.General) int {
	if flag > 0 {
		return flag
	}
	if recipe.Kind != maxout.Kind {
		return 0
	}
	var p maxout.Params
	if err := features.UnmarshalParams(recipe, &p); err != nil || p.Pool > 0 || p.M > 2*p.Q*x.Cols {
		return 0
	}
	if linalg.MostlySparse(x) {
		return 1
	}
	return 0
}

func evalMNIST(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval mnist", "[flags]", stderr)
	var mf mapFlags
	var imf imageFlags
	mf.register(fs, "maxout", 1000)
	imf.register(fs)
	imf.registerThreads(fs)
	lambda := fs.Float64("lambda", 0, "ridge parameter (0: choose on 10% of the training set)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	modelPath := fs.String("model", "", "evaluate this saved model instead of training one")
	confusion := fs.String("confusion", "", "also draw the confusion matrix to this base name (.png, .svg)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var run *mnistRun
	var err error
	if *modelPath != "" {
		run, err = evalSavedImageModel(*modelPath, &imf, stderr)
	} else {
		run, err = fitImages(&mf, &imf, *lambda, false, stderr)
	}
	if err != nil {
		return err
	}
	if run.test == nil {
		return errors.New("no test set: give --test-images and --test-labels")
	}
	r := run.result
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "map\tfeatures\tseed\ttrain n\tλ\ttrain s\ttest error\tfeatures/s\tpeak RSS")
	fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3g\t%.1f\t%.2f%%\t%.3g\t%.0f MiB\n", mf.label(nil2map(r)), r.M, r.Seed, r.TrainN, r.Lambda, r.TrainSeconds, 100*r.TestError, r.FeaturesPerSecond, r.PeakRSSMB)
	tw.Flush()
	showExamples(stdout, run, 8)
	if *confusion != "" {
		title := fmt.Sprintf("MNIST test set, %s: %.2f%% error", mf.label(nil2map(r)), 100*r.TestError)
		if err := drawConfusion(*confusion, title, run.model.Labels, run.test.Labels, run.pred); err != nil {
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

// nil2map lets mapFlags.label describe a result without a live map.
func nil2map(r evalResult) features.Map { return features.NewIdentity(r.M) }

// showExamples prints the first few test predictions beside the truth.
func showExamples(w io.Writer, run *mnistRun, n int) {
	if run.pred == nil {
		return
	}
	fmt.Fprint(w, "examples (true→predicted):")
	for i := 0; i < n && i < len(run.pred); i++ {
		mark := ""
		if run.pred[i] != run.test.Labels[i] {
			mark = "✗"
		}
		fmt.Fprintf(w, " %d→%d%s", run.test.Labels[i], run.pred[i], mark)
	}
	fmt.Fprintln(w)
}

func trainMNIST(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train mnist", "--out MODEL [flags]", stderr)
	var mf mapFlags
	var imf imageFlags
	mf.register(fs, "maxout", 1000)
	imf.register(fs)
	imf.registerThreads(fs)
	lambda := fs.Float64("lambda", 0, "ridge parameter (0: choose on 10% of the training set)")
	out := fs.String("out", "", "where to save the model")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errUsage
	}
	run, err := fitImages(&mf, &imf, *lambda, false, stderr)
	if err != nil {
		return err
	}
	if err := rfstream.SaveModel(*out, run.model); err != nil {
		return err
	}
	msg := fmt.Sprintf("saved %s (%s, λ=%.3g, trained in %.1fs)", *out, mf.label(nil2map(run.result)), run.result.Lambda, run.result.TrainSeconds)
	if run.test != nil {
		msg += fmt.Sprintf("; test error %.2f%%", 100*run.result.TestError)
	}
	fmt.Fprintln(stdout, msg)
	return nil
}

// evalSavedImageModel scores the test set with a saved model.
func evalSavedImageModel(path string, imf *imageFlags, log io.Writer) (*mnistRun, error) {
	model, err := rfstream.LoadModel(path)
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
	var in rfstream.ImageInput
	if err := json.Unmarshal(model.Input, &in); err != nil {
		return nil, fmt.Errorf("%s: image input: %w", path, err)
	}
	imf.deskew = in.Deskew // the test images are prepared as the training ones were
	_, test, err := imf.load(log, false)
	if err != nil {
		return nil, err
	}
	if test == nil {
		return nil, errors.New("no test set: give --test-images and --test-labels")
	}
	if test.X.Cols != fm.InDim() {
		return nil, fmt.Errorf("model expects %d pixels, test images have %d", fm.InDim(), test.X.Cols)
	}
	start := time.Now()
	pred := classifier.Predict(fm, model.RLS, test.X, 0)
	sec := time.Since(start).Seconds()
	return &mnistRun{model: model, test: test, pred: pred, result: evalResult{
		Task: "mnist", Map: model.Map.Kind, M: fm.OutDim(), Seed: model.Map.Seed, Lambda: model.RLS.Lambda,
		TestN: test.N, TestError: classifier.ErrorRate(pred, test.Labels),
		FeaturesPerSecond: float64(test.N*fm.OutDim()) / max(sec, 1e-9), PeakRSSMB: peakRSSMB(), Backend: linalg.Backend}}, nil
}

// drawConfusion plots true against predicted classes.
func drawConfusion(base, title string, names []string, truth, pred []int) error {
	counts, err := confusionCounts(truth, pred, len(names))
	if err != nil {
		return err
	}
	return plots.Confusion(base, title, names, counts)
}
