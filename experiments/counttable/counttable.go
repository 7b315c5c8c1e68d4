// Package counttable keeps the features a count map gives a fixed set of
// inputs, so that an experiment fitting many subsets of them (eval
// mnist-sizes' training draws) maps each input once.
package counttable

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Kind is the recipe kind a Table reports. No builder is
// registered for it: a table holds the features of one data set and is
// not a model anyone can rebuild or save.
const Kind = "count-table"

// Table holds the features a classifier.CountMap gives a fixed set of inputs,
// as their integer counts (one byte each when the counts fit), so that
// fits on many subsets of those inputs, such as the paper's training draws,
// map each input once instead of once a draw. As a Map its input is a
// single column holding a row number of the table (Input builds it),
// and its features are the source map's for that row, bit for bit: they
// are rebuilt as float32(count)·unit, which is how the map made them, and
// New refuses a map whose outputs are not of that form.
type Table struct {
	rows, cols int
	unit       float32
	maxCount   int
	bytes      []uint8  // counts when maxCount ≤ 255
	words      []uint16 // counts otherwise
}

// New maps every row of x through m, block rows at a time, and
// keeps the counts.
func New(m classifier.CountMap, x blas32.General, block int) (*Table, error) {
	if x.Cols != m.InDim() {
		return nil, fmt.Errorf("rfstream: %d-column input for a %d-input map", x.Cols, m.InDim())
	}
	unit, maxCount := m.CountUnit()
	if unit <= 0 || maxCount < 1 || maxCount > math.MaxUint16 {
		return nil, fmt.Errorf("rfstream: a count table needs a positive unit and counts up to %d (have unit %v, counts up to %d)", math.MaxUint16, unit, maxCount)
	}
	if block <= 0 {
		block = 4096
	}
	t := &Table{rows: x.Rows, cols: m.OutDim(), unit: unit, maxCount: maxCount}
	n := t.rows * t.cols
	if maxCount <= math.MaxUint8 {
		t.bytes = make([]uint8, n)
	} else {
		t.words = make([]uint16, n)
	}
	z := linalg.NewGeneral32(min(block, x.Rows), t.cols)
	inv, top := 1/unit, float32(maxCount)
	for b0 := 0; b0 < x.Rows; b0 += block {
		b1 := min(b0+block, x.Rows)
		zb := linalg.Rows32(z, 0, b1-b0)
		m.Apply(zb, linalg.Rows32(x, b0, b1))
		for i := 0; i < zb.Rows; i++ {
			at := (b0 + i) * t.cols
			for j, v := range linalg.Row32(zb, i) {
				c, ok := classifier.CountOf(v, unit, inv, top)
				if !ok {
					return nil, fmt.Errorf("rfstream: row %d, feature %d is %v, not a count of %v in [0, %d]", b0+i, j, v, unit, maxCount)
				}
				if t.bytes != nil {
					t.bytes[at+j] = uint8(c)
				} else {
					t.words[at+j] = uint16(c)
				}
			}
		}
	}
	return t, nil
}

// Rows is the number of inputs the table holds.
func (t *Table) Rows() int { return t.rows }

// InDim is 1: an input row is a row number of the table.
func (t *Table) InDim() int { return 1 }

// OutDim is the source map's feature count.
func (t *Table) OutDim() int { return t.cols }

// CountUnit is the source map's.
func (t *Table) CountUnit() (unit float32, maxCount int) { return t.unit, t.maxCount }

// Recipe names the table's kind, which Build does not know: a table
// cannot be rebuilt.
func (t *Table) Recipe() features.Recipe { return features.Recipe{Kind: Kind, In: 1} }

// Apply writes the features of the table rows x names (one column, whole
// row numbers) to dst. A row number that is not one of the table's is a
// programming error and panics, as a misshapen matrix does for any map.
func (t *Table) Apply(dst, x blas32.General) {
	if x.Cols != 1 || dst.Rows != x.Rows || dst.Cols != t.cols {
		panic(fmt.Sprintf("rfstream: count table of %d features applied to %d×%d rows into %d×%d", t.cols, x.Rows, x.Cols, dst.Rows, dst.Cols))
	}
	src := make([]int, x.Rows)
	for i := range src {
		v := x.Data[i*x.Stride]
		r := int(v)
		if float32(r) != v || r < 0 || r >= t.rows {
			panic(fmt.Sprintf("rfstream: row number %v is not in a table of %d rows", v, t.rows))
		}
		src[i] = r
	}
	linalg.ParallelRows(x.Rows, 16, func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			out, at := linalg.Row32(dst, i), src[i]*t.cols
			if t.bytes != nil {
				for j, c := range t.bytes[at : at+t.cols] {
					out[j] = float32(c) * t.unit
				}
			} else {
				for j, c := range t.words[at : at+t.cols] {
					out[j] = float32(c) * t.unit
				}
			}
		}
	})
}

// Input is the input of a Table for the rows idx: one column of
// row numbers. Row numbers are float32, exact up to 2²⁴ rows.
func Input(idx []int) blas32.General {
	x := linalg.NewGeneral32(len(idx), 1)
	for i, r := range idx {
		if r < 0 || r > 1<<24 {
			panic(fmt.Sprintf("rfstream: row number %d out of a table's range", r))
		}
		x.Data[i] = float32(r)
	}
	return x
}
