package invariant

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// Base is a kernel k0 written as a function of the inner product of its
// arguments and their squared norms, which covers linear, Gaussian and
// distance kernels and lets the Haar kernel run on matrix products.
type Base func(dot, xx, zz float64) float64

// LinearBase is k0(x, z) = ⟨x, z⟩.
func LinearBase() Base { return func(dot, _, _ float64) float64 { return dot } }

// GaussianBase is k0(x, z) = exp(−‖x−z‖²/(2σ²)).
func GaussianBase(sigma float64) Base {
	c := -1 / (2 * sigma * sigma)
	return func(dot, xx, zz float64) float64 { return math.Exp(c * math.Max(0, xx+zz-2*dot)) }
}

// CDFBase is k0(x, z) = s − ‖x−z‖/√(2πd): its Haar integral is the kernel
// s − d_G(x, z) that the invariant map approximates (Theorem 1), so RLS with
// it is the map's limit of infinitely many templates and bins.
func CDFBase(s float64, d int) Base {
	c := 1 / math.Sqrt(2*math.Pi*float64(d))
	return func(dot, xx, zz float64) float64 { return s - c*math.Sqrt(math.Max(0, xx+zz-2*dot)) }
}

// HaarPair is the Haar-integration kernel of a finite group straight from
// its definition, (1/|G|²)·Σ_{g,g′} k0(g·x, g′·z): slow, for checking.
func HaarPair(g transforms.Group, k0 Base, x, z []float32) (float64, error) {
	elems, ok := g.Elements()
	if !ok {
		return 0, fmt.Errorf("invariant: the Haar kernel needs a finite group; %s is continuous", g.Spec().Kind)
	}
	gx := make([][]float32, len(elems))
	gz := make([][]float32, len(elems))
	for i, e := range elems {
		gx[i] = make([]float32, len(x))
		gz[i] = make([]float32, len(z))
		g.Apply(gx[i], x, e)
		g.Apply(gz[i], z, e)
	}
	var sum float64
	for _, a := range gx {
		for _, b := range gz {
			sum += k0(dot64(a, b), dot64(a, a), dot64(b, b))
		}
	}
	return sum / float64(len(elems)*len(elems)), nil
}

// HaarGram returns K[i][j] = (1/|G|)·Σ_g k0(x_i, g·z_j) for a finite group,
// one matrix product per element. This equals the double Haar integral
// because a group acting by orthogonal maps (permutations do) leaves k0 of
// inner products and norms unchanged under the joint action:
// k0(g·x, g′·z) = k0(x, g⁻¹g′·z).
func HaarGram(g transforms.Group, k0 Base, x, z blas32.General) (blas64.General, error) {
	elems, ok := g.Elements()
	if !ok {
		return blas64.General{}, fmt.Errorf("invariant: the Haar kernel needs a finite group; %s is continuous", g.Spec().Kind)
	}
	if x.Cols != g.Dim() || z.Cols != g.Dim() {
		return blas64.General{}, fmt.Errorf("invariant: Haar kernel of %d- and %d-column inputs under a group on length %d", x.Cols, z.Cols, g.Dim())
	}
	k := linalg.NewGeneral64(x.Rows, z.Rows)
	xx := rowNorms2(x)
	gz := linalg.NewGeneral32(z.Rows, z.Cols)
	dots := linalg.NewGeneral32(x.Rows, z.Rows)
	for _, e := range elems {
		for j := 0; j < z.Rows; j++ {
			g.Apply(linalg.Row32(gz, j), linalg.Row32(z, j), e)
		}
		zz := rowNorms2(gz)
		linalg.MulABt32(dots, x, gz)
		// k0 costs a square root per entry (as much as the product at
		// d = 40), so the rows are shared among the CPUs.
		linalg.ParallelRows(x.Rows, 16, func(r0, r1 int) {
			for i := r0; i < r1; i++ {
				drow := linalg.Row32(dots, i)
				krow := k.Data[i*k.Stride : i*k.Stride+z.Rows]
				for j, d := range drow {
					krow[j] += k0(float64(d), xx[i], zz[j])
				}
			}
		})
	}
	inv := 1 / float64(len(elems))
	for i := range k.Data {
		k.Data[i] *= inv
	}
	return k, nil
}

// OrbitDistance is d_G(x, z) = (1/√(2πd))·(1/|G|²)·Σ_{g,g′} ‖g·x − g′·z‖ for a
// finite group: s minus it is the limit of ⟨Φ(x), Φ(z)⟩ in Theorem 1.
func OrbitDistance(g transforms.Group, x, z []float32) (float64, error) {
	k, err := HaarPair(g, CDFBase(0, len(x)), x, z)
	return -k, err
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func rowNorms2(x blas32.General) []float64 {
	n := make([]float64, x.Rows)
	for i := range n {
		r := linalg.Row32(x, i)
		n[i] = dot64(r, r)
	}
	return n
}
