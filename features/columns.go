package features

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/registry"
)

// Applier computes features without being a recipe of its own: what a
// column builder returns (a few columns of a larger map).
type Applier interface {
	InDim() int
	OutDim() int
	Apply(dst, x blas32.General)
}

// ColumnBuilder builds, from a recipe, an Applier whose output j equals
// output column cols[j] of the recipe's map, without drawing the columns it
// does not keep. Leverage-score selection keeps a few hundred features of a
// pool of thousands; with a column builder the selected map costs what a map
// of the kept size costs, in time and in memory. cols are distinct and
// ascending and lie in [0, OutDim).
type ColumnBuilder func(r Recipe, cols []int) (Applier, error)

var columnKinds = registry.New[ColumnBuilder]("features: column builder of map kind")

// RegisterColumns makes BuildColumns build kind's columns directly.
func RegisterColumns(kind string, b ColumnBuilder) { columnKinds.Register(kind, b) }

// BuildColumns returns an Applier for the columns cols of r's map, or
// ok == false when r's kind has no column builder (the caller then applies
// the whole map and picks columns).
func BuildColumns(r Recipe, cols []int) (a Applier, ok bool, err error) {
	b, err := columnKinds.Lookup(r.Kind)
	if err != nil {
		return nil, false, nil
	}
	if err := CheckColumns(cols, -1); err != nil {
		return nil, true, err
	}
	a, err = b(r, cols)
	return a, true, err
}

// CheckColumns verifies that cols are ascending, distinct and, when n ≥ 0,
// below n.
func CheckColumns(cols []int, n int) error {
	if len(cols) == 0 {
		return fmt.Errorf("features: no columns selected")
	}
	for i, c := range cols {
		if c < 0 || (n >= 0 && c >= n) {
			return fmt.Errorf("features: column %d outside [0, %d)", c, n)
		}
		if i > 0 && c <= cols[i-1] {
			return fmt.Errorf("features: columns must be ascending and distinct (%d after %d)", c, cols[i-1])
		}
	}
	return nil
}

// normalChunk is how many normal variates ForEachNormal32 draws at a time.
// It is even, so Box–Muller pairs never straddle two chunks and the values
// are exactly those one FillNormal32 call over the whole range would give.
const normalChunk = 1 << 16

// ForEachNormal32 draws n standard normals from r, exactly as
// FillNormal32(r, make([]float32, n)) would, and hands them to visit in
// consecutive chunks (off is the index of chunk[0]) without ever holding all
// n: a map can keep the rows of the few units it needs from a stream
// defining millions of values.
func ForEachNormal32(r *rand.Rand, n int, visit func(off int, chunk []float32)) {
	buf := make([]float32, min(n, normalChunk))
	for off := 0; off < n; off += normalChunk {
		c := buf[:min(normalChunk, n-off)]
		FillNormal32(r, c)
		visit(off, c)
	}
}
