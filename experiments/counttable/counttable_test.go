package counttable

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/linalg"
)

func TestCountTableFitsAndPredictsAsItsMapDoes(t *testing.T) {
	m, x, z, labels := fixtures.CountFeatures(t, 400)
	table, err := New(m.(classifier.CountMap), x, 64)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, x.Rows)
	for i := range all {
		all[i] = i
	}
	got := features.Apply(table, Input(all), 100)
	for i := range z.Data {
		if got.Data[i] != z.Data[i] {
			t.Fatalf("feature %d: table %v, map %v", i, got.Data[i], z.Data[i])
		}
	}

	// A training draw: every third row, out of the table's order.
	var idx []int
	for i := x.Rows - 1; i >= 0; i -= 3 {
		idx = append(idx, i)
	}
	xs := linalg.NewGeneral32(len(idx), x.Cols)
	ls := make([]int, len(idx))
	for a, i := range idx {
		copy(linalg.Row32(xs, a), linalg.Row32(x, i))
		ls[a] = labels[i]
	}
	opt := classifier.FitOptions{Seed: 5, Float64Gram: true, ExactCounts: true}
	want, wantRep, err := classifier.FitRLS(m, xs, ls, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	have, haveRep, err := classifier.FitRLS(table, Input(idx), ls, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if haveRep.Lambda != wantRep.Lambda || len(haveRep.Trials) != len(wantRep.Trials) {
		t.Fatalf("table chose λ %v over %d trials, map %v over %d", haveRep.Lambda, len(haveRep.Trials), wantRep.Lambda, len(wantRep.Trials))
	}
	for i := range want.W.Data {
		if have.W.Data[i] != want.W.Data[i] {
			t.Fatalf("W[%d]: table %v, map %v", i, have.W.Data[i], want.W.Data[i])
		}
	}
	pm, pt := classifier.Predict(m, want, x, 64), classifier.Predict(table, have, Input(all), 64)
	for i := range pm {
		if pm[i] != pt[i] {
			t.Fatalf("row %d: table predicts %d, map %d", i, pt[i], pm[i])
		}
	}
}

// wideCounts is a classifier.CountMap whose counts exceed a byte, or, when broken,
// one of whose outputs is not a count at all.
type wideCounts struct{ broken bool }

func (wideCounts) InDim() int                              { return 2 }
func (wideCounts) OutDim() int                             { return 3 }
func (wideCounts) Recipe() features.Recipe                 { return features.Recipe{Kind: "wide-counts", In: 2} }
func (wideCounts) CountUnit() (unit float32, maxCount int) { return 0.125, 1000 }
func (w wideCounts) Apply(dst, x blas32.General) {
	for i := 0; i < x.Rows; i++ {
		a := x.Data[i*x.Stride]
		out := linalg.Row32(dst, i)
		out[0], out[1], out[2] = a*0.125, 1000*0.125, 0
		if w.broken && i == 1 {
			out[2] = 0.3
		}
	}
}

func TestCountTableKeepsWideCountsAndRefusesOthers(t *testing.T) {
	x := linalg.NewGeneral32(3, 2)
	x.Data[0], x.Data[2], x.Data[4] = 0, 300, 999
	table, err := New(wideCounts{}, x, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := features.Apply(table, Input([]int{2, 0, 1}), 2)
	want := []float32{999 * 0.125, 125, 0, 0, 125, 0, 300 * 0.125, 125, 0}
	for i, v := range want {
		if got.Data[i] != v {
			t.Fatalf("feature %d = %v, want %v", i, got.Data[i], v)
		}
	}
	if _, err := New(wideCounts{broken: true}, x, 2); err == nil || !strings.Contains(err.Error(), "row 1, feature 2") {
		t.Fatalf("a feature that is not a count gave %v, want an error naming row 1, feature 2", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("row 3 of a 3-row table did not panic")
		}
	}()
	table.Apply(linalg.NewGeneral32(1, 3), Input([]int{3}))
}
