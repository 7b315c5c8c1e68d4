package classifier

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/linalg"
)

// sampleSoftmax draws labels from softmax(z·W + b) for a known W, b.
func sampleSoftmax(z blas32.General, w [][]float64, b []float64, r *rand.Rand) []int {
	labels := make([]int, z.Rows)
	p := make([]float64, len(b))
	for i := range labels {
		var s float64
		for c := range b {
			v := b[c]
			for d, x := range linalg.Row32(z, i) {
				v += float64(x) * w[d][c]
			}
			p[c] = math.Exp(v)
			s += p[c]
		}
		u := r.Float64() * s
		for c := range p {
			u -= p[c]
			if u <= 0 || c == len(p)-1 {
				labels[i] = c
				break
			}
		}
	}
	return labels
}

// TestSoftmaxGradient: the analytic gradient (through the folded
// standardisation and the L2 term) agrees with central differences of the
// objective in every coordinate.
func TestSoftmaxGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, d, c = 50, 4, 3
	z := gaussianRows(n, d, r)
	for i := 0; i < n; i++ { // non-zero means and unequal scales exercise the folding
		z.Data[i*d] = z.Data[i*d]*3 + 2
		z.Data[i*d+1] -= 1
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(c)
	}
	o, err := newSoftmaxObjective(z, labels, c, 0.05, 16) // blocks of 16: 4 blocks, the last short
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, o.nParams())
	for i := range p {
		p[i] = r.NormFloat64() * 0.5
	}
	g := make([]float64, len(p))
	o.eval(p, g)
	const h = 1e-3
	for i := range p {
		old := p[i]
		p[i] = old + h
		fp := o.eval(p, nil)
		p[i] = old - h
		fm := o.eval(p, nil)
		p[i] = old
		fd := (fp - fm) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-4+1e-3*math.Abs(g[i]) {
			t.Errorf("∂/∂p[%d]: analytic %.6f, finite difference %.6f", i, g[i], fd)
		}
	}
}

// TestSoftmaxRecoversModel: labels drawn from a known linear softmax model
// give back its weights (up to the softmax's shift invariance: compare
// differences to class 0) with both optimisers, and the posteriors of every
// row sum to 1.
func TestSoftmaxRecoversModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, d, c = 20000, 5, 3
	z := gaussianRows(n, d, r)
	w := make([][]float64, d)
	for i := range w {
		w[i] = []float64{0, r.NormFloat64(), r.NormFloat64()}
	}
	b := []float64{0, 0.5, -0.5}
	labels := sampleSoftmax(z, w, b, r)
	for _, optName := range []string{"lbfgs", "adam"} {
		t.Run(optName, func(t *testing.T) {
			sm, rep, err := FitSoftmax(z, labels, c, SoftmaxOptions{Optimizer: optName, Lambda: 1e-6, MaxIter: 30, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for k := 0; k < d; k++ {
				for j := 1; j < c; j++ {
					got := float64(sm.W.Data[k*c+j] - sm.W.Data[k*c])
					worst = max(worst, math.Abs(got-(w[k][j]-w[k][0])))
				}
			}
			for j := 1; j < c; j++ {
				worst = max(worst, math.Abs(float64(sm.B[j]-sm.B[0])-(b[j]-b[0])))
			}
			// With 20000 rows the maximum-likelihood estimate's standard
			// error is about 0.02 per weight.
			if worst > 0.1 {
				t.Errorf("largest weight error %.3f (loss %.4f after %d iterations)", worst, rep.Loss, rep.Iterations)
			}
			post := linalg.NewGeneral32(200, c)
			sm.Posteriors(post, linalg.Rows32(z, 0, 200))
			for i := 0; i < post.Rows; i++ {
				var s float64
				for _, v := range linalg.Row32(post, i) {
					if v < 0 {
						t.Fatalf("row %d: negative posterior %v", i, v)
					}
					s += float64(v)
				}
				if math.Abs(s-1) > 1e-5 {
					t.Fatalf("row %d: posteriors sum to %v", i, s)
				}
			}
		})
	}
}

// TestSoftmaxSeparable: well-separated clusters are classified without
// error, and a larger λ gives smaller weights.
func TestSoftmaxSeparable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n, d, c = 600, 6, 4
	z := linalg.NewGeneral32(n, d)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = i % c
		for k := 0; k < d; k++ {
			z.Data[i*d+k] = float32(0.3 * r.NormFloat64())
		}
		z.Data[i*d+labels[i]] += 4
	}
	var norms []float64
	for _, lambda := range []float64{1e-4, 1e-1} {
		sm, _, err := FitSoftmax(z, labels, c, SoftmaxOptions{Lambda: lambda})
		if err != nil {
			t.Fatal(err)
		}
		if e := ErrorRate(sm.Predict(z), labels); e != 0 {
			t.Errorf("λ=%g: training error %.3f on separable clusters", lambda, e)
		}
		var s float64
		for _, v := range sm.W.Data {
			s += float64(v) * float64(v)
		}
		norms = append(norms, s)
	}
	if norms[1] >= norms[0] {
		t.Errorf("‖W‖² %.3g at λ=0.1 is not below %.3g at λ=1e-4", norms[1], norms[0])
	}
}

func TestSoftmaxBadInput(t *testing.T) {
	z := linalg.NewGeneral32(3, 2)
	if _, _, err := FitSoftmax(z, []int{0, 1}, 2, SoftmaxOptions{}); err == nil {
		t.Error("row/label count mismatch accepted")
	}
	if _, _, err := FitSoftmax(z, []int{0, 1, 2}, 2, SoftmaxOptions{}); err == nil {
		t.Error("label outside the classes accepted")
	}
	z.Data[3] = float32(math.NaN())
	if _, _, err := FitSoftmax(z, []int{0, 1, 1}, 2, SoftmaxOptions{}); err == nil {
		t.Error("NaN feature accepted")
	}
	if _, _, err := FitSoftmax(linalg.NewGeneral32(2, 2), []int{0, 1}, 2, SoftmaxOptions{Optimizer: "newton"}); err == nil {
		t.Error("unknown optimiser accepted")
	}
}

// TestFitTemperature: scores that are true logits scaled by 1/T₀ give back
// T₀ ≈ 1/scale, and calibrated RLS posteriors sum to 1.
func TestFitTemperature(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n, c = 20000, 4
	logits := gaussianRows(n, c, r)
	for i := range logits.Data {
		logits.Data[i] *= 2
	}
	labels := make([]int, n)
	for i := range labels {
		row := linalg.Row32(logits, i)
		var s float64
		p := make([]float64, c)
		for j, v := range row {
			p[j] = math.Exp(float64(v))
			s += p[j]
		}
		u := r.Float64() * s
		for j := range p {
			u -= p[j]
			if u <= 0 || j == c-1 {
				labels[i] = j
				break
			}
		}
	}
	scaled := linalg.NewGeneral32(n, c)
	for i, v := range logits.Data {
		scaled.Data[i] = v * 0.25 // scores are logits/4: T should be 0.25
	}
	temp, err := FitTemperature(scaled, labels)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(temp-0.25) > 0.02 {
		t.Errorf("temperature %.4f, want 0.25", temp)
	}
	rls := &RLS{Dim: c, Classes: c, W: linalg.NewGeneral32(c, c)}
	for i := 0; i < c; i++ {
		rls.W.Data[i*c+i] = 1
	}
	cal := CalibratedRLS{RLS: rls, Temp: temp}
	post := linalg.NewGeneral32(10, c)
	cal.Posteriors(post, linalg.Rows32(scaled, 0, 10))
	for i := 0; i < 10; i++ {
		var s float64
		for _, v := range linalg.Row32(post, i) {
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Fatalf("row %d sums to %v", i, s)
		}
	}
	if _, err := FitTemperature(scaled, labels[:5]); err == nil {
		t.Error("mismatched labels accepted")
	}
}
