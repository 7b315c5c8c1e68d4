package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/internal/linalg"
)

// SelectOptions control SelectFeatures.
type SelectOptions struct {
	// Config is the selection; Config.Lambda = 0 chooses λ on held-out
	// training rows.
	Config elss.Config
	// N0 is how many unlabelled rows the scores are computed on
	// (default 2000).
	N0 int
	// Grid lists the λ (relative to the mean diagonal of G) tried when
	// Config.Lambda is 0 (default 1e-3 … 10 by decades: on MNIST the
	// held-out choice fell between 1e-3 and 10 for both algorithms).
	Grid []float64
	// SearchRows bounds the labelled rows used by the λ search, a tenth of
	// them held out (default 12000): the search ranks λ, it need not train
	// the final model.
	SearchRows int
	// Seed picks the sample, the search rows and Algorithm 1's draws.
	Seed uint64
	// PoolRecipe, when its Kind is set, is the pool to select from (it must
	// have Config.Pool times the base map's features); otherwise the pool is
	// base with its m multiplied by Config.Pool (elss.PoolRecipe). Invariant
	// maps with data templates need it: their templates are data rows, which
	// only the caller can draw.
	PoolRecipe features.Recipe
}

// SelectReport says what selection chose and what it cost.
type SelectReport struct {
	elss.Report
	Lambda float64
	Trials []classifier.LambdaTrial // λ search: held-out error of each λ
	// Seconds is the whole scoring cost (pool features of the sample, Gram,
	// factorisations, λ search included).
	Seconds float64
}

// SampleRows returns n seeded-random rows of x (all of them, in order, when
// n ≥ x.Rows).
func SampleRows(x blas32.General, n int, seed uint64) blas32.General {
	if n >= x.Rows {
		return x
	}
	idx := rand.New(rand.NewPCG(seed, 0x6e30)).Perm(x.Rows)[:n]
	sort.Ints(idx)
	out := linalg.NewGeneral32(n, x.Cols)
	for i, r := range idx {
		copy(linalg.Row32(out, i), linalg.Row32(x, r))
	}
	return out
}

// SelectFeatures selects base's features by leverage scores computed on N0
// rows of unlabelled. When opt.Config.Lambda is 0, λ is chosen by fitting
// RLS on the selected features of part of the labelled rows x and scoring
// the rest (never a test set); labels may then not be nil.
func SelectFeatures(base features.Recipe, unlabelled, x blas32.General, labels []int, classes int, opt SelectOptions) (*elss.Map, SelectReport, error) {
	start := time.Now()
	if opt.N0 <= 0 {
		opt.N0 = 2000
	}
	if len(opt.Grid) == 0 {
		opt.Grid = []float64{1e-3, 1e-2, 1e-1, 1, 10}
	}
	if opt.SearchRows <= 0 {
		opt.SearchRows = 12000
	}
	cfg := opt.Config
	x0 := SampleRows(unlabelled, opt.N0, opt.Seed)
	var sc *elss.Scorer
	poolRecipe := opt.PoolRecipe
	var err error
	if poolRecipe.Kind == "" {
		sc, poolRecipe, err = elss.NewPoolScorer(base, cfg, x0)
	} else {
		sc, err = elss.NewRecipeScorer(poolRecipe, cfg.Side, x0)
		if err == nil {
			err = checkPoolSize(base, sc.M0(), cfg.Pool)
		}
	}
	if err != nil {
		return nil, SelectReport{}, err
	}
	var rep SelectReport
	if cfg.Lambda == 0 {
		if x.Rows != len(labels) {
			return nil, rep, fmt.Errorf("rfstream: choosing the selection's λ needs labelled rows (%d rows, %d labels)", x.Rows, len(labels))
		}
		if rep.Trials, cfg.Lambda, err = searchSelectionLambda(sc, poolRecipe, cfg, x, labels, classes, opt); err != nil {
			return nil, rep, err
		}
	}
	mp, r, err := sc.Select(poolRecipe, cfg, opt.Seed)
	if err != nil {
		return nil, rep, err
	}
	rep.Report, rep.Lambda = r, cfg.Lambda
	rep.Seconds = time.Since(start).Seconds()
	return mp, rep, nil
}

// checkPoolSize verifies that a pool given by the caller has pool times
// base's features, so the selection keeps as many as base has.
func checkPoolSize(base features.Recipe, m0, pool int) error {
	bm, err := features.Build(base)
	if err != nil {
		return err
	}
	if pool <= 0 {
		pool = 10 // elss.Config's default
	}
	if m0 != pool*bm.OutDim() {
		return fmt.Errorf("rfstream: the given pool has %d features, not %d × the map's %d", m0, pool, bm.OutDim())
	}
	return nil
}

// searchSelectionLambda tries every λ of the grid: select, fit RLS (its own
// ridge chosen inside the fit rows) and count errors on held-out rows. Ties
// go to the larger λ, the one closer to plain sampling.
func searchSelectionLambda(sc *elss.Scorer, poolRecipe features.Recipe, cfg elss.Config, x blas32.General, labels []int, classes int, opt SelectOptions) ([]classifier.LambdaTrial, float64, error) {
	order := rand.New(rand.NewPCG(opt.Seed, 0x6c616d)).Perm(x.Rows)
	order = order[:min(len(order), opt.SearchRows)]
	nHeld := len(order) / 10
	if nHeld < 1 {
		return nil, 0, fmt.Errorf("rfstream: %d labelled rows are too few to choose the selection's λ; give it", x.Rows)
	}
	gather := func(rows []int) (blas32.General, []int) {
		sort.Ints(rows)
		g := linalg.NewGeneral32(len(rows), x.Cols)
		l := make([]int, len(rows))
		for i, r := range rows {
			copy(linalg.Row32(g, i), linalg.Row32(x, r))
			l[i] = labels[r]
		}
		return g, l
	}
	heldX, heldY := gather(order[:nHeld])
	fitX, fitY := gather(order[nHeld:])
	var trials []classifier.LambdaTrial
	best := -1
	for _, lambda := range opt.Grid {
		c := cfg
		c.Lambda = lambda
		mp, _, err := sc.Select(poolRecipe, c, opt.Seed)
		if err != nil {
			continue // e.g. too small a λ for the Gram: skip it
		}
		rls, _, err := classifier.FitRLS(mp, fitX, fitY, classes, classifier.FitOptions{Seed: opt.Seed})
		if err != nil {
			return nil, 0, err
		}
		e := classifier.ErrorRate(classifier.Predict(mp, rls, heldX, 0), heldY)
		trials = append(trials, classifier.LambdaTrial{Lambda: lambda, Relative: lambda, HeldOutError: e})
		if best < 0 || e <= trials[best].HeldOutError {
			best = len(trials) - 1
		}
	}
	if best < 0 {
		return nil, 0, fmt.Errorf("rfstream: no selection λ in %v could be scored", opt.Grid)
	}
	if math.IsNaN(trials[best].HeldOutError) {
		return nil, 0, fmt.Errorf("rfstream: selection λ search gave no error rate")
	}
	return trials, trials[best].Lambda, nil
}
