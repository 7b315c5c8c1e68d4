package transforms

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// ProductKind is the Spec kind of ProductGroup.
const ProductKind = "product"

// ProductParams describe a ProductGroup by its factors' specs.
type ProductParams struct {
	Factors []Spec `json:"factors"`
}

// ProductGroup is the direct product of groups acting on the same vectors:
// the element (g₀, g₁, …, g_k) acts as g₀·(g₁·(…(g_k·x))). Sampling draws each
// factor independently, so the product of local subsets (rotations within
// ±20° and shifts within ±3 px) is sampled uniformly.
//
// Compose and Inverse work factor by factor: they are the composition and
// inverse of the actions exactly when the factors' actions commute (pitch
// and tempo, shifts along two axes). Rotations and translations do not
// commute, and then Compose and Inverse are those of the abstract direct
// product, which is all the invariant map needs (it only samples and
// applies elements).
type ProductGroup struct {
	factors []Group
	dim     int
	warp    bool // every factor is an image warp of the same size: resample once
}

// Tuple is an element of a ProductGroup: one element per factor.
type Tuple []Element

func (t Tuple) String() string {
	s := make([]string, len(t))
	for i, e := range t {
		s[i] = e.String()
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func init() {
	Register(ProductKind, func(s Spec) (Group, error) {
		var p ProductParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		gs := make([]Group, len(p.Factors))
		for i, f := range p.Factors {
			g, err := Build(f)
			if err != nil {
				return nil, err
			}
			gs[i] = g
		}
		return NewProductGroup(gs...)
	})
}

// NewProductGroup returns the product of groups acting on vectors of the
// same length.
func NewProductGroup(factors ...Group) (*ProductGroup, error) {
	if len(factors) == 0 {
		return nil, fmt.Errorf("transforms: a product group needs at least one factor")
	}
	p := &ProductGroup{factors: factors, dim: factors[0].Dim(), warp: true}
	var sz ImageSize
	for i, f := range factors {
		if f.Dim() != p.dim {
			return nil, fmt.Errorf("transforms: product factors act on lengths %d and %d", p.dim, f.Dim())
		}
		w, ok := f.(imageWarper)
		if !ok || (i > 0 && w.size() != sz) {
			p.warp = false
		} else {
			sz = w.size()
		}
	}
	return p, nil
}

// Factors returns the factor groups.
func (p *ProductGroup) Factors() []Group { return p.factors }

func (p *ProductGroup) Dim() int { return p.dim }

func (p *ProductGroup) Spec() Spec {
	specs := make([]Spec, len(p.factors))
	for i, f := range p.factors {
		specs[i] = f.Spec()
	}
	return Spec{Kind: ProductKind, Params: marshalParams(ProductParams{Factors: specs})}
}

func (p *ProductGroup) Identity() Element {
	t := make(Tuple, len(p.factors))
	for i, f := range p.factors {
		t[i] = f.Identity()
	}
	return t
}

// Sample draws every factor independently; the draws of factor i come
// after all draws of factor i−1, so adding a factor never changes the
// elements sampled for earlier ones.
func (p *ProductGroup) Sample(r *rand.Rand, n int) []Element {
	per := make([][]Element, len(p.factors))
	for i, f := range p.factors {
		per[i] = f.Sample(r, n)
	}
	out := make([]Element, n)
	for k := range out {
		t := make(Tuple, len(p.factors))
		for i := range p.factors {
			t[i] = per[i][k]
		}
		out[k] = t
	}
	return out
}

// Elements enumerates the Cartesian product when every factor is finite.
func (p *ProductGroup) Elements() ([]Element, bool) {
	out := []Element{Tuple{}}
	for _, f := range p.factors {
		es, ok := f.Elements()
		if !ok {
			return nil, false
		}
		next := make([]Element, 0, len(out)*len(es))
		for _, prefix := range out {
			for _, e := range es {
				t := append(append(Tuple{}, prefix.(Tuple)...), e)
				next = append(next, t)
			}
		}
		out = next
	}
	return out, true
}

func (p *ProductGroup) tuple(e Element) Tuple {
	t, ok := e.(Tuple)
	if !ok || len(t) != len(p.factors) {
		panic(fmt.Sprintf("transforms: %v is not an element of a %d-factor product", e, len(p.factors)))
	}
	return t
}

// Apply applies the last factor first. Image warps are fused into one
// resampling, so a rotated and shifted template is interpolated once.
func (p *ProductGroup) Apply(dst, src []float32, e Element) {
	checkLen(p, dst, src)
	t := p.tuple(e)
	if p.warp {
		w0 := p.factors[0].(imageWarper)
		m := w0.sourceMap(t[0])
		for i := 1; i < len(t); i++ {
			m = m.followedBy(p.factors[i].(imageWarper).sourceMap(t[i]))
		}
		warpBilinear(dst, src, w0.size(), m)
		return
	}
	cur := append([]float32(nil), src...)
	for i := len(t) - 1; i >= 0; i-- {
		p.factors[i].Apply(dst, cur, t[i])
		copy(cur, dst)
	}
}

func (p *ProductGroup) Inverse(e Element) Element {
	t := p.tuple(e)
	inv := make(Tuple, len(t))
	for i, f := range p.factors {
		inv[i] = f.Inverse(t[i])
	}
	return inv
}

func (p *ProductGroup) Compose(a, b Element) Element {
	ta, tb := p.tuple(a), p.tuple(b)
	c := make(Tuple, len(ta))
	for i, f := range p.factors {
		c[i] = f.Compose(ta[i], tb[i])
	}
	return c
}
