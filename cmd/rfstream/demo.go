package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

// demoPart is one section of `rfstream demo`; areas add theirs from their
// own files and the demo runs them in order.
type demoPart struct {
	order int
	name  string
	// takes says, before the part starts, what it trains and how long it
	// took in make demo on two cores (experiments/journal/house.md).
	takes string
	run   func(stdout, stderr io.Writer) error
}

var demoParts []demoPart

func registerDemoPart(p demoPart) { demoParts = append(demoParts, p) }

func init() {
	register(&command{name: "demo", summary: "fetch data, train, and run the live pipeline on real test data", run: runDemo})
	registerDemoPart(demoPart{order: 10, name: "MNIST: random maxout features + RLS", run: demoMNIST,
		takes: "fetches MNIST and trains its tagger: about 10 s on two cores"})
}

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[flags]", stderr)
	only := fs.String("parts", "", "run only these parts, by number, e.g. 1,4 (default: all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sort.SliceStable(demoParts, func(i, j int) bool { return demoParts[i].order < demoParts[j].order })
	chosen := map[int]bool{}
	for _, f := range strings.FieldsFunc(*only, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > len(demoParts) {
			return fmt.Errorf("--parts: %q is not a part number 1-%d", f, len(demoParts))
		}
		chosen[n] = true
	}
	start := time.Now()
	for i, p := range demoParts {
		if len(chosen) > 0 && !chosen[i+1] {
			continue
		}
		fmt.Fprintf(stdout, "\n== %d/%d %s ==\n", i+1, len(demoParts), p.name)
		fmt.Fprintf(stderr, "(part %d %s)\n", i+1, p.takes)
		partStart := time.Now()
		if err := p.run(stdout, stderr); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		fmt.Fprintf(stderr, "(part %d took %.0f s)\n", i+1, time.Since(partStart).Seconds())
	}
	fmt.Fprintf(stdout, "\ndemo finished in %.0fs\n", time.Since(start).Seconds())
	return nil
}

// demoMNISTModel is where the demo keeps its image model for later parts.
func demoMNISTModel() string { return defaults.DataDir() + "/models/mnist-maxout.rfm" }

func demoMNIST(stdout, stderr io.Writer) error {
	o := train.DefaultImageOptions()
	o.Log = stderr
	run, err := recipes.TrainImages(o, stderr)
	if err != nil {
		return err
	}
	r := run.Report
	fmt.Fprintf(stdout, "trained maxout m=%d q=%d on %d images in %.1fs (λ=%.3g chosen on held-out training images)\n", r.M, o.Map.Q, r.TrainN, r.TrainSeconds, r.Lambda)
	fmt.Fprintf(stdout, "test error on the %d MNIST test images: %.2f%% (paper, Table 1: 5.50%%)\n", r.TestN, 100*r.TestError)
	cli.ShowImageExamples(stdout, run, 12)
	return engine.SaveModel(demoMNISTModel(), run.Model)
}
