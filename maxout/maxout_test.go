package maxout

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// naive computes Φ(x) straight from the canonical draws, one unit at a time.
func naive(x blas32.General, p Params, seed uint64) blas32.General {
	d := x.Cols
	w := make([]float32, p.M*p.Q*d)
	features.FillNormal32(features.NewRand(seed, 0), w)
	out := linalg.NewGeneral32(x.Rows, p.M)
	scale := 1 / math.Sqrt(float64(p.M))
	for i := 0; i < x.Rows; i++ {
		xi := linalg.Row32(x, i)
		for l := 0; l < p.M; l++ {
			best := math.Inf(-1)
			for j := 0; j < p.Q; j++ {
				var s float64
				for k, v := range w[(l*p.Q+j)*d : (l*p.Q+j+1)*d] {
					s += float64(v) * float64(xi[k])
				}
				best = math.Max(best, s)
			}
			out.Data[i*p.M+l] = float32(best * scale)
		}
	}
	return out
}

func randomRows(n, d int, seed uint64) blas32.General {
	x := linalg.NewGeneral32(n, d)
	features.FillNormal32(features.NewRand(seed, 9), x.Data)
	return x
}

func TestBlockedMatchesNaive(t *testing.T) {
	// Sizes that straddle the row chunk and the unit block.
	p := Params{M: unitBlock + 37, Q: 3}
	x := randomRows(rowChunk+5, 11, 1)
	mp, err := New(11, p, 42)
	if err != nil {
		t.Fatal(err)
	}
	got := linalg.NewGeneral32(x.Rows, p.M)
	mp.Apply(got, x)
	want := naive(x, p, 42)
	for i := range want.Data {
		if d := math.Abs(float64(got.Data[i] - want.Data[i])); d > 1e-5 {
			t.Fatalf("element %d: blocked %v, naive %v (backend %s)", i, got.Data[i], want.Data[i], linalg.Backend)
		}
	}
}

func TestSameSeedSameBits(t *testing.T) {
	x := randomRows(40, 20, 2)
	a, _ := New(20, Params{M: 300, Q: 4}, 5)
	r, err := features.Build(a.Recipe())
	if err != nil {
		t.Fatal(err)
	}
	fa := linalg.NewGeneral32(40, 300)
	fb := linalg.NewGeneral32(40, 300)
	a.Apply(fa, x)
	r.Apply(fb, x)
	for i := range fa.Data {
		if math.Float32bits(fa.Data[i]) != math.Float32bits(fb.Data[i]) {
			t.Fatalf("rebuilt map differs at %d: %v vs %v", i, fa.Data[i], fb.Data[i])
		}
	}
	c, _ := New(20, Params{M: 300, Q: 4}, 6)
	c.Apply(fb, x)
	if fa.Data[0] == fb.Data[0] && fa.Data[1] == fb.Data[1] {
		t.Fatal("different seeds gave the same features")
	}
}

func TestBadParams(t *testing.T) {
	for _, p := range []Params{{M: 0, Q: 1}, {M: 1, Q: 0}, {M: 4, Q: 4, Pool: 3}, {M: 1, Q: 300}} {
		if _, err := New(3, p, 1); err == nil {
			t.Errorf("params %+v accepted", p)
		}
	}
}

// unitPair returns unit vectors x, z in R^d with <x,z> = rho.
func unitPair(d int, rho float64) blas32.General {
	x := linalg.NewGeneral32(2, d)
	x.Data[0] = 1
	x.Data[d] = float32(rho)
	x.Data[d+1] = float32(math.Sqrt(1 - rho*rho))
	return x
}

// maxMoments returns E[max], E[max²] of q standard normals and
// E[max·min], by numerical integration of their densities.
func maxMoments(q int) (mu, sigma2, maxMin float64) {
	const lo, hi, n = -9.0, 9.0, 3000
	h := (hi - lo) / n
	pdf := func(t float64) float64 { return math.Exp(-t*t/2) / math.Sqrt(2*math.Pi) }
	cdf := func(t float64) float64 { return 0.5 * math.Erfc(-t/math.Sqrt2) }
	for i := 0; i <= n; i++ {
		t := lo + float64(i)*h
		f := float64(q) * pdf(t) * math.Pow(cdf(t), float64(q-1))
		mu += t * f * h
		sigma2 += t * t * f * h
	}
	if q == 1 {
		return mu, sigma2, sigma2 // max and min are the same variable
	}
	// Joint density of (min, max) = (u, v) on u ≤ v; the diagonal, the
	// edge of the region, takes half weight (trapezoid rule).
	for i := 0; i <= n; i++ {
		u := lo + float64(i)*h
		for j := i; j <= n; j++ {
			v := lo + float64(j)*h
			f := float64(q*(q-1)) * pdf(u) * pdf(v) * math.Pow(cdf(v)-cdf(u), float64(q-2))
			w := h * h
			if j == i {
				w /= 2
			}
			maxMin += u * v * f * w
		}
	}
	return mu, sigma2, maxMin
}

func TestSigma2KnownValues(t *testing.T) {
	// E[max of 2 normals] = 1/√π and E[max²] = 1 for q = 2; E[max²] = 1 for q = 1.
	mu2, s2, mm2 := maxMoments(2)
	if math.Abs(mu2-1/math.Sqrt(math.Pi)) > 1e-6 || math.Abs(s2-1) > 1e-6 || math.Abs(mm2) > 1e-6 {
		t.Fatalf("q=2: mu %.6f σ² %.6f E[max·min] %.6f, want %.6f, 1, 0", mu2, s2, mm2, 1/math.Sqrt(math.Pi))
	}
	if _, s1, _ := maxMoments(1); math.Abs(s1-1) > 1e-6 {
		t.Fatalf("σ²(1) = %.6f, want 1", s1)
	}
}

// TestKernelClosedForms checks the empirical maxout kernel on unit vectors at
// ρ = 1, 0, -1 against values computed independently by integration:
//
//	ρ = 1:  K = σ²(q) = E[max²]        (Theorem 1 with κ = 1)
//	ρ = 0:  K = E[max]²                (the two maxima are independent)
//	ρ = -1: K = -E[max·min]            (max over -a is -min a)
//
// Theorem 1 as printed, σ²(q)·ρ·κ_q, gives 0 at ρ = 0; the independence
// argument above shows the true expectation is E[max]² > 0 for q ≥ 2. The
// locality the theorem describes lives in κ_q, which the codes test checks.
func TestKernelClosedForms(t *testing.T) {
	const d, m = 8, 200000
	for _, q := range []int{1, 2, 4, 8} {
		mu, s2, mm := maxMoments(q)
		mp, err := New(d, Params{M: m, Q: q}, uint64(q))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ rho, want float64 }{{1, s2}, {0, mu * mu}, {-1, -mm}} {
			x := unitPair(d, c.rho)
			z := linalg.NewGeneral32(2, m)
			mp.Apply(z, x)
			var k float64
			for l := 0; l < m; l++ {
				k += float64(z.Data[l]) * float64(z.Data[m+l])
			}
			// Each unit contributes a product with variance below E[max⁴] ≤ 30
			// for q ≤ 8; five standard errors of the mean over m units.
			tol := 5 * math.Sqrt(30.0/m)
			if math.Abs(k-c.want) > tol {
				t.Errorf("q=%d ρ=%+.0f: empirical kernel %.4f, closed form %.4f (tol %.4f)", q, c.rho, k, c.want, tol)
			}
			if q == 1 && math.Abs(k-c.rho) > tol {
				t.Errorf("q=1 is linear: kernel %.4f at ρ=%v", k, c.rho)
			}
		}
	}
}

// TestCodesEstimateKappa checks the LSH property: the mean Hamming distance
// between codes is 1 - κ_q, with κ_q = 1, 1/q, 0 at ρ = 1, 0, -1.
func TestCodesEstimateKappa(t *testing.T) {
	const d, m = 8, 100000
	for _, q := range []int{2, 4, 8} {
		mp, _ := New(d, Params{M: m, Q: q}, 77)
		for _, c := range []struct{ rho, kappa float64 }{{1, 1}, {0, 1 / float64(q)}, {-1, 0}} {
			codes := mp.Codes(unitPair(d, c.rho))
			h := Hamming(codes[:m], codes[m:])
			// Binomial standard error of the mean, five of them.
			tol := 5 * math.Sqrt(0.25/m)
			if math.Abs(h-(1-c.kappa)) > tol {
				t.Errorf("q=%d ρ=%+.0f: Hamming %.4f, want 1-κ = %.4f", q, c.rho, h, 1-c.kappa)
			}
		}
	}
}

func TestCodesAgreeWithFeatures(t *testing.T) {
	x := randomRows(7, 5, 3)
	mp, _ := New(5, Params{M: 50, Q: 4}, 1)
	codes := mp.Codes(x)
	f := linalg.NewGeneral32(7, 50)
	mp.Apply(f, x)
	want := naive(x, Params{M: 50, Q: 4}, 1)
	for i := range f.Data {
		if math.Abs(float64(f.Data[i]-want.Data[i])) > 1e-5 {
			t.Fatalf("features from Codes path differ at %d", i)
		}
	}
	for _, c := range codes {
		if c >= 4 {
			t.Fatalf("code %d out of range for q=4", c)
		}
	}
}

func TestSharedPool(t *testing.T) {
	const d = 6
	p := Params{M: 1000, Q: 4, Pool: 250}
	mp, err := New(d, p, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Every unit uses q distinct pool members.
	for l := 0; l < p.M; l++ {
		seen := map[int32]bool{}
		for _, k := range mp.members[l*p.Q : (l+1)*p.Q] {
			if k < 0 || int(k) >= p.Pool || seen[k] {
				t.Fatalf("unit %d members %v", l, mp.members[l*p.Q:(l+1)*p.Q])
			}
			seen[k] = true
		}
	}
	// A unit's output is the max over its members' projections.
	x := randomRows(3, d, 4)
	f := linalg.NewGeneral32(3, p.M)
	mp.Apply(f, x)
	for i := 0; i < 3; i++ {
		for l := 0; l < p.M; l += 97 {
			best := math.Inf(-1)
			for _, k := range mp.members[l*p.Q : (l+1)*p.Q] {
				var s float64
				for c := 0; c < d; c++ {
					s += float64(mp.pool.Data[int(k)*d+c]) * float64(x.Data[i*d+c])
				}
				best = math.Max(best, s)
			}
			if got := float64(f.Data[i*p.M+l]) * math.Sqrt(float64(p.M)); math.Abs(got-best) > 1e-4 {
				t.Fatalf("row %d unit %d: %v, want %v", i, l, got, best)
			}
		}
	}
	r, err := features.Build(mp.Recipe())
	if err != nil || r.OutDim() != p.M {
		t.Fatalf("pool recipe does not rebuild: %v", err)
	}
}
