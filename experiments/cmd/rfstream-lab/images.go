package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "images", Summary: "image folders (or MNIST): test error through the tagger, and the out-of-domain rule against pictures of no class",
		Eval: evalImages})
}

// imagesEval is what eval images measured: the test error through the
// tagger (the path rfstream tag takes), the test pictures marked out of
// domain (false rejections), and for each set of pictures of no class the
// share marked, at the model's threshold and along a curve of thresholds.
type imagesEval struct {
	Model         string              `json:"model"`
	Train         *train.ImageReport  `json:"train,omitempty"`
	TestN         int                 `json:"test_n"`
	TestInverted  bool                `json:"test_inverted,omitempty"`
	TestError     float64             `json:"test_error"`
	Rule          *engine.OutOfDomain `json:"out_of_domain,omitempty"`
	TestRejected  float64             `json:"test_rejected"`
	ErrorAccepted float64             `json:"test_error_of_accepted"`
	Others        []otherSet          `json:"others,omitempty"`
	// The curve: familiarity thresholds that reject curveShares of the
	// test pictures, and the shares they do reject (ties move them).
	CurveThresholds   []float64 `json:"curve_thresholds,omitempty"`
	CurveTestRejected []float64 `json:"curve_test_rejected,omitempty"`
}

// otherSet is one set of pictures of no class: the share the model's rule
// rejects, and the share at each threshold of the curve.
type otherSet struct {
	Name     string    `json:"name"`
	N        int       `json:"n"`
	Rejected float64   `json:"rejected"`
	Curve    []float64 `json:"curve_rejected,omitempty"`
}

// curveShares are the shares of test pictures the curve's thresholds reject.
var curveShares = []float64{0.005, 0.01, 0.02, 0.05, 0.1}

func evalImages(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval images", "[--train-dir DIR --test-dir DIR] [flags]", stderr)
	o := train.DefaultImageOptions()
	fs.StringVar(&o.TrainDir, "train-dir", "", "training pictures, one subfolder per class (default: MNIST from the data cache)")
	testDir := fs.String("test-dir", "", "test pictures in the same layout (default with MNIST: its test set)")
	cli.MapFlags(fs, &o.Map)
	cli.ImageFolderFlags(fs, &o)
	modelPath := fs.String("model", "", "evaluate this saved image model instead of training one")
	invert := fs.Bool("invert-test", false, "invert the test pictures (dark figures on light ground) before the model sees them")
	oodDir := fs.String("ood-dir", "", "pictures of no class the model knows: each subfolder (or the folder itself) is one set")
	synth := fs.Int("ood-synth", 0, "also generate this many pictures of each synthetic kind of no class (noise, gratings, blobs, circles, squares, crosses) and the 52 letters of the basic font")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if (o.TrainDir == "") != (*testDir == "") && *modelPath == "" {
		return errors.New("give both --train-dir and --test-dir, or neither (MNIST)")
	}
	tagger, rep, err := imagesModel(o, *modelPath, stderr)
	if err != nil {
		return err
	}
	test, err := rawTestSet(*testDir, tagger)
	if err != nil {
		return err
	}
	if *invert {
		for i := range test.X.Data {
			test.X.Data[i] = 1 - test.X.Data[i]
		}
	}
	ev := imagesEval{Model: *modelPath, Train: rep, TestN: test.N, TestInverted: *invert, Rule: tagger.Input.OutOfDomain}
	res, err := tagger.Classify(test.X, 1)
	if err != nil {
		return err
	}
	scoreTest(&ev, res, test.Labels, tagger.Model.Labels)
	others, err := otherSets(*oodDir, *synth, tagger.Input.Height, tagger.Input.Width)
	if err != nil {
		return err
	}
	for _, s := range others {
		o, err := rejectOthers(tagger, s, &ev)
		if err != nil {
			return err
		}
		ev.Others = append(ev.Others, o)
	}
	printImagesEval(stdout, ev)
	if *asJSON {
		b, _ := json.Marshal(ev)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// imagesModel loads the saved model, or trains one on the folders (or
// MNIST) o names.
func imagesModel(o train.ImageOptions, path string, log io.Writer) (*engine.ImageTagger, *train.ImageReport, error) {
	if path != "" {
		m, err := engine.LoadModel(path)
		if err != nil {
			return nil, nil, err
		}
		t, err := engine.NewImageTagger(m)
		return t, nil, err
	}
	o.Log = log
	var d *train.ImageData
	var err error
	if o.TrainDir != "" {
		d, err = train.LoadImages(o, true)
	} else {
		o.TestImages, o.TestLabels = "", ""
		d, err = recipes.LoadImages(&o, log, true)
	}
	if err != nil {
		return nil, nil, err
	}
	d.Test = nil // scored by the caller, through the tagger
	run, err := train.Images(o, d)
	if err != nil {
		return nil, nil, err
	}
	t, err := engine.NewImageTagger(run.Model)
	return t, &run.Report, err
}

// rawTestSet reads the test pictures at the model's size, unprepared
// (the tagger prepares them): the folder's, or MNIST's test set.
func rawTestSet(dir string, t *engine.ImageTagger) (*frontend.LabelledImages, error) {
	if dir == "" {
		if err := defaults.EnsureMNIST(io.Discard); err != nil {
			return nil, err
		}
		d := defaults.MNISTDir()
		return frontend.ReadIDXPair(filepath.Join(d, "t10k-images-idx3-ubyte"), filepath.Join(d, "t10k-labels-idx1-ubyte"))
	}
	f, err := datasets.ListImageFolder(dir, t.Model.Labels)
	if err != nil {
		return nil, err
	}
	return f.Decode(t.Input.Height, t.Input.Width)
}

// scoreTest fills the test error, overall and among the pictures the rule
// accepts, the share it rejects, and the curve's thresholds, read off the
// test familiarities.
func scoreTest(ev *imagesEval, res []engine.ImageResult, labels []int, names []string) {
	wrong, rejected, wrongAccepted := 0, 0, 0
	fam := make([]float64, len(res))
	for i, r := range res {
		bad := r.Tags[0].Label != names[labels[i]]
		if bad {
			wrong++
		}
		if r.OutOfDomain {
			rejected++
		} else if bad {
			wrongAccepted++
		}
		fam[i] = r.Familiarity
	}
	n := float64(len(res))
	ev.TestError, ev.TestRejected = float64(wrong)/n, float64(rejected)/n
	ev.ErrorAccepted = float64(wrongAccepted) / max(n-float64(rejected), 1)
	slices.Sort(fam)
	for _, share := range curveShares {
		th := fam[int(share*n)]
		ev.CurveThresholds = append(ev.CurveThresholds, th)
		ev.CurveTestRejected = append(ev.CurveTestRejected, below(fam, th))
	}
}

// below is the share of the sorted values under th.
func below(sorted []float64, th float64) float64 {
	i, _ := slices.BinarySearch(sorted, th)
	return float64(i) / float64(len(sorted))
}

// rejectOthers classifies a set of pictures of no class and measures the
// share the rule rejects and the share each curve threshold does.
func rejectOthers(t *engine.ImageTagger, s namedSet, ev *imagesEval) (otherSet, error) {
	res, err := t.Classify(s.x, 1)
	if err != nil {
		return otherSet{}, err
	}
	o := otherSet{Name: s.name, N: len(res)}
	fam := make([]float64, len(res))
	for i, r := range res {
		if r.OutOfDomain {
			o.Rejected++
		}
		fam[i] = r.Familiarity
	}
	o.Rejected /= float64(len(res))
	slices.Sort(fam)
	for _, th := range ev.CurveThresholds {
		o.Curve = append(o.Curve, below(fam, th))
	}
	return o, nil
}

// printImagesEval writes the table of what eval images measured.
func printImagesEval(w io.Writer, ev imagesEval) {
	fmt.Fprintf(w, "test: %d pictures%s, error %.2f%%", ev.TestN, map[bool]string{true: " (inverted)"}[ev.TestInverted], 100*ev.TestError)
	if ev.Rule == nil {
		fmt.Fprintln(w, "; the model has no out-of-domain rule")
		return
	}
	fmt.Fprintf(w, "; out-of-domain rule (familiarity < %.4f, %d components): %.2f%% of test pictures rejected, error of the rest %.2f%%\n",
		ev.Rule.MinFamiliarity, ev.Rule.Components, 100*ev.TestRejected, 100*ev.ErrorAccepted)
	if len(ev.Others) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "pictures of no class\tn\trejected by the model's rule")
	for i, share := range ev.CurveTestRejected {
		fmt.Fprintf(tw, "\tat %.1f%% of test (θ %.3f)", 100*share, ev.CurveThresholds[i])
	}
	fmt.Fprintln(tw)
	for _, o := range ev.Others {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%", o.Name, o.N, 100*o.Rejected)
		for _, r := range o.Curve {
			fmt.Fprintf(tw, "\t%.1f%%", 100*r)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// namedSet is a set of pictures of no class, raw at the model's size.
type namedSet struct {
	name string
	x    blas32.General
}

// otherSets reads the pictures of dir (each subfolder a set) and
// generates synth pictures of each synthetic kind and the letters.
func otherSets(dir string, synth, h, w int) ([]namedSet, error) {
	var sets []namedSet
	if dir != "" {
		f, err := datasets.ListImageFolder(dir, nil)
		if err != nil {
			return nil, err
		}
		all, err := f.Decode(h, w)
		if err != nil {
			return nil, err
		}
		for c, name := range f.Classes {
			var rows []int
			for i, l := range all.Labels {
				if l == c {
					rows = append(rows, i)
				}
			}
			sets = append(sets, namedSet{name, train.GatherImages(all, rows).X})
		}
	}
	if synth > 0 {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, kind := range fixtures.ShapeKinds {
			x := linalg.NewGeneral32(synth, h*w)
			for i := 0; i < synth; i++ {
				if err := rasterInto(linalg.Row32(x, i), fixtures.Shape(kind, 2*max(h, w), rng), h, w); err != nil {
					return nil, err
				}
			}
			sets = append(sets, namedSet{kind, x})
		}
		letters := []rune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
		x := linalg.NewGeneral32(len(letters), h*w)
		for i, ch := range letters {
			if err := rasterInto(linalg.Row32(x, i), fixtures.Letter(ch, max(h, w)), h, w); err != nil {
				return nil, err
			}
		}
		sets = append(sets, namedSet{"letters", x})
	}
	return sets, nil
}

// rasterInto brings a generated picture to h×w through the decoder's own
// path (encoded as PNG and decoded), as a file of it would be.
func rasterInto(dst []float32, im image.Image, h, w int) error {
	_, b, err := fixtures.EncodePicture(im, 0)
	if err != nil {
		return err
	}
	px, err := frontend.DecodeImage(b, h, w)
	if err != nil {
		return err
	}
	copy(dst, px)
	return nil
}
