package features

import (
	"encoding/json"
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/registry"
)

// Map is a random feature map applied to a batch of inputs at once.
// Implementations must be safe for concurrent use by multiple goroutines.
type Map interface {
	// InDim is the length of an input row.
	InDim() int
	// OutDim is the length of a feature row.
	OutDim() int
	// Apply writes the features of each row of x (n×InDim) to the
	// same row of dst (n×OutDim).
	Apply(dst, x blas32.General)
	// Recipe returns what Build needs to rebuild the map exactly.
	Recipe() Recipe
}

// Recipe defines a map completely: its kind, its input length, its seed and
// its kind-specific parameters (a JSON object owned by the kind).
type Recipe struct {
	Kind   string          `json:"kind"`
	In     int             `json:"in"`
	Seed   uint64          `json:"seed"`
	Params json.RawMessage `json:"params,omitempty"`

	// cachedDraws is set by Load: the map comes from a model file, whose
	// draws the next process loading it will want again.
	cachedDraws bool
}

// Builder rebuilds a map from its recipe.
type Builder func(Recipe) (Map, error)

var kinds = registry.New[Builder]("features: map kind")

// Register makes a kind buildable by Build. Packages that define maps call it
// from init; registering a kind twice panics, as it is a programming error.
func Register(kind string, b Builder) { kinds.Register(kind, b) }

// Kinds lists the registered kinds in sorted order.
func Kinds() []string { return kinds.Kinds() }

// Load is Build for a map a model file names: a kind that draws through
// Recipe.DrawNormal32 reads large draws from the data cache when an
// earlier process drew them (SeededNormal32). Training builds its maps
// with Build, so the lab's many sizes and seeds fill no cache.
func Load(r Recipe) (Map, error) {
	r.cachedDraws = true
	return Build(r)
}

// DrawNormal32 fills dst as FillNormal32(NewRand(r.Seed, stream), dst)
// does; for a recipe given to Load, through the data cache.
func (r Recipe) DrawNormal32(stream Stream, dst []float32) {
	if r.cachedDraws {
		SeededNormal32(r.Seed, stream, dst)
		return
	}
	FillNormal32(NewRand(r.Seed, stream), dst)
}

// Build rebuilds the map a recipe describes.
func Build(r Recipe) (Map, error) {
	b, err := kinds.Lookup(r.Kind)
	if err != nil {
		return nil, err
	}
	if r.In <= 0 {
		return nil, fmt.Errorf("features: %s recipe has input dimension %d", r.Kind, r.In)
	}
	return b(r)
}

// MarshalParams encodes kind-specific parameters for a Recipe.
func MarshalParams(p any) json.RawMessage { return registry.Marshal(p) }

// UnmarshalParams decodes a recipe's parameters strictly: an unknown field is
// an error, so a model file from a newer version is refused, not misread.
func UnmarshalParams(r Recipe, p any) error {
	if err := registry.UnmarshalStrict(r.Params, p); err != nil {
		return fmt.Errorf("features: %s parameters: %w", r.Kind, err)
	}
	return nil
}

// CheckShapes panics with a clear message when dst and x do not fit m.
// Shape errors are programming errors; input validation happens upstream.
func CheckShapes(m Map, dst, x blas32.General) {
	if x.Cols != m.InDim() || dst.Cols != m.OutDim() || dst.Rows != x.Rows {
		panic(fmt.Sprintf("features: %s map %d→%d applied to %dx%d into %dx%d",
			m.Recipe().Kind, m.InDim(), m.OutDim(), x.Rows, x.Cols, dst.Rows, dst.Cols))
	}
}

// Apply maps all rows of x through m, block rows at a time (4096 when block
// ≤ 0), and returns the n×OutDim features.
func Apply(m Map, x blas32.General, block int) blas32.General {
	if block <= 0 {
		block = 4096
	}
	z := linalg.NewGeneral32(x.Rows, m.OutDim())
	for b0 := 0; b0 < x.Rows; b0 += block {
		b1 := min(b0+block, x.Rows)
		m.Apply(linalg.Rows32(z, b0, b1), linalg.Rows32(x, b0, b1))
	}
	return z
}
