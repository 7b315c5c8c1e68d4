package train

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

// MapOptions choose a feature map of any kind, and optionally a
// leverage-score selection of its features; every task's map is described
// by them. Error messages name the command-line flags that set each field
// (internal/cli.MapFlags), since that is where a wrong value comes from.
type MapOptions struct {
	Kind  string // maxout, fourier, invariant or identity
	M, Q  int    // features (maxout units, Fourier features, templates); maxout's projections per unit
	Pool  int    // maxout: units draw their projections from a shared pool of this many (0: private)
	Sigma float64
	Seed  uint64
	// Invariant map: bins per side, sampled group elements per template,
	// and where templates come from (invariant.Gaussian, …).
	Bins, G   int
	Templates string
	// MixRows is the number of rows a datamix template combines.
	MixRows int
	Center  bool
	// CenterCopies centres and normalises every transformed template copy.
	CenterCopies bool
	S, Epsilon   float64
	// Lo, Hi: a threshold range replacing [−S, S] (both zero: unused).
	Lo, Hi float64
	// TemplateRanges "QLO,QHI" gives every template its own threshold
	// range, read off RangeRows unlabelled rows ("": one range for all).
	TemplateRanges string
	RangeRows      int
	// Group is the invariant map's group, which the task sets because
	// only it knows what its inputs are.
	Group *transforms.Spec
	// TemplateRows are the unlabelled rows data templates draw from; a
	// task that offers data templates sets them.
	TemplateRows *blas32.General
	// Selection optionally keeps the map's M features out of a larger pool
	// by leverage scores (ELSS).
	Selection FeatureSelection
}

// FeatureSelection chooses leverage-score selection (ELSS) of a map's
// features: Method "" or "none" (off), "elss1" (sampled, reweighted) or
// "elss2" (top scores); a pool of Pool times the map's features scored on
// N0 unlabelled rows, with ridge Lambda relative to the mean diagonal of
// the pool's Gram (0: chosen on held-out training rows).
type FeatureSelection struct {
	Method string
	Pool   int
	Lambda float64
	N0     int
}

// DefaultMapOptions are the map settings every task starts from, with its
// own kind and size: the command line's defaults.
func DefaultMapOptions(kind string, m int) MapOptions {
	return MapOptions{Kind: kind, M: m, Q: 4, Seed: 1, Bins: 5, G: 30, Templates: invariant.Gaussian, MixRows: 3,
		RangeRows: 2000, Epsilon: 0.5, Selection: FeatureSelection{Pool: 10, N0: 2000}}
}

// Recipe returns the recipe the options describe for inputs of length in.
func (o MapOptions) Recipe(in int) (features.Recipe, error) {
	r := features.Recipe{In: in, Seed: o.Seed, Kind: o.Kind}
	switch o.Kind {
	case maxout.Kind:
		r.Params = features.MarshalParams(maxout.Params{M: o.M, Q: o.Q, Pool: o.Pool})
	case features.FourierKind:
		sigma := o.Sigma
		if sigma == 0 {
			// For unit-length inputs squared distances lie in [0, 4]; a
			// bandwidth of 1 puts typical pairs on the kernel's slope.
			sigma = 1
		}
		r.Params = features.MarshalParams(features.FourierParams{M: o.M, Sigma: sigma})
	case invariant.Kind:
		return o.invariantRecipe(r, in)
	case "identity", "raw":
		r.Kind = "identity"
	default:
		return r, fmt.Errorf("unknown --map %q (known kinds: %v)", o.Kind, features.Kinds())
	}
	return r, nil
}

// Dim is the number of features of the map the options describe, before
// any selection: M for maxout and Fourier maps, M·(2·Bins+1) for the
// invariant map (M templates, 2·Bins+1 thresholds each).
func (o MapOptions) Dim() (int, error) {
	switch o.Kind {
	case maxout.Kind, features.FourierKind:
		return o.M, nil
	case invariant.Kind:
		return o.M * (2*o.Bins + 1), nil
	}
	return 0, fmt.Errorf("a %q map has no dimension of its own", o.Kind)
}

// EqualDimension returns o turned into a map of kind with as many
// features as o has (its other settings kept): what "maxout and Fourier
// of equal dimension" means beside an invariant map of m templates × 2n+1
// bins, and back.
func (o MapOptions) EqualDimension(kind string) (MapOptions, error) {
	d, err := o.Dim()
	if err != nil {
		return o, err
	}
	c := o
	c.Kind = kind
	switch kind {
	case maxout.Kind, features.FourierKind:
		c.M = d
	case invariant.Kind:
		nb := 2*o.Bins + 1
		if o.Bins < 1 || d%nb != 0 {
			return o, fmt.Errorf("%d features are not a whole number of templates of %d thresholds", d, nb)
		}
		c.M = d / nb
	default:
		return o, fmt.Errorf("no map of kind %q has a dimension to match", kind)
	}
	return c, nil
}

// invariantRecipe is Recipe for the invariant map.
func (o MapOptions) invariantRecipe(r features.Recipe, in int) (features.Recipe, error) {
	if o.Group == nil {
		return r, fmt.Errorf("--map invariant: this task defines no transformation group")
	}
	p := invariant.Params{M: o.M, N: o.Bins, G: o.G, Group: *o.Group, Templates: o.Templates, S: o.S, Epsilon: o.Epsilon, Center: o.Center, CenterCopies: o.CenterCopies}
	if o.Templates == invariant.DataMix {
		p.MixRows = o.MixRows
	}
	if o.Lo != 0 || o.Hi != 0 {
		p.S, p.Lo, p.Hi = 0, o.Lo, o.Hi
	}
	qlo, qhi, err := o.rangeQuantiles()
	if err != nil {
		return r, err
	}
	if qhi != 0 && (o.Lo != 0 || o.Hi != 0) {
		return r, fmt.Errorf("--template-ranges replaces --lo and --hi (and --s): give one or the other")
	}
	if qhi == 0 && !invariant.FromData(o.Templates) {
		r.Params = features.MarshalParams(p)
		return r, nil
	}
	if o.TemplateRows == nil {
		return r, fmt.Errorf("--templates %s --template-ranges %q: this task has no unlabelled rows to draw from", o.Templates, o.TemplateRanges)
	}
	// The drawn rows and the ranges go into the recipe, so the map
	// rebuilds without the data.
	var m *invariant.Map
	if invariant.FromData(o.Templates) {
		m, err = invariant.NewFromData(*o.TemplateRows, p, o.Seed)
	} else {
		m, err = invariant.New(in, p, o.Seed)
	}
	if err == nil && qhi != 0 {
		m, err = m.WithRanges(*o.TemplateRows, o.RangeRows, qlo, qhi)
	}
	if err != nil {
		return r, err
	}
	return m.Recipe(), nil
}

// rangeQuantiles parses TemplateRanges; both zero when it is not given.
func (o MapOptions) rangeQuantiles() (qlo, qhi float64, err error) {
	if o.TemplateRanges == "" {
		return 0, 0, nil
	}
	parts := strings.Split(o.TemplateRanges, ",")
	if len(parts) == 2 {
		qlo, err1 := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
		qhi, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		if err1 == nil && err2 == nil && 0 <= qlo && qlo < qhi && qhi <= 1 {
			return qlo, qhi, nil
		}
	}
	return 0, 0, fmt.Errorf("--template-ranges %q: want two quantiles QLO,QHI with 0 ≤ QLO < QHI ≤ 1", o.TemplateRanges)
}

// Label describes the map for tables.
func (o MapOptions) Label(m features.Map) string {
	if o.Selection.Method != "" && o.Selection.Method != "none" {
		plain := o
		plain.Selection.Method = ""
		return plain.Label(m) + " " + o.Selection.Method
	}
	switch o.Kind {
	case maxout.Kind:
		return fmt.Sprintf("maxout m=%d q=%d", o.M, o.Q)
	case features.FourierKind:
		return fmt.Sprintf("fourier m=%d", o.M)
	case invariant.Kind:
		thr := ""
		if o.Lo != 0 || o.Hi != 0 {
			thr = fmt.Sprintf(" τ∈[%g,%g]", o.Lo, o.Hi)
		}
		if o.TemplateRanges != "" {
			thr = fmt.Sprintf(" τ per template on quantiles %s", o.TemplateRanges)
		}
		g := fmt.Sprint(o.G)
		if o.G == 0 {
			g = "all"
		}
		src := o.Templates
		if src == invariant.DataMix {
			src = fmt.Sprintf("%s×%d", src, o.MixRows)
		}
		return fmt.Sprintf("invariant m=%d n=%d |G|=%s %s%s", o.M, o.Bins, g, src, thr)
	}
	return fmt.Sprintf("%s d=%d", m.Recipe().Kind, m.OutDim())
}

// Algorithm returns the chosen selection algorithm, or 0 when no
// selection is asked.
func (s FeatureSelection) Algorithm() (elss.Algorithm, error) {
	switch s.Method {
	case "", "none", "plain":
		return 0, nil
	case "elss1":
		return elss.Sample, nil
	case "elss2":
		return elss.Top, nil
	}
	return 0, fmt.Errorf("unknown --select %q (elss1, elss2)", s.Method)
}

// SelectionRecord is what a task records about a selection (in its JSON
// report, and in the metadata of a model trained with one).
type SelectionRecord struct {
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

// Select selects the features of base (the recipe of o) when a selection
// is asked: scores on rows of unlabelled, λ (when not given) chosen on
// held-out rows of the labelled x. Without one it returns base unchanged
// and a nil record. log, when not nil, receives the λ trials and a summary.
func (o MapOptions) Select(base features.Recipe, unlabelled, x blas32.General, labels []int, classes int, log io.Writer) (features.Recipe, *SelectionRecord, error) {
	var pool features.Recipe // zero: base with its m multiplied
	if o.Kind == invariant.Kind && invariant.FromData(o.Templates) && o.Selection.Method != "" {
		// Data templates are rows of the data, not draws from the seed:
		// the pool draws Pool times as many rows itself.
		if o.Selection.Pool < 1 {
			return base, nil, fmt.Errorf("--select-pool %d: must be at least 1", o.Selection.Pool)
		}
		po := o
		po.Selection, po.M = FeatureSelection{}, o.M*o.Selection.Pool
		var err error
		if pool, err = po.Recipe(base.In); err != nil {
			return base, nil, fmt.Errorf("--select pool: %w", err)
		}
	}
	return o.Selection.apply(base, pool, unlabelled, x, labels, classes, log)
}

// RefuseSelect is for the tasks that take map options but do not select
// features (their training is not one RLS fit on one matrix of inputs): a
// selection there is an error, not silently ignored.
func (o MapOptions) RefuseSelect(task string) error {
	if alg, err := o.Selection.Algorithm(); err != nil || alg != 0 {
		return fmt.Errorf("--select %q: %s does not select features (eval/train mnist and digits, eval elss do)", o.Selection.Method, task)
	}
	return nil
}

// apply is Select with the pool given (zero Kind: base with its m
// multiplied by Pool).
func (s FeatureSelection) apply(base, pool features.Recipe, unlabelled, x blas32.General, labels []int, classes int, log io.Writer) (features.Recipe, *SelectionRecord, error) {
	alg, err := s.Algorithm()
	if err != nil || alg == 0 {
		return base, nil, err
	}
	opt := SelectOptions{Config: elss.Config{Algorithm: alg, Pool: s.Pool, Lambda: s.Lambda}, N0: s.N0, Seed: base.Seed, PoolRecipe: pool}
	mp, rep, err := SelectFeatures(base, unlabelled, x, labels, classes, opt)
	if err != nil {
		return base, nil, err
	}
	rec := &SelectionRecord{Method: s.Method, SelectLambda: rep.Lambda, PoolM0: rep.M0, N0: rep.N0, Distinct: rep.DistinctKept,
		ScoreSeconds: rep.Seconds, ScoreMB: float64(rep.ScoreBytes) / (1 << 20), ScorePeakRSSMB: progress.PeakRSSMB(), Trials: rep.Trials}
	if log != nil {
		for _, t := range rep.Trials {
			fmt.Fprintf(log, "  selection λ = %g: held-out error %.4f\n", t.Lambda, t.HeldOutError)
		}
		fmt.Fprintf(log, "%s: kept %d of %d candidates (scores from %d rows, %s side, λ=%g, Σq=%.0f) in %.1fs, scorer %.0f MiB\n",
			s.Method, rep.DistinctKept, rep.M0, rep.N0, rep.Side, rep.Lambda, rep.EffectiveDim, rep.Seconds, rec.ScoreMB)
	}
	return mp.Recipe(), rec, nil
}

// Build returns the map the options describe for the rows x (labels y of
// classes classes), selected when a selection is asked: data templates
// draw from x unless TemplateRows says otherwise, and a selection scores x
// as unlabelled rows and chooses its λ with the labels when it is not
// given. It is the map phase of every read-out fitted on one matrix of
// inputs (Words, eval digits).
func (o MapOptions) Build(x blas32.General, y []int, classes int, log io.Writer) (features.Map, *SelectionRecord, error) {
	if o.TemplateRows == nil {
		o.TemplateRows = &x
	}
	recipe, err := o.Recipe(x.Cols)
	if err != nil {
		return nil, nil, err
	}
	recipe, sel, err := o.Select(recipe, x, x, y, classes, log)
	if err != nil {
		return nil, nil, err
	}
	mp, err := features.Build(recipe)
	return mp, sel, err
}
