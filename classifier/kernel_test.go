package classifier

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/internal/linalg"
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

// TestKernelLOOScoresBruteForce: the closed-form leave-one-out scores equal,
// row by row, the scores of a model refitted without that row, on a linear
// kernel with fewer rows than features (so the fit interpolates and leaving
// a row out matters) and on one with more.
func TestKernelLOOScoresBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct {
		n, d   int
		lambda float64
	}{{25, 40, 0.05}, {40, 6, 2}} {
		const classes = 3
		z := gaussianRows(c.n, c.d, r)
		labels := make([]int, c.n)
		for i := range labels {
			labels[i] = r.IntN(classes)
		}
		k := linearKernel(z, z)
		loo, err := KernelLOOScores(k, labels, classes, c.lambda)
		if err != nil {
			t.Fatal(err)
		}
		var worst, scale float64
		for i := 0; i < c.n; i++ {
			var keep []int
			for j := 0; j < c.n; j++ {
				if j != i {
					keep = append(keep, j)
				}
			}
			sub := linalg.NewGeneral64(c.n-1, c.n-1)
			kRow := linalg.NewGeneral64(1, c.n-1)
			subLabels := make([]int, 0, c.n-1)
			for a, p := range keep {
				for b, q := range keep {
					sub.Data[a*sub.Stride+b] = k.Data[p*k.Stride+q]
				}
				kRow.Data[a] = k.Data[i*k.Stride+p]
				subLabels = append(subLabels, labels[p])
			}
			m, err := FitKernelRLS(sub, subLabels, classes, c.lambda)
			if err != nil {
				t.Fatal(err)
			}
			want := m.Scores(kRow)
			for j := 0; j < classes; j++ {
				worst = math.Max(worst, math.Abs(loo.Data[i*classes+j]-want.Data[j]))
				scale = math.Max(scale, math.Abs(want.Data[j]))
			}
		}
		if worst > 1e-9*math.Max(1, scale) {
			t.Errorf("n=%d d=%d λ=%g: closed-form leave-one-out scores differ from refits by %.3g (largest score %.3g)", c.n, c.d, c.lambda, worst, scale)
		}
		// The left-out scores must not be the fitted ones: with n < d the fit
		// nearly interpolates, so equality would mean the row was not left out.
		full, err := FitKernelRLS(k, labels, classes, c.lambda)
		if err != nil {
			t.Fatal(err)
		}
		fitted := full.Scores(k)
		var gap float64
		for i, v := range fitted.Data {
			gap = math.Max(gap, math.Abs(v-loo.Data[i]))
		}
		if gap < 1e-3 {
			t.Errorf("n=%d d=%d: leave-one-out scores equal the fitted ones (largest gap %.3g)", c.n, c.d, gap)
		}
	}
	if _, err := KernelLOOScores(linearKernel(gaussianRows(3, 2, r), gaussianRows(3, 2, r)), []int{0, 1, 0}, 2, 0); err == nil {
		t.Error("λ = 0 was accepted; the closed form divides by λGᵢᵢ")
	}
}
