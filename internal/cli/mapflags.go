package cli

import (
	"flag"

	"github.com/rfstream/rfstream/train"
)

// MapFlags registers the flags that choose a feature map, shared by every
// task, with o's values as defaults (train.DefaultMapOptions gives a
// task's). They include the leverage-score selection flags (--pool and
// --lambda already mean maxout's shared projection pool and the RLS ridge,
// hence the select- prefix).
func MapFlags(fs *flag.FlagSet, o *train.MapOptions) {
	fs.StringVar(&o.Kind, "map", o.Kind, "feature map: maxout, fourier, identity (raw inputs)")
	fs.IntVar(&o.M, "m", o.M, "number of random features (maxout units, Fourier features)")
	fs.IntVar(&o.Q, "q", o.Q, "maxout: projections per unit")
	fs.IntVar(&o.Pool, "pool", o.Pool, "maxout: draw units' projections from a shared pool of this many (0: private)")
	fs.Float64Var(&o.Sigma, "sigma", o.Sigma, "fourier: Gaussian kernel bandwidth (0: the median distance heuristic, about 1 for unit-length inputs)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "random seed of the map")
	fs.IntVar(&o.Bins, "bins", o.Bins, "invariant: bins on each side of zero (2n+1 thresholds); features = m·(2n+1)")
	fs.IntVar(&o.G, "g", o.G, "invariant: group elements sampled per template")
	fs.StringVar(&o.Templates, "templates", o.Templates, "invariant: template source: gaussian (N(0,I/d), rejected unless ‖t‖² < 1+ε), sphere, data (unit-length rows of the unlabelled training inputs) datadiff (differences of two such rows) or datamix (zero-sum random combinations of --mix-rows such rows)")
	fs.IntVar(&o.MixRows, "mix-rows", o.MixRows, "invariant: rows each datamix template combines (weights N(0, 1) shifted to sum to zero)")
	fs.BoolVar(&o.Center, "center", o.Center, "invariant: subtract each data template's mean before scaling it to unit length")
	fs.BoolVar(&o.CenterCopies, "center-copies", o.CenterCopies, "invariant: centre every transformed template copy and scale it to unit length (transforms move pixels out of the frame)")
	fs.Float64Var(&o.S, "s", o.S, "invariant: thresholds span [−s, s] (0: 1+ε, right for unit-length inputs)")
	fs.Float64Var(&o.Lo, "lo", o.Lo, "invariant: with --hi, put the 2n+1 thresholds evenly on [lo, hi] instead of [−s, s] (--s is then unused)")
	fs.Float64Var(&o.Hi, "hi", o.Hi, "invariant: upper end of the threshold range (see --lo)")
	fs.StringVar(&o.TemplateRanges, "template-ranges", o.TemplateRanges, "invariant: QLO,QHI (e.g. 0.01,0.99) spreads each template's thresholds evenly between those quantiles of its own projections of --range-rows unlabelled training rows, instead of one range for all")
	fs.IntVar(&o.RangeRows, "range-rows", o.RangeRows, "invariant: unlabelled training rows drawn to read --template-ranges off")
	fs.Float64Var(&o.Epsilon, "epsilon", o.Epsilon, "invariant: ε of the Gaussian templates' rejection bound")
	s := &o.Selection
	fs.StringVar(&s.Method, "select", s.Method, "keep the map's m features out of a larger pool by leverage scores: elss1 (sampled, reweighted) or elss2 (top scores)")
	fs.IntVar(&s.Pool, "select-pool", s.Pool, "--select: the pool has this many times the map's features")
	fs.Float64Var(&s.Lambda, "select-lambda", s.Lambda, "--select: λ of the scores, relative to the mean diagonal of the pool's Gram (0: choose on held-out training rows)")
	fs.IntVar(&s.N0, "select-n0", s.N0, "--select: unlabelled training rows the scores are computed on")
}
