package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/transforms"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "xperm", Summary: "the permutation toy set: raw, bag-of-words, invariant map and exact Haar kernel (RLS, kNN)",
		Eval: evalXperm})
}

// xpermRow is one measured accuracy: the CSV's rows and the JSON's entries.
type xpermRow struct {
	Map        string  `json:"map"`
	Classifier string  `json:"classifier"`
	M          int     `json:"m,omitempty"`
	N          int     `json:"n,omitempty"`
	G          int     `json:"g,omitempty"`
	Draw       int     `json:"draw,omitempty"`
	Features   int     `json:"features"`
	Lambda     float64 `json:"lambda,omitempty"`
	Accuracy   float64 `json:"accuracy"`
	Seconds    float64 `json:"seconds"`
}

// xpermSummary is a mean ± std over template draws.
type xpermSummary struct {
	Map        string  `json:"map"`
	Classifier string  `json:"classifier"`
	M          int     `json:"m,omitempty"`
	N          int     `json:"n,omitempty"`
	G          int     `json:"g,omitempty"`
	Draws      int     `json:"draws"`
	Accuracy   float64 `json:"accuracy"`
	Std        float64 `json:"std"`
}

type xpermResult struct {
	Task      string         `json:"task"`
	Targets   []int          `json:"targets"`
	TrainN    int            `json:"train_n"`
	TestN     int            `json:"test_n"`
	Summaries []xpermSummary `json:"summaries"`
	Rows      []xpermRow     `json:"rows"`
	PeakRSSMB float64        `json:"peak_rss_mb"`
}

// xpermSet holds the data in the forms the maps need: one-hot rows and bag
// of words, both scaled to unit length so that one threshold range s = 1+ε
// and one λ grid fit every map.
type xpermSet struct {
	d                   *datasets.Xperm
	oneHot, bow         blas32.General // train rows first, then test rows
	labels              []int
	trainN              int
	trainIdx, testIdx   []int
	trainRows, testRows blas32.General // views of oneHot
}

func newXpermSet(targets []int, perClass int, seed uint64) (*xpermSet, error) {
	d, err := datasets.NewXperm(5, 8, targets)
	if err != nil {
		return nil, err
	}
	train, test, err := d.BalancedSplit(perClass, seed)
	if err != nil {
		return nil, err
	}
	order := append(append([]int(nil), train...), test...)
	s := &xpermSet{d: d, oneHot: linalg.NewGeneral32(len(order), 40), bow: linalg.NewGeneral32(len(order), 8),
		labels: make([]int, len(order)), trainN: len(train), trainIdx: train, testIdx: test}
	for r, i := range order {
		d.OneHot(linalg.Row32(s.oneHot, r), i)
		d.Counts(linalg.Row32(s.bow, r), i)
		s.labels[r] = d.Labels[i]
	}
	for _, x := range []blas32.General{s.oneHot, s.bow} {
		for r := 0; r < x.Rows; r++ {
			row := linalg.Row32(x, r)
			var n2 float64
			for _, v := range row {
				n2 += float64(v) * float64(v)
			}
			inv := float32(1 / math.Sqrt(n2))
			for k := range row {
				row[k] *= inv
			}
		}
	}
	s.trainRows = linalg.Rows32(s.oneHot, 0, s.trainN)
	s.testRows = linalg.Rows32(s.oneHot, s.trainN, s.oneHot.Rows)
	return s, nil
}

func accuracy(pred, labels []int) float64 { return 1 - classifier.ErrorRate(pred, labels) }

// rls trains RLS (λ on held-out training rows) on map fm of x's training
// rows and returns its test accuracy and λ.
func (s *xpermSet) rls(fm features.Map, x blas32.General, seed uint64) (float64, float64, error) {
	r, _, err := classifier.FitRLS(fm, linalg.Rows32(x, 0, s.trainN), s.labels[:s.trainN], 2, classifier.FitOptions{Seed: seed})
	if err != nil {
		return 0, 0, err
	}
	pred := classifier.Predict(fm, r, linalg.Rows32(x, s.trainN, x.Rows), 0)
	return accuracy(pred, s.labels[s.trainN:]), r.Lambda, nil
}

// knn scores the k-nearest-neighbour classifier on map fm of x.
func (s *xpermSet) knn(fm features.Map, x blas32.General, k int) (float64, error) {
	z := linalg.NewGeneral32(x.Rows, fm.OutDim())
	fm.Apply(z, x)
	nn, err := classifier.NewKNN(k, linalg.Rows32(z, 0, s.trainN), s.labels[:s.trainN])
	if err != nil {
		return 0, err
	}
	return accuracy(nn.Predict(linalg.Rows32(z, s.trainN, z.Rows)), s.labels[s.trainN:]), nil
}

// haarRLS fits kernel RLS with the exact Haar-integration kernel over all
// 120 permutations. λ is chosen on a seeded 10 % of the training rows (never
// the test set) over a decade grid relative to the kernel's mean diagonal,
// then the model is refit on every training row with λ scaled by N, as
// FitRLS does for the primal.
//
// The kernel depends on its arguments only through their orbits, and the
// 32768 sequences fall into C(12,5) = 792 orbits (multisets of 5 symbols):
// the kernel is computed once between orbit representatives and every
// entry of the 4000×4000 training kernel and the test rows is read from it.
func (s *xpermSet) haarRLS(g transforms.Group, k0 invariant.Base, seed uint64, log io.Writer) (float64, float64, error) {
	repOf := map[string]int{}
	var repRow []int // representative's row in s.oneHot
	orbit := make([]int, s.oneHot.Rows)
	for r, i := range append(append([]int(nil), s.trainIdx...), s.testIdx...) {
		key := orbitKey(s.d.Seqs[i])
		o, ok := repOf[key]
		if !ok {
			o = len(repRow)
			repOf[key] = o
			repRow = append(repRow, r)
		}
		orbit[r] = o
	}
	reps := linalg.NewGeneral32(len(repRow), s.oneHot.Cols)
	for o, r := range repRow {
		copy(linalg.Row32(reps, o), linalg.Row32(s.oneHot, r))
	}
	kr, err := invariant.HaarGram(g, k0, reps, reps)
	if err != nil {
		return 0, 0, err
	}
	kernel := func(rows, cols []int) blas64.General {
		m := linalg.NewGeneral64(len(rows), len(cols))
		for a, i := range rows {
			for b, j := range cols {
				m.Data[a*m.Stride+b] = kr.Data[orbit[i]*kr.Stride+orbit[j]]
			}
		}
		return m
	}
	n := s.trainN
	labels := s.labels[:n]
	order := rand.New(rand.NewPCG(seed, 0x686f6c64)).Perm(n)
	held, rest := order[:n/10], order[n/10:]
	sort.Ints(held)
	sort.Ints(rest)
	pick := func(idx []int) []int {
		out := make([]int, len(idx))
		for a, i := range idx {
			out[a] = labels[i]
		}
		return out
	}
	var diag float64
	for i := 0; i < n; i++ {
		diag += kr.Data[orbit[i]*kr.Stride+orbit[i]]
	}
	diag /= float64(n)
	kRest, kHeld := kernel(rest, rest), kernel(held, rest)
	bestRel, bestErr := 0.0, 2.0
	for _, rel := range []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1} {
		m, err := classifier.FitKernelRLS(kRest, pick(rest), 2, rel*diag)
		if err != nil {
			continue
		}
		e := classifier.ErrorRate(m.Predict(kHeld), pick(held))
		fmt.Fprintf(log, "  haar λ = %.3g (×%g of mean diag): held-out error %.4f\n", rel*diag, rel, e)
		if e <= bestErr {
			bestRel, bestErr = rel, e
		}
	}
	if bestRel == 0 {
		return 0, 0, fmt.Errorf("xperm: no λ gave a solvable Haar kernel system")
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	lambda := bestRel * diag * float64(n) / float64(len(rest))
	m, err := classifier.FitKernelRLS(kernel(all, all), labels, 2, lambda)
	if err != nil {
		return 0, 0, err
	}
	// One prediction per test orbit.
	var testReps []int
	seen := map[int]bool{}
	for r := n; r < len(orbit); r++ {
		if !seen[orbit[r]] {
			seen[orbit[r]] = true
			testReps = append(testReps, r)
		}
	}
	repPred := m.Predict(kernel(testReps, all))
	byOrbit := map[int]int{}
	for a, r := range testReps {
		byOrbit[orbit[r]] = repPred[a]
	}
	pred := make([]int, len(orbit)-n)
	for r := n; r < len(orbit); r++ {
		pred[r-n] = byOrbit[orbit[r]]
	}
	return accuracy(pred, s.labels[n:]), lambda, nil
}

func evalXperm(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval xperm", "[flags]", stderr)
	maps := fs.String("map", "raw,bow,invariant,haar", "maps to compare, comma-separated: raw (one-hot), bow (bag of words), invariant (CDF-pooled), haar (exact Haar-integration kernel RLS)")
	ms := fs.String("m", "5,10,25,50,100", "invariant: numbers of templates")
	bins := fs.String("bins", "1,5,10,20", "invariant: bins per side n (2n+1 thresholds)")
	gs := fs.String("g", "120", "invariant: group elements per template; 120 (or 0) uses all permutations, fewer are sampled from the Haar measure")
	gSweep := fs.String("g-sweep", "", "also measure accuracy against |G| at --g-m templates and --g-bins bins, e.g. 1,5,10,30,60,120")
	gM := fs.Int("g-m", 50, "templates of the |G| sweep")
	gBins := fs.Int("g-bins", 10, "bins of the |G| sweep")
	draws := fs.Int("draws", 10, "template draws (seeds 1…draws) to average the invariant map over")
	eps := fs.Float64("epsilon", 0.5, "invariant: Gaussian templates are rejected unless ‖t‖² < 1+ε; thresholds span [−(1+ε), 1+ε]")
	kernel := fs.String("kernel", "cdf", "haar: base kernels, comma-separated: cdf (s − ‖x−z‖/√(2πd), the map's limit), gaussian, linear")
	sigma := fs.Float64("sigma", 0.5, "haar: bandwidth of the gaussian base kernel")
	knnK := fs.Int("knn", 1, "also score k-nearest neighbours with this k on raw, bag of words and the invariant map at --g-m, --g-bins with all 120 permutations (0: skip)")
	targets := fs.String("targets", "0,1", "the two symbols a positive sequence contains")
	trainSeed := fs.Uint64("train-seed", 1, "seed of the balanced 2000/2000 training draw")
	out := fs.String("out", "", "base name of the CSV and plots (empty: none)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	tv, err := parseInts(*targets)
	if err != nil {
		return err
	}
	mv, err := parseInts(*ms)
	if err != nil {
		return err
	}
	nv, err := parseInts(*bins)
	if err != nil {
		return err
	}
	gv, err := parseInts(*gs)
	if err != nil {
		return err
	}
	var sweep []int
	if *gSweep != "" {
		if sweep, err = parseInts(*gSweep); err != nil {
			return err
		}
	}
	want := map[string]bool{}
	for _, k := range strings.Split(*maps, ",") {
		k = strings.TrimSpace(k)
		switch k {
		case "raw", "bow", "invariant", "haar":
			want[k] = true
		default:
			return fmt.Errorf("unknown --map %q (raw, bow, invariant, haar)", k)
		}
	}
	for _, v := range append(append(append([]int(nil), mv...), nv...), gv...) {
		if v < 0 {
			return fmt.Errorf("negative m, bins or g: %d", v)
		}
	}
	if *draws < 1 {
		return fmt.Errorf("--draws must be ≥ 1")
	}
	set, err := newXpermSet(tv, 2000, *trainSeed)
	if err != nil {
		return err
	}
	perm, err := transforms.NewPermutationGroup(5, 8)
	if err != nil {
		return err
	}
	res := xpermResult{Task: "xperm", Targets: tv, TrainN: set.trainN, TestN: len(set.testIdx)}
	fmt.Fprintf(stdout, "Xperm: all 8⁵ sequences, positive iff both %v occur; %d training (balanced), %d test\n\n", tv, set.trainN, len(set.testIdx))

	var cw *csv.Writer
	if *out != "" {
		f, w, err := createCSV(*out, []string{"map", "classifier", "m", "n", "g", "draw", "features", "lambda", "accuracy", "seconds"})
		if err != nil {
			return err
		}
		defer f.Close()
		cw = w
	}
	record := func(r xpermRow) {
		res.Rows = append(res.Rows, r)
		if cw != nil {
			cw.Write([]string{r.Map, r.Classifier, fmt.Sprint(r.M), fmt.Sprint(r.N), fmt.Sprint(r.G), fmt.Sprint(r.Draw), fmt.Sprint(r.Features),
				fmt.Sprintf("%.4g", r.Lambda), fmt.Sprintf("%.5f", r.Accuracy), fmt.Sprintf("%.2f", r.Seconds)})
			cw.Flush()
		}
		fmt.Fprintf(stderr, "%s %s m=%d n=%d g=%d draw=%d: accuracy %.4f (%.1fs)\n", r.Map, r.Classifier, r.M, r.N, r.G, r.Draw, r.Accuracy, r.Seconds)
	}
	summarise := func(mp, cl string, m, n, g int) xpermSummary {
		var acc []float64
		for _, r := range res.Rows {
			if r.Map == mp && r.Classifier == cl && r.M == m && r.N == n && r.G == g {
				acc = append(acc, r.Accuracy)
			}
		}
		mean, std := meanStd(acc)
		s := xpermSummary{Map: mp, Classifier: cl, M: m, N: n, G: g, Draws: len(acc), Accuracy: mean, Std: std}
		res.Summaries = append(res.Summaries, s)
		return s
	}

	// The fixed baselines.
	for _, b := range []struct {
		name string
		x    blas32.General
	}{{"raw", set.oneHot}, {"bow", set.bow}} {
		if !want[b.name] {
			continue
		}
		start := time.Now()
		fm := features.NewIdentity(b.x.Cols)
		acc, lambda, err := set.rls(fm, b.x, 1)
		if err != nil {
			return err
		}
		record(xpermRow{Map: b.name, Classifier: "rls", Features: b.x.Cols, Lambda: lambda, Accuracy: acc, Seconds: time.Since(start).Seconds()})
		summarise(b.name, "rls", 0, 0, 0)
		if *knnK > 0 {
			start = time.Now()
			acc, err := set.knn(fm, b.x, *knnK)
			if err != nil {
				return err
			}
			record(xpermRow{Map: b.name, Classifier: fmt.Sprintf("%d-nn", *knnK), Features: b.x.Cols, Accuracy: acc, Seconds: time.Since(start).Seconds()})
			summarise(b.name, fmt.Sprintf("%d-nn", *knnK), 0, 0, 0)
		}
	}

	invMap := func(m, n, g int, draw uint64) (*invariant.Map, error) {
		if g == 120 {
			g = 0 // every permutation once, not 120 draws with repeats
		}
		// GridBits makes the projections of one-hot rows exact, so the
		// features of a sequence and its permutations are bit-identical.
		return invariant.New(40, invariant.Params{M: m, N: n, G: g, Group: perm.Spec(), Epsilon: *eps, GridBits: 12}, draw)
	}
	runInvariant := func(m, n, g int) error {
		for d := 1; d <= *draws; d++ {
			start := time.Now()
			fm, err := invMap(m, n, g, uint64(d))
			if err != nil {
				return err
			}
			acc, lambda, err := set.rls(fm, set.oneHot, uint64(d))
			if err != nil {
				return err
			}
			record(xpermRow{Map: "invariant", Classifier: "rls", M: m, N: n, G: g, Draw: d, Features: fm.OutDim(), Lambda: lambda, Accuracy: acc, Seconds: time.Since(start).Seconds()})
		}
		return nil
	}
	if want["invariant"] {
		for _, g := range gv {
			if g == 0 {
				g = 120
			}
			for _, m := range mv {
				for _, n := range nv {
					if err := runInvariant(m, n, g); err != nil {
						return err
					}
					summarise("invariant", "rls", m, n, g)
				}
			}
		}
		for _, g := range sweep {
			if g == 0 {
				g = 120
			}
			if err := runInvariant(*gM, *gBins, g); err != nil {
				return err
			}
			summarise("invariant", "rls", *gM, *gBins, g)
		}
		if *knnK > 0 {
			// At the |G| sweep's m and n: a distance check over 28768×4000
			// pairs costs a product of that size per draw, which at the
			// largest grid point (4100 features) is ten times the fits.
			m, n, g := *gM, *gBins, 120
			cl := fmt.Sprintf("%d-nn", *knnK)
			for d := 1; d <= *draws; d++ {
				start := time.Now()
				fm, err := invMap(m, n, g, uint64(d))
				if err != nil {
					return err
				}
				acc, err := set.knn(fm, set.oneHot, *knnK)
				if err != nil {
					return err
				}
				record(xpermRow{Map: "invariant", Classifier: cl, M: m, N: n, G: g, Draw: d, Features: fm.OutDim(), Accuracy: acc, Seconds: time.Since(start).Seconds()})
			}
			summarise("invariant", cl, m, n, g)
		}
	}
	if want["haar"] {
		for _, k := range strings.Split(*kernel, ",") {
			var k0 invariant.Base
			switch strings.TrimSpace(k) {
			case "cdf":
				k0 = invariant.CDFBase(1+*eps, 40)
			case "gaussian":
				k0 = invariant.GaussianBase(*sigma)
			case "linear":
				k0 = invariant.LinearBase()
			default:
				return fmt.Errorf("unknown --kernel %q (cdf, gaussian, linear)", k)
			}
			start := time.Now()
			acc, lambda, err := set.haarRLS(perm, k0, 1, stderr)
			if err != nil {
				return err
			}
			name := "haar-" + strings.TrimSpace(k)
			record(xpermRow{Map: name, Classifier: "kernel-rls", G: 120, Features: set.trainN, Lambda: lambda, Accuracy: acc, Seconds: time.Since(start).Seconds()})
			summarise(name, "kernel-rls", 0, 0, 120)
		}
	}

	// The table: baselines, the m × n grid, the |G| sweep, kNN.
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "map\tclassifier\tm\tn\t|G|\tfeatures\tdraws\ttest accuracy %")
	for _, s := range res.Summaries {
		feat := ""
		for _, r := range res.Rows {
			if r.Map == s.Map && r.Classifier == s.Classifier && r.M == s.M && r.N == s.N && r.G == s.G {
				feat = fmt.Sprint(r.Features)
				break
			}
		}
		cell := func(v int) string {
			if v == 0 {
				return "–"
			}
			return fmt.Sprint(v)
		}
		acc := fmt.Sprintf("%.2f", 100*s.Accuracy)
		if s.Draws > 1 {
			acc = fmt.Sprintf("%.2f ± %.2f", 100*s.Accuracy, 100*s.Std)
		}
		if strings.HasPrefix(s.Map, "haar") {
			feat = "(kernel)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Map, s.Classifier, cell(s.M), cell(s.N), cell(s.G), feat, s.Draws, acc)
	}
	tw.Flush()
	res.PeakRSSMB = progress.PeakRSSMB()
	if *out != "" {
		if err := xpermPlots(*out, res, mv, nv, sweep, *gM, *gBins); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwrote %s.csv, %s-templates.{png,svg}", *out, *out)
		if len(sweep) > 0 {
			fmt.Fprintf(stdout, ", %s-group.{png,svg}", *out)
		}
		fmt.Fprintln(stdout)
		if err := cw.Error(); err != nil {
			return err
		}
	}
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// orbitKey names a sequence's orbit under the permutations of positions:
// its symbols in sorted order.
func orbitKey(seq []int) string {
	c := append([]int(nil), seq...)
	sort.Ints(c)
	return fmt.Sprint(c)
}

// xpermPlots draws accuracy against templates (one curve per n, baselines
// as flat lines) and, when measured, against |G|.
func xpermPlots(base string, res xpermResult, mv, nv, sweep []int, gM, gBins int) error {
	find := func(mp, cl string, m, n, g int) (xpermSummary, bool) {
		for _, s := range res.Summaries {
			if s.Map == mp && s.Classifier == cl && s.M == m && s.N == n && s.G == g {
				return s, true
			}
		}
		return xpermSummary{}, false
	}
	ms := append([]int(nil), mv...)
	sort.Ints(ms)
	lo, hi := float64(ms[0]), float64(ms[len(ms)-1])
	var series []plots.Series
	for _, n := range nv {
		var xs, ys, es []float64
		for _, m := range ms {
			if s, ok := find("invariant", "rls", m, n, 120); ok {
				xs, ys, es = append(xs, float64(m)), append(ys, 100*s.Accuracy), append(es, 100*s.Std)
			}
		}
		if len(xs) > 0 {
			series = append(series, plots.Series{Name: fmt.Sprintf("invariant, n=%d", n), X: xs, Y: ys, Err: es})
		}
	}
	for _, s := range res.Summaries {
		if s.Classifier != "rls" && s.Classifier != "kernel-rls" || s.Map == "invariant" {
			continue
		}
		series = append(series, plots.Series{Name: s.Map + " (" + s.Classifier + ")", X: []float64{lo, hi}, Y: []float64{100 * s.Accuracy, 100 * s.Accuracy}})
	}
	if len(series) > 0 {
		if err := plots.Lines(base+"-templates", plots.Chart{Title: "Xperm: RLS test accuracy against templates m (all 120 permutations)",
			XLabel: "templates m", YLabel: "test accuracy %", LogX: true, Series: series}); err != nil {
			return err
		}
	}
	if len(sweep) == 0 {
		return nil
	}
	var xs, ys, es []float64
	gsorted := append([]int(nil), sweep...)
	sort.Ints(gsorted)
	for _, g := range gsorted {
		if g == 0 {
			g = 120
		}
		if s, ok := find("invariant", "rls", gM, gBins, g); ok {
			xs, ys, es = append(xs, float64(g)), append(ys, 100*s.Accuracy), append(es, 100*s.Std)
		}
	}
	return plots.Lines(base+"-group", plots.Chart{Title: fmt.Sprintf("Xperm: invariant map m=%d n=%d against sampled group elements", gM, gBins),
		XLabel: "|G| (sampled permutations per template)", YLabel: "test accuracy %", LogX: true,
		Series: []plots.Series{{Name: "invariant + RLS", X: xs, Y: ys, Err: es}}})
}
