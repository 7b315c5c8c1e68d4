package elss

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Kind is the recipe kind of a selected map.
const Kind = "elss"

// Algorithm is how candidates are kept.
type Algorithm int

const (
	// Sample is Algorithm 1: i.i.d. draws from p_k ∝ q_k, reweighted.
	Sample Algorithm = 1
	// Top is Algorithm 2: the M largest scores, unweighted.
	Top Algorithm = 2
)

// Params are a selected map's recipe parameters.
type Params struct {
	// Base is the recipe of the pool: the base map with M0 outputs.
	Base features.Recipe `json:"base"`
	// Kept lists the pool columns kept, ascending and distinct.
	Kept []int `json:"kept"`
	// Weights multiplies each kept column.
	Weights []float32 `json:"weights"`
	// Provenance, not needed to rebuild: the algorithm, the M asked for
	// (Algorithm 1 merges repeated draws of a candidate into one column
	// weighted by √count, which gives the same kernel and the same ridge
	// fit, so len(Kept) ≤ M), λ relative to the mean diagonal of G, and
	// the sample size the scores came from.
	Algorithm Algorithm `json:"algorithm"`
	M         int       `json:"m"`
	Lambda    float64   `json:"lambda"`
	N0        int       `json:"n0"`
}

// Map is a selected feature map. It is safe for concurrent use.
type Map struct {
	seed    uint64
	p       Params
	in, m0  int
	cols    features.Applier // the kept columns, when the base kind builds columns
	pool    features.Map     // otherwise the whole pool, applied in row chunks
	weights []float32
	scratch sync.Pool
}

func init() {
	features.Register(Kind, func(r features.Recipe) (features.Map, error) {
		var p Params
		if err := features.UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		if r.In != p.Base.In {
			return nil, fmt.Errorf("elss: recipe input dimension %d but base map's %d", r.In, p.Base.In)
		}
		return New(p, r.Seed)
	})
}

// New builds the selected map of p. The seed is the selection's, recorded
// in the recipe; the pool's own seed is in p.Base.
func New(p Params, seed uint64) (*Map, error) {
	if p.Base.Kind == Kind {
		return nil, fmt.Errorf("elss: the base of a selected map cannot itself be a selected map")
	}
	if len(p.Weights) != len(p.Kept) {
		return nil, fmt.Errorf("elss: %d kept columns but %d weights", len(p.Kept), len(p.Weights))
	}
	for i, w := range p.Weights {
		if !(w > 0) || math.IsInf(float64(w), 0) {
			return nil, fmt.Errorf("elss: weight %d is %v (must be positive and finite)", i, w)
		}
	}
	if p.Algorithm != Sample && p.Algorithm != Top {
		return nil, fmt.Errorf("elss: algorithm %d (1: sampled, 2: top scores)", p.Algorithm)
	}
	mp := &Map{seed: seed, p: p, in: p.Base.In, weights: p.Weights}
	cols, ok, err := features.BuildColumns(p.Base, p.Kept)
	if err != nil {
		return nil, fmt.Errorf("elss: %w", err)
	}
	if ok {
		mp.cols = cols
		return mp, nil
	}
	pool, err := features.Build(p.Base)
	if err != nil {
		return nil, fmt.Errorf("elss: %w", err)
	}
	if err := features.CheckColumns(p.Kept, pool.OutDim()); err != nil {
		return nil, fmt.Errorf("elss: %w", err)
	}
	mp.pool, mp.m0 = pool, pool.OutDim()
	return mp, nil
}

func (mp *Map) InDim() int  { return mp.in }
func (mp *Map) OutDim() int { return len(mp.p.Kept) }

// Params returns the selection.
func (mp *Map) Params() Params { return mp.p }

func (mp *Map) Recipe() features.Recipe {
	return features.Recipe{Kind: Kind, In: mp.in, Seed: mp.seed, Params: features.MarshalParams(mp.p)}
}

// poolChunkValues bounds the pool features held at once on the fallback
// path (rows × M0 float32 values, 16 MB).
const poolChunkValues = 1 << 22

// Apply computes the kept, weighted features of every row of x.
func (mp *Map) Apply(dst, x blas32.General) {
	features.CheckShapes(mp, dst, x)
	if x.Rows == 0 {
		return
	}
	if mp.cols != nil {
		mp.cols.Apply(dst, x)
		for i := 0; i < dst.Rows; i++ {
			row := linalg.Row32(dst, i)
			for j, w := range mp.weights {
				row[j] *= w
			}
		}
		return
	}
	chunk := max(1, min(x.Rows, poolChunkValues/mp.m0))
	buf := mp.getScratch(chunk * mp.m0)
	defer mp.scratch.Put(&buf)
	for r0 := 0; r0 < x.Rows; r0 += chunk {
		r1 := min(r0+chunk, x.Rows)
		z := blas32.General{Rows: r1 - r0, Cols: mp.m0, Stride: mp.m0, Data: buf[:(r1-r0)*mp.m0]}
		mp.pool.Apply(z, linalg.Rows32(x, r0, r1))
		for i := 0; i < z.Rows; i++ {
			src, out := linalg.Row32(z, i), linalg.Row32(dst, r0+i)
			for j, c := range mp.p.Kept {
				out[j] = src[c] * mp.weights[j]
			}
		}
	}
}

func (mp *Map) getScratch(n int) []float32 {
	if s, ok := mp.scratch.Get().(*[]float32); ok && cap(*s) >= n {
		return (*s)[:n]
	}
	return make([]float32, n)
}
