package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

// ImageOptions say how an image model is trained (Images): on IDX image
// and label files or on image folders (datasets.ListImageFolder),
// optionally a per-class subset, with the map Map.
type ImageOptions struct {
	TrainImages, TrainLabels, TestImages, TestLabels string
	// TrainDir and TestDir are image folders (one subfolder per class),
	// read instead of IDX files; their pictures are brought to Height×Width
	// (28×28 when 0) grey pixels.
	TrainDir, TestDir string
	Height, Width     int
	// Polarity is the input recipe's (engine.ImageInput): "auto" (or
	// empty) turns every picture light on dark with its ground at 0,
	// "none" leaves it.
	Polarity string
	// OODComponents, when positive, gives the model an out-of-domain rule
	// (engine.OutOfDomain) over this many principal directions of the
	// training features, its threshold leaving OODReject of held-out
	// training images out of domain.
	OODComponents int
	OODReject     float64
	// BLASThreads, when positive, is the BLAS threads per call during a
	// fit; 0 chooses (FitThreads).
	BLASThreads int
	PerClass    int // train on this many examples per class (0: all)
	SubsetSeed  uint64
	// Degrees and Shift bound the local group the invariant map transforms
	// its templates by: rotations within ±Degrees, shifts within ±Shift px.
	Degrees, Shift float64
	// RotationSteps > 0 and IntegerShifts make that group finite (the
	// 2·steps+1 evenly spaced angles times every integer shift), so G 0
	// pools over all of its elements.
	RotationSteps int
	IntegerShifts bool
	// Deskew shears every image (training, test and template pool alike)
	// upright before the rows are normalised.
	Deskew bool
	// Normalize is how rows are scaled after the pixels are mapped to
	// [0, 1]: "unit" (length 1, what the maxout and invariant kernels
	// assume) or "none"; empty means unit.
	Normalize string
	Map       MapOptions
	Lambda    float64 // the ridge parameter; 0 chooses it on 10% of the training set
	// Log, when set, receives the fit's progress, its λ trials and the
	// selection's.
	Log io.Writer
}

// DefaultImageOptions are how the default image model is trained: maxout
// m=1000 on every training image of the files named.
func DefaultImageOptions() ImageOptions {
	return ImageOptions{SubsetSeed: 1, Degrees: 20, Shift: 3, Normalize: "unit", Map: DefaultMapOptions("maxout", 1000),
		Polarity: "auto", OODComponents: 40, OODReject: 0.01}
}

// DefaultFolderSize is the side of the square pictures of an image folder
// are brought to when ImageOptions name no size: MNIST's.
const DefaultFolderSize = 28

// Input is the preparation every image of the task gets, as recorded in
// the model file.
func (o ImageOptions) Input(height, width int) engine.ImageInput {
	norm := o.Normalize
	if norm == "" {
		norm = "unit"
	}
	polarity := o.Polarity
	if polarity == "" {
		polarity = "auto"
	}
	return engine.ImageInput{Height: height, Width: width, Scale: "byte/255", Normalize: norm, Deskew: o.Deskew, Polarity: polarity}
}

// Group is the local group of the invariant map on images of the given
// size: rotations within ±Degrees times shifts within ±Shift (sub-pixel
// unless IntegerShifts; any angle unless RotationSteps).
func (o ImageOptions) Group(width, height int) (transforms.Spec, error) {
	sz := transforms.ImageSize{Width: width, Height: height}
	rot, err := transforms.NewRotationGroup(transforms.RotationParams{ImageSize: sz, MaxDegrees: o.Degrees, Steps: o.RotationSteps})
	if err != nil {
		return transforms.Spec{}, err
	}
	tr, err := transforms.NewTranslationGroup(transforms.TranslationParams{ImageSize: sz, MaxShift: o.Shift, SubPixel: !o.IntegerShifts})
	if err != nil {
		return transforms.Spec{}, err
	}
	prod, err := transforms.NewProductGroup(rot, tr)
	if err != nil {
		return transforms.Spec{}, err
	}
	return prod.Spec(), nil
}

// ImageData are an image task's sets, prepared as ImageOptions.Input says.
type ImageData struct {
	Train, Test *frontend.LabelledImages
	// Unlabelled is the whole training image file: the pool data
	// templates are drawn from (its labels are never read).
	Unlabelled blas32.General
	// Classes names the labels of image folders (nil for IDX files, whose
	// labels are their own names).
	Classes []string
}

// MapFor returns m with the task's group and unlabelled rows when it is
// an invariant map (m unchanged otherwise).
func (o ImageOptions) MapFor(m MapOptions, d *ImageData) (MapOptions, error) {
	if m.Kind != invariant.Kind {
		return m, nil
	}
	spec, err := o.Group(d.Train.Width, d.Train.Height)
	if err != nil {
		return m, err
	}
	m.Group = &spec
	rows := d.Unlabelled
	if rows.Rows == 0 {
		rows = d.Train.X
	}
	m.TemplateRows = &rows
	return m, nil
}

// LoadImages reads the training set (with needTrain) and the test set
// when named.
func LoadImages(o ImageOptions, needTrain bool) (*ImageData, error) {
	if err := o.Input(0, 0).Validate(); err != nil {
		return nil, err
	}
	if o.TrainDir != "" || o.TestDir != "" {
		return loadImageFolders(o, needTrain)
	}
	d := &ImageData{}
	var err error
	if needTrain {
		if o.TrainImages == "" || o.TrainLabels == "" {
			return nil, errors.New("give both --train-images and --train-labels")
		}
		if d.Train, err = frontend.ReadIDXPair(o.TrainImages, o.TrainLabels); err != nil {
			return nil, err
		}
		if err := o.Input(d.Train.Height, d.Train.Width).Prepare(d.Train.X); err != nil {
			return nil, fmt.Errorf("%s: %w", o.TrainImages, err)
		}
		d.Unlabelled = d.Train.X
		if o.PerClass > 0 {
			d.Train = PerClassSubset(d.Train, o.PerClass, o.SubsetSeed)
		}
	}
	if o.TestImages != "" || o.TestLabels != "" {
		if d.Test, err = frontend.ReadIDXPair(o.TestImages, o.TestLabels); err != nil {
			return nil, err
		}
		if err := o.Input(d.Test.Height, d.Test.Width).Prepare(d.Test.X); err != nil {
			return nil, fmt.Errorf("%s: %w", o.TestImages, err)
		}
	}
	if d.Train != nil && d.Test != nil && d.Train.X.Cols != d.Test.X.Cols {
		return nil, fmt.Errorf("training images have %d pixels, test images %d", d.Train.X.Cols, d.Test.X.Cols)
	}
	return d, nil
}

// PerClassSubset keeps n seeded-random examples of every class, in file order.
func PerClassSubset(s *frontend.LabelledImages, n int, seed uint64) *frontend.LabelledImages {
	return GatherImages(s, PerClassRows(s.Labels, n, seed))
}

// PerClassRows picks the rows of n seeded-random examples of every class,
// in file order.
func PerClassRows(labels []int, n int, seed uint64) []int {
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

// GatherImages copies the given rows of s.
func GatherImages(s *frontend.LabelledImages, rows []int) *frontend.LabelledImages {
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

// NumClasses is the number of classes the label lists name (at least 2).
func NumClasses(labels ...[]int) int {
	c := 0
	for _, ls := range labels {
		for _, l := range ls {
			c = max(c, l+1)
		}
	}
	return max(c, 2)
}

// ImageReport is what an image model's training and test measured (eval
// mnist --json prints it).
type ImageReport struct {
	Task         string  `json:"task"`
	Map          string  `json:"map"`
	M            int     `json:"m"`
	Q            int     `json:"q"`
	Seed         uint64  `json:"seed"`
	Lambda       float64 `json:"lambda"`
	PerClass     int     `json:"per_class,omitempty"`
	TrainN       int     `json:"train_n"`
	TestN        int     `json:"test_n"`
	TestError    float64 `json:"test_error"`
	TrainSeconds float64 `json:"train_seconds"`
	// OutOfDomain is the model's out-of-domain rule, when it has one.
	OutOfDomain       *engine.OutOfDomain `json:"out_of_domain,omitempty"`
	FeaturesPerSecond float64             `json:"features_per_second"`
	PeakRSSMB         float64             `json:"peak_rss_mb"`
	Backend           string              `json:"blas"`
	*SelectionRecord
}

// ImageRun is a trained image model with its report and, when there was a
// test set, its predictions.
type ImageRun struct {
	Model  *engine.Model
	Report ImageReport
	Pred   []int
	Test   *frontend.LabelledImages
}

// Images trains a model on the training set of d (LoadImages(o, true)) and,
// when d has a test set, evaluates it.
func Images(o ImageOptions, d *ImageData) (*ImageRun, error) {
	mo, err := o.MapFor(o.Map, d)
	if err != nil {
		return nil, err
	}
	recipe, err := mo.Recipe(d.Train.X.Cols)
	if err != nil {
		return nil, err
	}
	classes := NumClasses(d.Train.Labels)
	if d.Test != nil {
		classes = NumClasses(d.Train.Labels, d.Test.Labels)
	}
	recipe, sel, err := mo.Select(recipe, d.Unlabelled, d.Train.X, d.Train.Labels, classes, o.Log)
	if err != nil {
		return nil, err
	}
	run, err := o.FitImages(d.Train, d.Test, recipe)
	if err != nil {
		return nil, err
	}
	if sel != nil {
		run.Report.SelectionRecord = sel
		run.Report.Map = mo.Kind
		if mo.Kind == "maxout" {
			run.Report.Q = mo.Q
		}
	}
	run.Report.PerClass = o.PerClass
	if d.Classes != nil {
		run.Model.Labels = d.Classes
		run.Model.Meta["train_dir"] = o.TrainDir
		run.Report.Task = engine.TaskImages
	} else {
		run.Model.Meta["train_images"] = o.TrainImages
	}
	if o.OODComponents > 0 {
		if err := o.addOutOfDomain(run, d.Train); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// FitImages fits RLS (λ o.Lambda) on recipe's map of the training images
// and scores the test images when given, with the BLAS threads FitThreads
// chooses (restored afterwards). Both sets are already prepared as
// o.Input says, which the model records.
func (o ImageOptions) FitImages(train, test *frontend.LabelledImages, recipe features.Recipe) (*ImageRun, error) {
	if threads := FitThreads(o.BLASThreads, recipe, train.X); threads > 0 {
		defer linalg.SetThreads(linalg.Threads())
		linalg.SetThreads(threads)
	}
	fm, err := features.Build(recipe)
	if err != nil {
		return nil, err
	}
	classes := NumClasses(train.Labels)
	if test != nil {
		classes = NumClasses(train.Labels, test.Labels)
	}
	// CDF counts are positive and strongly correlated: their Gram needs
	// more than float32 products to reach the small λ they do best with.
	// Formed from the integer counts it is exact, and faster than float64
	// products (the fallback for anything that is not a count).
	cdf := recipe.Kind == invariant.Kind
	opt := classifier.FitOptions{Lambda: o.Lambda, Seed: recipe.Seed, Float64Gram: cdf, ExactCounts: cdf, Progress: o.Log}
	start := time.Now()
	rls, rep, err := classifier.FitRLS(fm, train.X, train.Labels, classes, opt)
	if err != nil {
		return nil, err
	}
	trainSec := time.Since(start).Seconds()
	if o.Log != nil {
		for _, t := range rep.Trials {
			fmt.Fprintf(o.Log, "  λ = %.3g (×%g of mean diag): held-out error %.4f\n", t.Lambda, t.Relative, t.HeldOutError)
		}
	}
	labels := make([]string, classes)
	for i := range labels {
		labels[i] = fmt.Sprint(i)
	}
	input, err := json.Marshal(o.Input(train.Height, train.Width))
	if err != nil {
		return nil, err
	}
	model := &engine.Model{Task: engine.TaskImages, Labels: labels, Input: input, Map: recipe, RLS: rls,
		Meta: map[string]any{"train_n": train.N, "lambda_trials": rep.Trials}}
	run := &ImageRun{Model: model, Test: test}
	run.Report = ImageReport{Task: "mnist", Map: recipe.Kind, M: fm.OutDim(), Seed: recipe.Seed, Lambda: rls.Lambda,
		TrainN: train.N, TrainSeconds: trainSec, Backend: linalg.Backend}
	if recipe.Kind == "maxout" {
		var p struct {
			Q int `json:"q"`
		}
		json.Unmarshal(recipe.Params, &p)
		run.Report.Q = p.Q
	}
	if test != nil {
		start = time.Now()
		run.Pred = classifier.Predict(fm, rls, test.X, 0)
		sec := time.Since(start).Seconds()
		run.Report.TestN = test.N
		run.Report.TestError = classifier.ErrorRate(run.Pred, test.Labels)
		if sec > 0 {
			run.Report.FeaturesPerSecond = float64(test.N*fm.OutDim()) / sec
		}
	}
	run.Report.PeakRSSMB = progress.PeakRSSMB()
	return run, nil
}

// FitThreads is the BLAS threads per call for fitting recipe on x: given
// (threads) when positive; else one when the map multiplies x's rows itself
// (maxout, rows mostly zeros) and the Gram is not the larger part of the
// work; 0 otherwise, leaving the BLAS as it is. Between the Gram updates
// OpenBLAS's second thread spins on the core the map's goroutines need;
// but the Gram grows as m² and the map as m·q·d, and once the Gram
// dominates, its second thread pays. Measured on MNIST (q = 4, λ given,
// train seconds with one thread / two): m = 1000 1.8 / 2.5 s, m = 5000
// 21 / 25 s, m = 10000 80 / 58 s; hence one thread up to m = 2·q·d
// (6272 here). Other q were not measured.
func FitThreads(threads int, recipe features.Recipe, x blas32.General) int {
	if threads > 0 {
		return threads
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
