package elss

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// Side says which Gram matrix the leverage scores are computed from.
type Side int

const (
	// Auto takes the smaller of the two sides.
	Auto Side = iota
	// PoolSide factors G + λI, the M0×M0 Gram of the pool's features.
	PoolSide
	// SampleSide factors Φ0Φ0ᵀ + n0λI, the n0×n0 Gram of the sample.
	SampleSide
)

func (s Side) String() string {
	switch s {
	case PoolSide:
		return "pool (M0×M0)"
	case SampleSide:
		return "sample (n0×n0)"
	}
	return "auto"
}

// Scorer holds the pool features of an unlabelled sample and the smaller of
// their two Gram matrices, so the ridge leverage scores of the pool's
// candidates can be computed for several λ at the cost of one Cholesky
// factorisation each.
//
// With Φ0 the n0×M0 features of the sample and G = Φ0ᵀΦ0/n0, the score of
// candidate k is q_k = [G(G+λI)⁻¹]_kk. By the push-through identity this is
// also diag(Φ0ᵀ(Φ0Φ0ᵀ + n0λI)⁻¹Φ0), which needs only an n0×n0
// factorisation: the cheaper side when n0 < M0.
type Scorer struct {
	phi  blas32.General // n0×M0 pool features of the sample
	side Side
	gram blas64.General // the chosen side's Gram, unscaled: Φ0ᵀΦ0 or Φ0Φ0ᵀ
	// meanDiag is trace(G)/M0, the scale λ is relative to.
	meanDiag float64
}

// NewScorer applies the pool map to the sample rows x0 and forms the Gram of
// the requested side (Auto: the smaller).
func NewScorer(pool features.Applier, x0 blas32.General, side Side) (*Scorer, error) {
	n0, m0 := x0.Rows, pool.OutDim()
	if n0 < 1 {
		return nil, fmt.Errorf("elss: no sample rows to score the pool on")
	}
	if x0.Cols != pool.InDim() {
		return nil, fmt.Errorf("elss: %d-column sample for a %d-input pool map", x0.Cols, pool.InDim())
	}
	if side == Auto {
		side = PoolSide
		if n0 < m0 {
			side = SampleSide
		}
	}
	s := &Scorer{side: side, phi: linalg.NewGeneral32(n0, m0)}
	const chunk = 1024 // rows per Apply: bounds the map's own scratch
	for r0 := 0; r0 < n0; r0 += chunk {
		r1 := min(r0+chunk, n0)
		pool.Apply(linalg.Rows32(s.phi, r0, r1), linalg.Rows32(x0, r0, r1))
	}
	var trace float64
	for _, v := range s.phi.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("elss: pool feature is %v (non-finite input?)", v)
		}
		trace += float64(v) * float64(v)
	}
	if trace == 0 {
		return nil, fmt.Errorf("elss: every pool feature is zero on the sample")
	}
	s.meanDiag = trace / float64(n0) / float64(m0)
	// The Gram is accumulated in float64 from float64 copies of blocks of
	// Φ0: float32 sums would lose the small eigenvalues λ is compared with.
	const block = 256
	if side == PoolSide {
		s.gram = linalg.NewGeneral64(m0, m0)
		c := blas64.Symmetric{Uplo: blas.Upper, N: m0, Stride: m0, Data: s.gram.Data}
		b := linalg.NewGeneral64(min(block, n0), m0)
		for r0 := 0; r0 < n0; r0 += block {
			r1 := min(r0+block, n0)
			bb := blas64.General{Rows: r1 - r0, Cols: m0, Stride: m0, Data: b.Data[:(r1-r0)*m0]}
			to64(bb, linalg.Rows32(s.phi, r0, r1), 0)
			blas64.Syrk(blas.Trans, 1, bb, 1, c)
		}
	} else {
		s.gram = linalg.NewGeneral64(n0, n0)
		c := blas64.Symmetric{Uplo: blas.Upper, N: n0, Stride: n0, Data: s.gram.Data}
		b := linalg.NewGeneral64(n0, min(block, m0))
		for c0 := 0; c0 < m0; c0 += block {
			c1 := min(c0+block, m0)
			bb := blas64.General{Rows: n0, Cols: c1 - c0, Stride: b.Stride, Data: b.Data}
			to64(bb, s.phi, c0)
			blas64.Syrk(blas.NoTrans, 1, bb, 1, c)
		}
	}
	mirror(s.gram)
	return s, nil
}

// to64 copies columns [c0, c0+dst.Cols) of src into dst.
func to64(dst blas64.General, src blas32.General, c0 int) {
	for i := 0; i < dst.Rows; i++ {
		d := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		for j, v := range src.Data[i*src.Stride+c0 : i*src.Stride+c0+dst.Cols] {
			d[j] = float64(v)
		}
	}
}

func mirror(g blas64.General) {
	for i := 0; i < g.Rows; i++ {
		for j := 0; j < i; j++ {
			g.Data[i*g.Stride+j] = g.Data[j*g.Stride+i]
		}
	}
}

// Side is the side the scorer factors.
func (s *Scorer) Side() Side { return s.side }

// N0 and M0 are the sample size and the pool size.
func (s *Scorer) N0() int { return s.phi.Rows }
func (s *Scorer) M0() int { return s.phi.Cols }

// Bytes is the memory the scorer holds (features and Gram) plus what one
// Scores call allocates: the scoring cost in memory.
func (s *Scorer) Bytes() int64 {
	g := int64(len(s.gram.Data)) * 8
	held := int64(len(s.phi.Data))*4 + g
	if s.side == PoolSide {
		return held + 2*g // factor and right-hand side
	}
	return held + g + int64(s.phi.Rows)*solveBlock*8 // factor and one block of columns
}

// solveBlock is how many candidates' columns a sample-side solve handles at once.
const solveBlock = 512

// Scores returns q_k for every candidate, with λ relative to the mean
// diagonal of G (so λ means the same for any map and any feature scale).
// Σ q_k is the effective number of degrees of freedom of the pool on the
// sample, at most min(n0, M0).
func (s *Scorer) Scores(lambda float64) ([]float64, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("elss: λ must be positive and finite, have %v", lambda)
	}
	n0, m0 := s.phi.Rows, s.phi.Cols
	abs := lambda * s.meanDiag
	q := make([]float64, m0)
	n := s.gram.Rows
	a := linalg.NewGeneral64(n, n)
	copy(a.Data, s.gram.Data)
	if s.side == PoolSide {
		// A = Φ0ᵀΦ0 + n0λI; q = diag(A⁻¹ Φ0ᵀΦ0), solved against the Gram as
		// right-hand side: no 1 − λ[A⁻¹]_kk cancellation when q_k ≈ 1.
		for i := 0; i < n; i++ {
			a.Data[i*n+i] += float64(n0) * abs
		}
		t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a.Data})
		if !ok {
			return nil, fmt.Errorf("elss: pool Gram + λI at λ=%g: %w", lambda, linalg.ErrNotPositiveDefinite)
		}
		x := linalg.NewGeneral64(n, n)
		copy(x.Data, s.gram.Data)
		lapack64.Potrs(t, x)
		for k := range q {
			q[k] = x.Data[k*n+k]
		}
		return q, nil
	}
	// K = Φ0Φ0ᵀ + n0λI = UᵀU; q_k = ‖U⁻ᵀφ_k‖² for the sample column φ_k of
	// candidate k, a block of candidates at a time.
	for i := 0; i < n; i++ {
		a.Data[i*n+i] += float64(n0) * abs
	}
	t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a.Data})
	if !ok {
		return nil, fmt.Errorf("elss: sample Gram + λI at λ=%g: %w", lambda, linalg.ErrNotPositiveDefinite)
	}
	b := linalg.NewGeneral64(n0, min(solveBlock, m0))
	for c0 := 0; c0 < m0; c0 += solveBlock {
		c1 := min(c0+solveBlock, m0)
		bb := blas64.General{Rows: n0, Cols: c1 - c0, Stride: b.Stride, Data: b.Data}
		to64(bb, s.phi, c0)
		blas64.Trsm(blas.Left, blas.Trans, 1, t, bb)
		for i := 0; i < n0; i++ {
			for j, v := range bb.Data[i*bb.Stride : i*bb.Stride+bb.Cols] {
				q[c0+j] += v * v
			}
		}
	}
	return q, nil
}
