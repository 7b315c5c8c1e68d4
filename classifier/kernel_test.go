package classifier

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/linalg"
)

// linearKernel returns a·bᵀ in float64.
func linearKernel(a, b blas32.General) blas64.General {
	k := linalg.NewGeneral64(a.Rows, b.Rows)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < b.Rows; j++ {
			var s float64
			for c, v := range linalg.Row32(a, i) {
				s += float64(v) * float64(linalg.Row32(b, j)[c])
			}
			k.Data[i*k.Stride+j] = s
		}
	}
	return k
}

// TestKernelRLSEqualsPrimal: with the linear kernel K = ZZᵀ the dual solution
// scores test points exactly as the primal RLS does for the same λ
// (Zᵀ(ZZᵀ + λI)⁻¹ = (ZᵀZ + λI)⁻¹Zᵀ), with more rows than features and fewer.
func TestKernelRLSEqualsPrimal(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct{ n, d int }{{80, 10}, {30, 50}} {
		const classes = 3
		z := gaussianRows(c.n, c.d, r)
		test := gaussianRows(40, c.d, r)
		labels := make([]int, c.n)
		for i := range labels {
			labels[i] = r.IntN(classes)
		}
		const lambda = 0.7
		acc := NewRLSAccumulator(c.d, classes)
		if err := acc.Add(z, labels); err != nil {
			t.Fatal(err)
		}
		primal, err := acc.Solve(lambda)
		if err != nil {
			t.Fatal(err)
		}
		want := linalg.NewGeneral32(test.Rows, classes)
		primal.Scores(want, test)

		dual, err := FitKernelRLS(linearKernel(z, z), labels, classes, lambda)
		if err != nil {
			t.Fatal(err)
		}
		got := dual.Scores(linearKernel(test, z))
		var worst, scale float64
		for i, w := range want.Data {
			worst = math.Max(worst, math.Abs(got.Data[i]-float64(w)))
			scale = math.Max(scale, math.Abs(float64(w)))
		}
		if worst > 1e-4*scale {
			t.Errorf("n=%d d=%d: dual scores differ from primal by %.3g (largest score %.3g)", c.n, c.d, worst, scale)
		}
		if scale < 0.05 {
			t.Errorf("n=%d d=%d: scores of at most %.3g cannot tell the solutions apart", c.n, c.d, scale)
		}
		pp := primal.Predict(test)
		dp := dual.Predict(linearKernel(test, z))
		for i := range pp {
			if pp[i] != dp[i] {
				t.Errorf("n=%d d=%d: test row %d predicted %d by the primal, %d by the dual", c.n, c.d, i, pp[i], dp[i])
			}
		}
	}
}

func TestKernelRLSBadInput(t *testing.T) {
	k := linalg.NewGeneral64(3, 3)
	for i := 0; i < 3; i++ {
		k.Data[i*3+i] = 1
	}
	if _, err := FitKernelRLS(k, []int{0, 1}, 2, 0.1); err == nil {
		t.Error("3×3 kernel with 2 labels accepted")
	}
	if _, err := FitKernelRLS(k, []int{0, 1, 2}, 2, 0.1); err == nil {
		t.Error("label outside the classes accepted")
	}
	if _, err := FitKernelRLS(k, []int{0, 1, 1}, 2, -1); err == nil {
		t.Error("negative λ accepted")
	}
	k.Data[4] = math.NaN()
	if _, err := FitKernelRLS(k, []int{0, 1, 1}, 2, 0.1); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN kernel: %v", err)
	}
	neg := linalg.NewGeneral64(2, 2)
	neg.Data[0], neg.Data[3] = -1, -1
	if _, err := FitKernelRLS(neg, []int{0, 1}, 2, 0); !errors.Is(err, linalg.ErrNotPositiveDefinite) {
		t.Errorf("negative definite kernel: %v", err)
	}
}
