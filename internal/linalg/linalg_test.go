package linalg

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

func TestMulABt32MatchesLoops(t *testing.T) {
	a := NewGeneral32(5, 7)
	b := NewGeneral32(3, 7)
	for i := range a.Data {
		a.Data[i] = float32(i%11) - 5
	}
	for i := range b.Data {
		b.Data[i] = float32(i%5) * 0.5
	}
	dst := NewGeneral32(5, 3)
	MulABt32(dst, a, b)
	for i := 0; i < 5; i++ {
		for j := 0; j < 3; j++ {
			var s float32
			for k := 0; k < 7; k++ {
				s += a.Data[i*7+k] * b.Data[j*7+k]
			}
			if math.Abs(float64(s-dst.Data[i*3+j])) > 1e-4 {
				t.Fatalf("(%d,%d) = %v, loops give %v (backend %s)", i, j, dst.Data[i*3+j], s, Backend)
			}
		}
	}
}

func TestCholeskySolve(t *testing.T) {
	// a = [[4,2],[2,3]], x = [1,-1] → b = [2,-1].
	a := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{4, 2, 2, 3}}
	b := blas64.General{Rows: 2, Cols: 1, Stride: 1, Data: []float64{2, -1}}
	if err := CholeskySolve(a, b); err != nil {
		t.Fatal(err)
	}
	if math.Abs(b.Data[0]-1) > 1e-12 || math.Abs(b.Data[1]+1) > 1e-12 {
		t.Fatalf("x = %v, want [1 -1]", b.Data)
	}
	bad := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 2, 2, 1}}
	if err := CholeskySolve(bad, blas64.General{Rows: 2, Cols: 1, Stride: 1, Data: []float64{1, 1}}); err == nil {
		t.Fatal("indefinite matrix factorised without error")
	}
}

func TestRows32View(t *testing.T) {
	a := NewGeneral32(4, 2)
	for i := range a.Data {
		a.Data[i] = float32(i)
	}
	v := Rows32(a, 1, 3)
	if v.Rows != 2 || v.Data[0] != 2 || Row32(v, 1)[1] != 5 {
		t.Fatalf("view rows [1,3) wrong: %+v", v)
	}
}

func TestSetThreads(t *testing.T) {
	before := Threads()
	if before < 1 {
		t.Fatalf("the BLAS says it uses %d threads", before)
	}
	SetThreads(1)
	if got := Threads(); got != 1 {
		t.Errorf("after SetThreads(1) the BLAS uses %d threads", got)
	}
	SetThreads(0) // not a count: ignored
	if got := Threads(); got != 1 {
		t.Errorf("SetThreads(0) changed the thread count to %d", got)
	}
	SetThreads(before)
	if got := Threads(); got != before && Backend == "openblas" {
		t.Errorf("restoring %d threads gave %d", before, got)
	}
}
