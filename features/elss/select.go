package elss

import (
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
)

// Choose keeps m of the candidates scored q (len(q) = M0) by algorithm alg
// and returns the kept pool columns (ascending, distinct) with their
// weights. Algorithm 1 draws from stream 0 of seed.
//
// Weights are relative to the pool's columns, which a map of M0 outputs
// scales for M0 features. A plain map of m features is m uniform draws, so
// the weight 1/√(m·p_k) turns column k into that draw's feature with the
// importance correction: for uniform p it is √(M0/m), exactly rescaling
// the pool's 1/√M0 into a plain map's 1/√m, and in general
// E Σ_j z_j(x)z_j(y) = Σ_k φ_k(x)φ_k(y), the pool's kernel estimate,
// whatever the map's own scaling. Algorithm 2 uses √(M0/m) for every kept
// column, so its features have a plain m-feature map's scale.
func Choose(q []float64, m int, alg Algorithm, seed uint64) (kept []int, weights []float32, err error) {
	m0 := len(q)
	if m < 1 || m > m0 {
		return nil, nil, fmt.Errorf("elss: cannot keep %d of %d candidates", m, m0)
	}
	var total float64
	for k, v := range q {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("elss: score %d is %v", k, v)
		}
		total += v
	}
	if total == 0 {
		return nil, nil, fmt.Errorf("elss: every score is zero")
	}
	switch alg {
	case Top:
		order := make([]int, m0)
		for i := range order {
			order[i] = i
		}
		// Ties go to the lower index, so the choice is a function of q.
		sort.SliceStable(order, func(a, b int) bool { return q[order[a]] > q[order[b]] })
		kept = append([]int(nil), order[:m]...)
		sort.Ints(kept)
		w := float32(math.Sqrt(float64(m0) / float64(m)))
		weights = make([]float32, m)
		for i := range weights {
			weights[i] = w
		}
		return kept, weights, nil
	case Sample:
		cdf := make([]float64, m0)
		var run float64
		for k, v := range q {
			run += v
			cdf[k] = run / total
		}
		count := make(map[int]int)
		r := features.NewRand(seed, 0)
		for j := 0; j < m; j++ {
			u := features.Uniform(r)
			k := sort.SearchFloat64s(cdf, u)
			// SearchFloat64s finds the first cdf ≥ u; skip zero-probability
			// candidates that share its value, and guard u rounding past 1.
			for k < m0-1 && (q[k] == 0 || cdf[k] <= u) {
				k++
			}
			count[k]++
		}
		for k := range count {
			kept = append(kept, k)
		}
		sort.Ints(kept)
		weights = make([]float32, len(kept))
		for i, k := range kept {
			p := q[k] / total
			weights[i] = float32(math.Sqrt(float64(count[k]) / (float64(m) * p)))
		}
		return kept, weights, nil
	}
	return nil, nil, fmt.Errorf("elss: algorithm %d (1: sampled, 2: top scores)", alg)
}

// Config describes a selection. The selected map keeps as many features as
// the base map has (M); the pool is the base map with Pool times its m.
type Config struct {
	Algorithm Algorithm
	Pool      int     // pool size factor: M0 = Pool·M (default 10)
	Lambda    float64 // λ relative to the mean diagonal of G (default 1e-3)
	Side      Side
}

// Report is what scoring cost.
type Report struct {
	M0, N0         int
	Side           Side
	ScoreSeconds   float64 // Select: pool, features of the sample, Gram, factorisation, choice; Scorer.Select: factorisation and choice
	ScoreBytes     int64   // memory the scorer held at its peak
	EffectiveDim   float64 // Σ q_k: the pool's degrees of freedom on the sample at λ
	DistinctKept   int
	ScoresMaxToMin float64 // spread of the scores (1: uniform)
}

// PoolRecipe returns base with its parameter m multiplied by factor. The
// base kind must have an "m" parameter (fourier, maxout, invariant do): the
// count of i.i.d. draws the map averages over.
func PoolRecipe(base features.Recipe, factor int) (features.Recipe, error) {
	var p map[string]any
	if err := features.UnmarshalParams(base, &p); err != nil {
		return base, err
	}
	m, ok := p["m"].(float64)
	if !ok || m < 1 || m != math.Trunc(m) {
		return base, fmt.Errorf("elss: map kind %s has no feature count m to enlarge into a pool", base.Kind)
	}
	if factor < 1 || m*float64(factor) > 1<<30 {
		return base, fmt.Errorf("elss: pool of %d × %v candidates", factor, m)
	}
	p["m"] = int(m) * factor
	base.Params = features.MarshalParams(p)
	return base, nil
}

// Select builds the pool of base (its m multiplied by Pool), scores it on
// the unlabelled rows x0 and keeps as many features as base has. seed
// drives Algorithm 1.
func Select(base features.Recipe, x0 blas32.General, cfg Config, seed uint64) (*Map, Report, error) {
	cfg = cfg.withDefaults()
	start := time.Now()
	sc, poolRecipe, err := NewPoolScorer(base, cfg, x0)
	if err != nil {
		return nil, Report{}, err
	}
	mp, rep, err := sc.Select(poolRecipe, cfg, seed)
	rep.ScoreSeconds = time.Since(start).Seconds()
	return mp, rep, err
}

func (c Config) withDefaults() Config {
	if c.Pool <= 0 {
		c.Pool = 10
	}
	if c.Lambda == 0 {
		c.Lambda = 1e-3
	}
	return c
}

// NewPoolScorer builds the pool of base (cfg.Pool times its m) and its
// scorer on x0. The scorer can then select for several λ (see Scorer.Select).
func NewPoolScorer(base features.Recipe, cfg Config, x0 blas32.General) (*Scorer, features.Recipe, error) {
	cfg = cfg.withDefaults()
	pr, err := PoolRecipe(base, cfg.Pool)
	if err != nil {
		return nil, base, err
	}
	sc, err := NewRecipeScorer(pr, cfg.Side, x0)
	return sc, pr, err
}

// NewRecipeScorer builds the pool map of poolRecipe and its scorer on x0:
// for pools that PoolRecipe cannot make by enlarging a recipe's m, such as
// invariant maps whose templates are drawn from data (the caller draws
// Pool·m of them).
func NewRecipeScorer(poolRecipe features.Recipe, side Side, x0 blas32.General) (*Scorer, error) {
	if poolRecipe.Kind == Kind {
		return nil, fmt.Errorf("elss: a pool cannot itself be a selected map")
	}
	pool, err := features.Build(poolRecipe)
	if err != nil {
		return nil, err
	}
	return NewScorer(pool, x0, side)
}

// Select scores the pool at cfg.Lambda and keeps M0/cfg.Pool candidates.
func (s *Scorer) Select(poolRecipe features.Recipe, cfg Config, seed uint64) (*Map, Report, error) {
	cfg = cfg.withDefaults()
	start := time.Now()
	if s.M0()%cfg.Pool != 0 {
		return nil, Report{}, fmt.Errorf("elss: pool of %d candidates is not %d times a map", s.M0(), cfg.Pool)
	}
	m := s.M0() / cfg.Pool
	rep := Report{M0: s.M0(), N0: s.N0(), Side: s.side, ScoreBytes: s.Bytes()}
	q, err := s.Scores(cfg.Lambda)
	if err != nil {
		return nil, rep, err
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range q {
		rep.EffectiveDim += v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	rep.ScoresMaxToMin = hi / lo
	kept, w, err := Choose(q, m, cfg.Algorithm, seed)
	if err != nil {
		return nil, rep, err
	}
	rep.DistinctKept = len(kept)
	mp, err := New(Params{Base: poolRecipe, Kept: kept, Weights: w, Algorithm: cfg.Algorithm, M: m, Lambda: cfg.Lambda, N0: s.N0()}, seed)
	rep.ScoreSeconds = time.Since(start).Seconds()
	return mp, rep, err
}
