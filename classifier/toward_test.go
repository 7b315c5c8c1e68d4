package classifier

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rfstream/rfstream/internal/linalg"
)

// RefitToward's dual solution equals the primal one,
// (zᵀz + μI)⁻¹(zᵀY + μW0), and it pulls the rows' decisions to their labels.
func TestRefitTowardMatchesThePrimalSolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, classes = 7, 12, 3
	z := linalg.NewGeneral32(n, d)
	for i := range z.Data {
		z.Data[i] = float32(rng.NormFloat64())
	}
	w0 := &RLS{Dim: d, Classes: classes, Lambda: 1, W: linalg.NewGeneral32(d, classes)}
	for i := range w0.W.Data {
		w0.W.Data[i] = float32(rng.NormFloat64())
	}
	labels := []int{0, 1, 2, 0, 1, 2, 0}
	const relMu = 0.05
	got, err := RefitToward(w0, z, labels, relMu)
	if err != nil {
		t.Fatal(err)
	}
	zm := mat.NewDense(n, d, nil)
	trace := 0.0
	for i := range n {
		for j := range d {
			v := float64(z.Data[i*d+j])
			zm.Set(i, j, v)
			trace += v * v
		}
	}
	mu := relMu * trace / n
	var a mat.Dense
	a.Mul(zm.T(), zm)
	for i := range d {
		a.Set(i, i, a.At(i, i)+mu)
	}
	b := mat.NewDense(d, classes, nil)
	for i := range d {
		for c := range classes {
			b.Set(i, c, mu*float64(w0.W.Data[i*classes+c]))
		}
	}
	for i := range n {
		for c := range classes {
			y := -1.0
			if labels[i] == c {
				y = 1
			}
			for j := range d {
				b.Set(j, c, b.At(j, c)+zm.At(i, j)*y)
			}
		}
	}
	var want mat.Dense
	if err := want.Solve(&a, b); err != nil {
		t.Fatal(err)
	}
	for i := range d {
		for c := range classes {
			if g, w := float64(got.W.Data[i*classes+c]), want.At(i, c); math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
				t.Fatalf("W[%d][%d] = %v, the primal solution gives %v", i, c, g, w)
			}
		}
	}
	for i, p := range got.Predict(z) {
		if p != labels[i] {
			t.Errorf("row %d decided %d after the refit, labelled %d", i, p, labels[i])
		}
	}
	// The same rows given by their statistics, added in two blocks, give
	// the same read-out in the primal form.
	acc := NewRLSAccumulator(d, classes)
	acc.Float64 = true
	for _, part := range [][2]int{{0, 3}, {3, n}} {
		if err := acc.Add(linalg.Rows32(z, part[0], part[1]), labels[part[0]:part[1]]); err != nil {
			t.Fatal(err)
		}
	}
	gram, err := RefitTowardGram(w0, acc, relMu)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d {
		for c := range classes {
			if g, w := float64(gram.W.Data[i*classes+c]), want.At(i, c); math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
				t.Fatalf("from the statistics W[%d][%d] = %v, the primal solution gives %v", i, c, g, w)
			}
		}
	}
}

func TestRefitTowardRefusesBadInput(t *testing.T) {
	w0 := &RLS{Dim: 2, Classes: 2, W: linalg.NewGeneral32(2, 2)}
	z := linalg.NewGeneral32(1, 2)
	z.Data[0] = 1
	for name, call := range map[string]func() error{
		"no rows":   func() error { _, err := RefitToward(w0, linalg.NewGeneral32(0, 2), nil, 1); return err },
		"bad label": func() error { _, err := RefitToward(w0, z, []int{2}, 1); return err },
		"width":     func() error { _, err := RefitToward(w0, linalg.NewGeneral32(1, 3), []int{0}, 1); return err },
		"mu":        func() error { _, err := RefitToward(w0, z, []int{0}, 0); return err },
		"zero rows": func() error { _, err := RefitToward(w0, linalg.NewGeneral32(1, 2), []int{0}, 1); return err },
		"no statistics": func() error {
			_, err := RefitTowardGram(w0, NewRLSAccumulator(2, 2), 1)
			return err
		},
		"statistics' width": func() error {
			a := NewRLSAccumulator(3, 2)
			if err := a.Add(linalg.NewGeneral32(1, 3), []int{0}); err != nil {
				return nil
			}
			_, err := RefitTowardGram(w0, a, 1)
			return err
		},
		"statistics' mu": func() error {
			a := NewRLSAccumulator(2, 2)
			if err := a.Add(z, []int{0}); err != nil {
				return nil
			}
			_, err := RefitTowardGram(w0, a, 0)
			return err
		},
		"zero statistics": func() error {
			a := NewRLSAccumulator(2, 2)
			if err := a.Add(linalg.NewGeneral32(1, 2), []int{0}); err != nil {
				return nil
			}
			_, err := RefitTowardGram(w0, a, 1)
			return err
		},
	} {
		if call() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Merging statistics with weight 3 is adding their rows three times.
func TestMergeWeightedCountsRowsThatManyTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	z := linalg.NewGeneral32(5, 4)
	for i := range z.Data {
		z.Data[i] = float32(rng.NormFloat64())
	}
	labels := []int{0, 1, 1, 0, 1}
	b := NewRLSAccumulator(4, 2)
	want := NewRLSAccumulator(4, 2)
	if err := b.Add(z, labels); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := want.Add(z, labels); err != nil {
			t.Fatal(err)
		}
	}
	got := NewRLSAccumulator(4, 2)
	if err := got.MergeWeighted(b, 3); err != nil {
		t.Fatal(err)
	}
	g, w := got.Gram(), want.Gram()
	for i := range g.Data {
		if math.Abs(g.Data[i]-w.Data[i]) > 1e-4*(1+math.Abs(w.Data[i])) {
			t.Fatalf("Gram[%d] = %v, adding three times gives %v", i, g.Data[i], w.Data[i])
		}
	}
	gs, err := got.Solve(0.1)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := want.Solve(0.1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gs.W.Data {
		if math.Abs(float64(gs.W.Data[i]-ws.W.Data[i])) > 1e-4 {
			t.Fatalf("W[%d] = %v, adding three times gives %v", i, gs.W.Data[i], ws.W.Data[i])
		}
	}
	if got.N() != 15 {
		t.Errorf("%d rows, want 15", got.N())
	}
	if err := got.MergeWeighted(b, 0); err == nil {
		t.Error("weight 0 merged")
	}
}
