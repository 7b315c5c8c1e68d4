package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/maxout"
	"github.com/rfstream/rfstream/transforms"
)

// mapFlags are the flags that choose a feature map, shared by every task.
type mapFlags struct {
	kind  string
	m, q  int
	pool  int
	sigma float64
	seed  uint64
	// invariant map: bins per side, sampled group elements, and the group,
	// which the task sets because only it knows what its inputs are.
	bins, g   int
	templates string
	// mixRows is the number of rows a datamix template combines.
	mixRows int
	center  bool
	// centerCopies centres and normalises every transformed template copy.
	centerCopies bool
	s, eps       float64
	// lo, hi: a threshold range replacing [−s, s] (both zero: unused).
	lo, hi float64
	// templateRanges: "QLO,QHI" gives every template its own threshold
	// range, read off rangeRows unlabelled rows ("": one range for all).
	templateRanges string
	rangeRows      int
	group          *transforms.Spec
	// templateRows are the unlabelled rows that --templates data draws
	// from; a task that offers data templates sets them.
	templateRows *blas32.General
	// sel is the optional leverage-score selection of the map's features.
	sel selectFlags
}

func (f *mapFlags) register(fs *flag.FlagSet, defKind string, defM int) {
	fs.StringVar(&f.kind, "map", defKind, "feature map: maxout, fourier, identity (raw inputs)")
	fs.IntVar(&f.m, "m", defM, "number of random features (maxout units, Fourier features)")
	fs.IntVar(&f.q, "q", 4, "maxout: projections per unit")
	fs.IntVar(&f.pool, "pool", 0, "maxout: draw units' projections from a shared pool of this many (0: private)")
	fs.Float64Var(&f.sigma, "sigma", 0, "fourier: Gaussian kernel bandwidth (0: the median distance heuristic, about 1 for unit-length inputs)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed of the map")
	fs.IntVar(&f.bins, "bins", 5, "invariant: bins on each side of zero (2n+1 thresholds); features = m·(2n+1)")
	fs.IntVar(&f.g, "g", 30, "invariant: group elements sampled per template")
	fs.StringVar(&f.templates, "templates", invariant.Gaussian, "invariant: template source: gaussian (N(0,I/d), rejected unless ‖t‖² < 1+ε), sphere, data (unit-length rows of the unlabelled training inputs) datadiff (differences of two such rows) or datamix (zero-sum random combinations of --mix-rows such rows)")
	fs.IntVar(&f.mixRows, "mix-rows", 3, "invariant: rows each datamix template combines (weights N(0, 1) shifted to sum to zero)")
	fs.BoolVar(&f.center, "center", false, "invariant: subtract each data template's mean before scaling it to unit length")
	fs.BoolVar(&f.centerCopies, "center-copies", false, "invariant: centre every transformed template copy and scale it to unit length (transforms move pixels out of the frame)")
	fs.Float64Var(&f.s, "s", 0, "invariant: thresholds span [−s, s] (0: 1+ε, right for unit-length inputs)")
	fs.Float64Var(&f.lo, "lo", 0, "invariant: with --hi, put the 2n+1 thresholds evenly on [lo, hi] instead of [−s, s] (--s is then unused)")
	fs.Float64Var(&f.hi, "hi", 0, "invariant: upper end of the threshold range (see --lo)")
	fs.StringVar(&f.templateRanges, "template-ranges", "", "invariant: QLO,QHI (e.g. 0.01,0.99) spreads each template's thresholds evenly between those quantiles of its own projections of --range-rows unlabelled training rows, instead of one range for all")
	fs.IntVar(&f.rangeRows, "range-rows", 2000, "invariant: unlabelled training rows drawn to read --template-ranges off")
	fs.Float64Var(&f.eps, "epsilon", 0.5, "invariant: ε of the Gaussian templates' rejection bound")
	f.sel.register(fs)
}

// recipe returns the recipe the flags describe for inputs of length in.
func (f *mapFlags) recipe(in int) (features.Recipe, error) {
	r := features.Recipe{In: in, Seed: f.seed, Kind: f.kind}
	switch f.kind {
	case maxout.Kind:
		r.Params = features.MarshalParams(maxout.Params{M: f.m, Q: f.q, Pool: f.pool})
	case features.FourierKind:
		sigma := f.sigma
		if sigma == 0 {
			// For unit-length inputs squared distances lie in [0, 4]; a
			// bandwidth of 1 puts typical pairs on the kernel's slope.
			sigma = 1
		}
		r.Params = features.MarshalParams(features.FourierParams{M: f.m, Sigma: sigma})
	case invariant.Kind:
		if f.group == nil {
			return r, fmt.Errorf("--map invariant: this task defines no transformation group")
		}
		p := invariant.Params{M: f.m, N: f.bins, G: f.g, Group: *f.group, Templates: f.templates, S: f.s, Epsilon: f.eps, Center: f.center, CenterCopies: f.centerCopies}
		if f.templates == invariant.DataMix {
			p.MixRows = f.mixRows
		}
		if f.lo != 0 || f.hi != 0 {
			p.S, p.Lo, p.Hi = 0, f.lo, f.hi
		}
		qlo, qhi, err := f.rangeQuantiles()
		if err != nil {
			return r, err
		}
		if qhi != 0 && (f.lo != 0 || f.hi != 0) {
			return r, fmt.Errorf("--template-ranges replaces --lo and --hi (and --s): give one or the other")
		}
		if qhi == 0 && !invariant.FromData(f.templates) {
			r.Params = features.MarshalParams(p)
			break
		}
		if f.templateRows == nil {
			return r, fmt.Errorf("--templates %s --template-ranges %q: this task has no unlabelled rows to draw from", f.templates, f.templateRanges)
		}
		// The drawn rows and the ranges go into the recipe, so the map
		// rebuilds without the data.
		var m *invariant.Map
		if invariant.FromData(f.templates) {
			m, err = invariant.NewFromData(*f.templateRows, p, f.seed)
		} else {
			m, err = invariant.New(in, p, f.seed)
		}
		if err == nil && qhi != 0 {
			m, err = m.WithRanges(*f.templateRows, f.rangeRows, qlo, qhi)
		}
		if err != nil {
			return r, err
		}
		return m.Recipe(), nil
	case "identity", "raw":
		r.Kind = "identity"
	default:
		return r, fmt.Errorf("unknown --map %q (known kinds: %v)", f.kind, features.Kinds())
	}
	return r, nil
}

// rangeQuantiles parses --template-ranges; both zero when it is not given.
func (f *mapFlags) rangeQuantiles() (qlo, qhi float64, err error) {
	if f.templateRanges == "" {
		return 0, 0, nil
	}
	parts := strings.Split(f.templateRanges, ",")
	if len(parts) == 2 {
		qlo, err1 := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
		qhi, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		if err1 == nil && err2 == nil && 0 <= qlo && qlo < qhi && qhi <= 1 {
			return qlo, qhi, nil
		}
	}
	return 0, 0, fmt.Errorf("--template-ranges %q: want two quantiles QLO,QHI with 0 ≤ QLO < QHI ≤ 1", f.templateRanges)
}

// label describes the map for tables.
func (f *mapFlags) label(m features.Map) string {
	if f.sel.method != "" && f.sel.method != "none" {
		plain := *f
		plain.sel.method = ""
		return plain.label(m) + " " + f.sel.method
	}
	switch f.kind {
	case maxout.Kind:
		return fmt.Sprintf("maxout m=%d q=%d", f.m, f.q)
	case features.FourierKind:
		return fmt.Sprintf("fourier m=%d", f.m)
	case invariant.Kind:
		thr := ""
		if f.lo != 0 || f.hi != 0 {
			thr = fmt.Sprintf(" τ∈[%g,%g]", f.lo, f.hi)
		}
		if f.templateRanges != "" {
			thr = fmt.Sprintf(" τ per template on quantiles %s", f.templateRanges)
		}
		g := fmt.Sprint(f.g)
		if f.g == 0 {
			g = "all"
		}
		src := f.templates
		if src == invariant.DataMix {
			src = fmt.Sprintf("%s×%d", src, f.mixRows)
		}
		return fmt.Sprintf("invariant m=%d n=%d |G|=%s %s%s", f.m, f.bins, g, src, thr)
	}
	return fmt.Sprintf("%s d=%d", m.Recipe().Kind, m.OutDim())
}
