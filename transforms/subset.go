package transforms

import (
	"fmt"
	"math/rand/v2"
)

// SubsetKind is the Spec kind of Subset.
const SubsetKind = "subset"

// SubsetParams describe a Subset by its group and the indices of the kept
// elements in the group's enumeration.
type SubsetParams struct {
	Group   Spec  `json:"group"`
	Indices []int `json:"indices"`
}

// Subset is a local subset of a finite group, closed under inverse: the
// elements a predicate keeps, plus their inverses. Sampling is uniform on
// the subset. Compose may leave the subset (a local subset is not a group);
// the result is still an element of the whole group.
type Subset struct {
	g     Group
	idx   []int
	elems []Element
}

func init() {
	Register(SubsetKind, func(s Spec) (Group, error) {
		var p SubsetParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		g, err := Build(p.Group)
		if err != nil {
			return nil, err
		}
		return newSubset(g, p.Indices)
	})
}

// Restrict returns the subset of the finite group g that keep selects,
// closed under inverse by adding the inverses of the kept elements.
func Restrict(g Group, keep func(Element) bool) (*Subset, error) {
	all, ok := g.Elements()
	if !ok {
		return nil, fmt.Errorf("transforms: Restrict needs a finite group; %s is not enumerable (restrict it through its own parameters)", g.Spec().Kind)
	}
	index := make(map[string]int, len(all))
	for i, e := range all {
		index[e.String()] = i
	}
	in := make([]bool, len(all))
	for i, e := range all {
		if keep(e) {
			in[i] = true
			j, ok := index[g.Inverse(e).String()]
			if !ok {
				return nil, fmt.Errorf("transforms: inverse of %v is not among the elements of %s", e, g.Spec().Kind)
			}
			in[j] = true
		}
	}
	var idx []int
	for i, k := range in {
		if k {
			idx = append(idx, i)
		}
	}
	return newSubset(g, idx)
}

func newSubset(g Group, idx []int) (*Subset, error) {
	all, ok := g.Elements()
	if !ok {
		return nil, fmt.Errorf("transforms: a subset needs a finite group")
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("transforms: empty subset of %s", g.Spec().Kind)
	}
	s := &Subset{g: g, idx: append([]int(nil), idx...)}
	for _, i := range idx {
		if i < 0 || i >= len(all) {
			return nil, fmt.Errorf("transforms: subset index %d outside a group of %d elements", i, len(all))
		}
		s.elems = append(s.elems, all[i])
	}
	return s, nil
}

func (s *Subset) Dim() int                             { return s.g.Dim() }
func (s *Subset) Identity() Element                    { return s.g.Identity() }
func (s *Subset) Sample(r *rand.Rand, n int) []Element { return SampleFinite(r, s.elems, n) }
func (s *Subset) Elements() ([]Element, bool)          { return s.elems, true }
func (s *Subset) Apply(dst, src []float32, e Element)  { s.g.Apply(dst, src, e) }
func (s *Subset) Inverse(e Element) Element            { return s.g.Inverse(e) }
func (s *Subset) Compose(a, b Element) Element         { return s.g.Compose(a, b) }
func (s *Subset) Spec() Spec {
	return Spec{Kind: SubsetKind, Params: marshalParams(SubsetParams{Group: s.g.Spec(), Indices: s.idx})}
}
