package main

import (
	"flag"
	"fmt"
	"io"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/train"
)

// selectFlags choose leverage-score selection (ELSS) of any map's features.
// They are part of mapFlags, so every task has them. (--pool and --lambda
// already mean maxout's shared projection pool and the RLS ridge, hence the
// select- prefix.)
type selectFlags struct {
	method string
	pool   int
	lambda float64
	n0     int
}

func (f *selectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.method, "select", "", "keep the map's m features out of a larger pool by leverage scores: elss1 (sampled, reweighted) or elss2 (top scores)")
	fs.IntVar(&f.pool, "select-pool", 10, "--select: the pool has this many times the map's features")
	fs.Float64Var(&f.lambda, "select-lambda", 0, "--select: λ of the scores, relative to the mean diagonal of the pool's Gram (0: choose on held-out training rows)")
	fs.IntVar(&f.n0, "select-n0", 2000, "--select: unlabelled training rows the scores are computed on")
}

// algorithm returns the chosen algorithm, or 0 when no selection is asked.
func (f *selectFlags) algorithm() (elss.Algorithm, error) {
	switch f.method {
	case "", "none", "plain":
		return 0, nil
	case "elss1":
		return elss.Sample, nil
	case "elss2":
		return elss.Top, nil
	}
	return 0, fmt.Errorf("unknown --select %q (elss1, elss2)", f.method)
}

// selection is what a task records about a selection.
type selection struct {
	Method         string                   `json:"select,omitempty"`
	SelectLambda   float64                  `json:"select_lambda,omitempty"`
	PoolM0         int                      `json:"pool_m0,omitempty"`
	N0             int                      `json:"n0,omitempty"`
	Distinct       int                      `json:"distinct_features,omitempty"`
	ScoreSeconds   float64                  `json:"score_seconds,omitempty"`
	ScoreMB        float64                  `json:"score_mb,omitempty"`          // memory the scorer held (features of the sample, Gram, factor)
	ScorePeakRSSMB float64                  `json:"score_peak_rss_mb,omitempty"` // process peak RSS after scoring, before training
	Trials         []classifier.LambdaTrial `json:"select_lambda_trials,omitempty"`
}

// selectFeatures selects the features of base (the recipe of f) when
// --select is given: scores on rows of unlabelled, λ (when not given) chosen
// on held-out rows of the labelled x. Without --select it returns base
// unchanged and a nil selection.
func (f *mapFlags) selectFeatures(base features.Recipe, unlabelled, x blas32.General, labels []int, classes int, log io.Writer) (features.Recipe, *selection, error) {
	var pool features.Recipe // zero: base with its m multiplied
	if f.kind == invariant.Kind && invariant.FromData(f.templates) && f.sel.method != "" {
		// Data templates are rows of the data, not draws from the seed:
		// the pool draws --select-pool times as many rows itself.
		if f.sel.pool < 1 {
			return base, nil, fmt.Errorf("--select-pool %d: must be at least 1", f.sel.pool)
		}
		pf := *f
		pf.sel, pf.m = selectFlags{}, f.m*f.sel.pool
		var err error
		if pool, err = pf.recipe(base.In); err != nil {
			return base, nil, fmt.Errorf("--select pool: %w", err)
		}
	}
	return f.sel.apply(base, pool, unlabelled, x, labels, classes, log)
}

// refuseSelect is for the tasks that register the map flags but do not
// select features (their training is not one RLS fit on one matrix of
// inputs): --select there is an error, not silently ignored.
func (f *mapFlags) refuseSelect(task string) error {
	if alg, err := f.sel.algorithm(); err != nil || alg != 0 {
		return fmt.Errorf("--select %q: %s does not select features (eval/train mnist and digits, eval elss do)", f.sel.method, task)
	}
	return nil
}

// apply is selectFeatures with the pool given (zero Kind: base with its m
// multiplied by --select-pool).
func (f *selectFlags) apply(base, pool features.Recipe, unlabelled, x blas32.General, labels []int, classes int, log io.Writer) (features.Recipe, *selection, error) {
	alg, err := f.algorithm()
	if err != nil || alg == 0 {
		return base, nil, err
	}
	opt := train.SelectOptions{Config: elss.Config{Algorithm: alg, Pool: f.pool, Lambda: f.lambda}, N0: f.n0, Seed: base.Seed, PoolRecipe: pool}
	mp, rep, err := train.SelectFeatures(base, unlabelled, x, labels, classes, opt)
	if err != nil {
		return base, nil, err
	}
	s := &selection{Method: f.method, SelectLambda: rep.Lambda, PoolM0: rep.M0, N0: rep.N0, Distinct: rep.DistinctKept,
		ScoreSeconds: rep.Seconds, ScoreMB: float64(rep.ScoreBytes) / (1 << 20), ScorePeakRSSMB: peakRSSMB(), Trials: rep.Trials}
	if log != nil {
		for _, t := range rep.Trials {
			fmt.Fprintf(log, "  selection λ = %g: held-out error %.4f\n", t.Lambda, t.HeldOutError)
		}
		fmt.Fprintf(log, "%s: kept %d of %d candidates (scores from %d rows, %s side, λ=%g, Σq=%.0f) in %.1fs, scorer %.0f MiB\n",
			f.method, rep.DistinctKept, rep.M0, rep.N0, rep.Side, rep.Lambda, rep.EffectiveDim, rep.Seconds, s.ScoreMB)
	}
	return mp.Recipe(), s, nil
}
