package transforms

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// PermutationKind is the Spec kind of PermutationGroup.
const PermutationKind = "permutation"

// PermutationParams describe a PermutationGroup.
type PermutationParams struct {
	// Positions is the sequence length L; the group is all L! orderings.
	Positions int `json:"positions"`
	// Block is the length of one position's vector (the alphabet size for
	// one-hot sequences).
	Block int `json:"block"`
}

// PermutationGroup permutes the positions of a sequence of Positions blocks
// of Block values each (a one-hot sequence is the usual case). The element
// p sends the block at position i to position p[i].
type PermutationGroup struct {
	p     PermutationParams
	elems []Element // all permutations, built on first use
}

// Perm is an element of a PermutationGroup: Perm[i] is where position i goes.
type Perm []int

func (p Perm) String() string {
	s := make([]string, len(p))
	for i, v := range p {
		s[i] = strconv.Itoa(v)
	}
	return "perm(" + strings.Join(s, ",") + ")"
}

func init() {
	Register(PermutationKind, func(s Spec) (Group, error) {
		var p PermutationParams
		if err := UnmarshalParams(s, &p); err != nil {
			return nil, err
		}
		return NewPermutationGroup(p.Positions, p.Block)
	})
}

// maxEnumerated bounds the finite groups we enumerate whole (10! = 3.6M).
const maxPositions = 10

// NewPermutationGroup returns the symmetric group on positions blocks of
// length block.
func NewPermutationGroup(positions, block int) (*PermutationGroup, error) {
	if positions < 1 || block < 1 {
		return nil, fmt.Errorf("transforms: permutation group needs positions, block ≥ 1, have %d, %d", positions, block)
	}
	return &PermutationGroup{p: PermutationParams{Positions: positions, Block: block}}, nil
}

func (g *PermutationGroup) Dim() int { return g.p.Positions * g.p.Block }
func (g *PermutationGroup) Spec() Spec {
	return Spec{Kind: PermutationKind, Params: marshalParams(g.p)}
}

func (g *PermutationGroup) Identity() Element {
	id := make(Perm, g.p.Positions)
	for i := range id {
		id[i] = i
	}
	return id
}

// Sample draws uniform permutations by Fisher–Yates shuffles.
func (g *PermutationGroup) Sample(r *rand.Rand, n int) []Element {
	out := make([]Element, n)
	for k := range out {
		p := g.Identity().(Perm)
		for i := len(p) - 1; i > 0; i-- {
			j := Intn(r, i+1)
			p[i], p[j] = p[j], p[i]
		}
		out[k] = p
	}
	return out
}

// Elements lists all Positions! permutations in lexicographic order.
func (g *PermutationGroup) Elements() ([]Element, bool) {
	if g.p.Positions > maxPositions {
		return nil, false
	}
	if g.elems == nil {
		var out []Element
		p := g.Identity().(Perm)
		for {
			out = append(out, append(Perm(nil), p...))
			if !nextPermutation(p) {
				break
			}
		}
		g.elems = out
	}
	return g.elems, true
}

// nextPermutation advances p to the next permutation in lexicographic
// order, reporting false after the last one.
func nextPermutation(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	for a, b := i+1, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
	return true
}

func (g *PermutationGroup) perm(e Element) Perm {
	p, ok := e.(Perm)
	if !ok || len(p) != g.p.Positions {
		panic(fmt.Sprintf("transforms: %v is not an element of the permutation group on %d positions", e, g.p.Positions))
	}
	return p
}

// Apply moves block i of src to block p[i] of dst.
func (g *PermutationGroup) Apply(dst, src []float32, e Element) {
	checkLen(g, dst, src)
	p := g.perm(e)
	b := g.p.Block
	for i, to := range p {
		copy(dst[to*b:(to+1)*b], src[i*b:(i+1)*b])
	}
}

func (g *PermutationGroup) Inverse(e Element) Element {
	p := g.perm(e)
	inv := make(Perm, len(p))
	for i, to := range p {
		inv[to] = i
	}
	return inv
}

// Compose returns a∘b: position i goes to b[i], then to a[b[i]].
func (g *PermutationGroup) Compose(a, b Element) Element {
	pa, pb := g.perm(a), g.perm(b)
	c := make(Perm, len(pa))
	for i := range c {
		c[i] = pa[pb[i]]
	}
	return c
}
