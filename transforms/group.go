package transforms

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/rfstream/rfstream/internal/registry"
)

// Element is one element of a group. Each group defines its own small
// concrete type (an Angle, a Shift, a Perm, a Pair) and only that group
// interprets it.
type Element interface {
	String() string
}

// Group is a group (or a local subset of one, closed under inverse) acting
// on vectors of length Dim.
type Group interface {
	// Dim is the length of the vectors the group acts on.
	Dim() int
	// Identity is the neutral element.
	Identity() Element
	// Sample draws n elements independently from the Haar measure of the
	// group, or the uniform measure of its local subset.
	Sample(r *rand.Rand, n int) []Element
	// Elements enumerates the group when it is finite; ok is false for a
	// continuous group.
	Elements() (elems []Element, ok bool)
	// Apply writes g·src to dst; both have length Dim and must not overlap.
	Apply(dst, src []float32, g Element)
	// Inverse returns g⁻¹.
	Inverse(g Element) Element
	// Compose returns a∘b, the element acting as b first, then a.
	Compose(a, b Element) Element
	// Spec describes the group so Build can rebuild it.
	Spec() Spec
}

// Spec describes a group: its kind and its kind-specific parameters.
type Spec struct {
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Builder rebuilds a group from its Spec.
type Builder func(Spec) (Group, error)

var kinds = registry.New[Builder]("transforms: group kind")

// Register makes a group kind buildable. Files defining groups call it from
// init; registering a kind twice panics.
func Register(kind string, b Builder) { kinds.Register(kind, b) }

// Kinds lists the registered group kinds in sorted order.
func Kinds() []string { return kinds.Kinds() }

// Build rebuilds the group a Spec describes.
func Build(s Spec) (Group, error) {
	b, err := kinds.Lookup(s.Kind)
	if err != nil {
		return nil, err
	}
	return b(s)
}

// marshalParams encodes a group's parameters for its Spec.
func marshalParams(p any) json.RawMessage { return registry.Marshal(p) }

// UnmarshalParams decodes a Spec's parameters strictly: unknown fields are an
// error, so a spec from a newer version is refused rather than misread.
func UnmarshalParams(s Spec, p any) error {
	if err := registry.UnmarshalStrict(s.Params, p); err != nil {
		return fmt.Errorf("transforms: %s parameters: %w", s.Kind, err)
	}
	return nil
}

// MarshalParams is marshalParams for groups defined in other files or
// packages.
func MarshalParams(p any) json.RawMessage { return marshalParams(p) }

// Uniform returns a float64 in [0, 1) from the top 53 bits of one draw.
func Uniform(r *rand.Rand) float64 {
	return float64(r.Uint64()>>11) * (1.0 / (1 << 53))
}

// Intn returns an integer uniform in [0, n) by rejection on 64-bit draws, so
// the result is a fixed function of the stream.
func Intn(r *rand.Rand, n int) int {
	if n <= 0 {
		panic("transforms: Intn of a non-positive bound")
	}
	un := uint64(n)
	// Draws below (2⁶⁴ mod n) are rejected, leaving a multiple of n values.
	thresh := -un % un
	for {
		v := r.Uint64()
		if v >= thresh {
			return int(v % un)
		}
	}
}

// SampleFinite draws n elements uniformly (with replacement) from elems:
// the Haar measure of a finite group.
func SampleFinite(r *rand.Rand, elems []Element, n int) []Element {
	out := make([]Element, n)
	for i := range out {
		out[i] = elems[Intn(r, len(elems))]
	}
	return out
}

func checkLen(g Group, dst, src []float32) {
	if len(dst) != g.Dim() || len(src) != g.Dim() {
		panic(fmt.Sprintf("transforms: %s acts on length %d, got dst %d src %d", g.Spec().Kind, g.Dim(), len(dst), len(src)))
	}
}
