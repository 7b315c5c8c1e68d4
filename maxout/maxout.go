package maxout

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/vecmath"
)

// Kind is the recipe kind of a maxout map.
const Kind = "maxout"

// Params are a maxout map's recipe parameters.
type Params struct {
	M int `json:"m"` // units
	Q int `json:"q"` // projections per unit
	// Pool, when positive, makes the units draw their q projections from a
	// shared pool of Pool projections instead of m·q private ones (the TIMIT
	// setting of the paper: many units for few projections).
	Pool int `json:"pool,omitempty"`
}

// Map is a random maxout feature map. It is safe for concurrent use.
type Map struct {
	in   int
	seed uint64
	p    Params

	// Private projections, stored in blocks of unitBlock units. Within a
	// block the rows are ordered projection-major (all units' first
	// projection, then all units' second, …), so the product of a row chunk
	// with a block lays each unit's q candidates unitBlock floats apart and
	// the max runs over q contiguous slices.
	w blas32.General // m·q × in, blocked layout

	// Shared pool: pool projections and, per unit, the q pool rows it uses.
	pool    blas32.General // Pool × in
	members []int32        // m·q, unit-major

	// scale multiplies every feature: 1/√m, or 1/√M0 for the columns of a
	// pool of M0 units (see Columns).
	scale float32

	scratch sync.Pool

	// blocks are w's blocks of unitBlock units, for products that take
	// sparse rows by their nonzeros.
	blocks []*linalg.Projections
}

const (
	rowChunk  = 1024 // inputs per GEMM
	unitBlock = 512  // units per GEMM
)

func init() {
	features.Register(Kind, func(r features.Recipe) (features.Map, error) {
		var p Params
		if err := features.UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		return build(r.In, p, r.Seed, r.DrawNormal32)
	})
}

// New builds the maxout map for inputs of length in.
func New(in int, p Params, seed uint64) (*Map, error) {
	return build(in, p, seed, features.Recipe{Seed: seed}.DrawNormal32)
}

// build is New with the map's normal values drawn by draw (stream,
// destination): directly, or through the data cache for a map a model
// file names (features.Load).
func build(in int, p Params, seed uint64, draw func(features.Stream, []float32)) (*Map, error) {
	size, err := check(in, p)
	if err != nil {
		return nil, err
	}
	if size > 1<<31 {
		return nil, fmt.Errorf("maxout: %d×%d projections exceed 2³¹ values", max(p.M*p.Q, p.Pool), in)
	}
	mp := &Map{in: in, seed: seed, p: p, scale: float32(1 / math.Sqrt(float64(p.M)))}
	if p.Pool > 0 {
		mp.buildPool(draw)
	} else {
		mp.buildPrivate(draw)
	}
	return mp, nil
}

// buildPrivate draws w[l][j] in canonical order (unit, projection, input
// coordinate) from stream 0, then stores it in the blocked layout, so the
// map does not depend on the block size.
func (mp *Map) buildPrivate(draw func(features.Stream, []float32)) {
	canon := make([]float32, mp.p.M*mp.p.Q*mp.in)
	draw(0, canon)
	mp.layOut(canon)
}

// layOut stores canonical projections (unit, projection, coordinate) of
// mp.p.M units in the blocked layout.
func (mp *Map) layOut(canon []float32) {
	m, q, d := mp.p.M, mp.p.Q, mp.in
	mp.w = linalg.NewGeneral32(m*q, d)
	for b0 := 0; b0 < m; b0 += unitBlock {
		bs := min(unitBlock, m-b0)
		for j := 0; j < q; j++ {
			for u := 0; u < bs; u++ {
				l := b0 + u
				dst := (b0*q + j*bs + u) * d
				copy(mp.w.Data[dst:dst+d], canon[(l*q+j)*d:(l*q+j+1)*d])
			}
		}
		mp.blocks = append(mp.blocks, linalg.NewProjections(linalg.Rows32(mp.w, b0*q, (b0+bs)*q)))
	}
}

// buildPool draws the pool from stream 0 and each unit's q distinct pool
// members from stream 1 (a partial Fisher–Yates shuffle per unit).
func (mp *Map) buildPool(draw func(features.Stream, []float32)) {
	mp.pool = linalg.NewGeneral32(mp.p.Pool, mp.in)
	draw(0, mp.pool.Data)
	mp.members = drawMembers(mp.p, mp.seed)
}

// drawMembers draws every unit's q distinct pool members from stream 1.
func drawMembers(p Params, seed uint64) []int32 {
	P, m, q := p.Pool, p.M, p.Q
	rng := features.NewRand(seed, 1)
	perm := make([]int32, P)
	for i := range perm {
		perm[i] = int32(i)
	}
	members := make([]int32, m*q)
	for l := 0; l < m; l++ {
		for j := 0; j < q; j++ {
			k := j + int(rng.Uint64N(uint64(P-j)))
			perm[j], perm[k] = perm[k], perm[j]
			members[l*q+j] = perm[j]
		}
	}
	return members
}

func (mp *Map) InDim() int  { return mp.in }
func (mp *Map) OutDim() int { return mp.p.M }

// Params returns the map's parameters.
func (mp *Map) Params() Params { return mp.p }

func (mp *Map) Recipe() features.Recipe {
	return features.Recipe{Kind: Kind, In: mp.in, Seed: mp.seed, Params: features.MarshalParams(mp.p)}
}

// Apply writes Φ(x) for every row of x into dst.
func (mp *Map) Apply(dst, x blas32.General) {
	features.CheckShapes(mp, dst, x)
	mp.run(dst, x, nil)
}

// Codes returns, for every row of x, the index of the winning projection of
// each unit (n×m, row-major): the maxout LSH signature.
func (mp *Map) Codes(x blas32.General) []uint8 {
	if x.Cols != mp.in {
		panic(fmt.Sprintf("maxout: codes of %d-column input for a %d-input map", x.Cols, mp.in))
	}
	codes := make([]uint8, x.Rows*mp.p.M)
	dst := linalg.NewGeneral32(x.Rows, mp.p.M)
	mp.run(dst, x, codes)
	return codes
}

// Hamming returns the fraction of units whose codes differ.
func Hamming(a, b []uint8) float64 {
	if len(a) != len(b) {
		panic("maxout: Hamming of codes of different lengths")
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	return float64(diff) / float64(len(a))
}

func (mp *Map) getScratch(n int) []float32 {
	if s, ok := mp.scratch.Get().(*[]float32); ok && cap(*s) >= n {
		return (*s)[:n]
	}
	return make([]float32, n)
}

func (mp *Map) putScratch(s []float32) { mp.scratch.Put(&s) }

// run computes features (and codes, when codes is not nil) chunk by chunk.
func (mp *Map) run(dst, x blas32.General, codes []uint8) {
	scale := mp.scale
	if mp.p.Pool > 0 {
		mp.runPool(dst, x, codes, scale)
		return
	}
	m, q := mp.p.M, mp.p.Q
	width := q * min(unitBlock, m)
	buf := mp.getScratch(rowChunk * width)
	defer mp.putScratch(buf)
	split := linalg.NewSplitRows()
	defer split.Release()
	for r0 := 0; r0 < x.Rows; r0 += rowChunk {
		rows := min(rowChunk, x.Rows-r0)
		// Split once, the chunk's rows meet every block of units: rows
		// mostly of zeros (images) by their nonzeros, the others in a GEMM.
		split.Split(linalg.Rows32(x, r0, r0+rows))
		for b0, blk := 0, 0; b0 < m; b0, blk = b0+unitBlock, blk+1 {
			bs := min(unitBlock, m-b0)
			prod := blas32.General{Rows: rows, Cols: q * bs, Stride: q * bs, Data: buf[:rows*q*bs]}
			mp.blocks[blk].MulABt(prod, split)
			linalg.ParallelRows(rows, 64, func(i0, i1 int) {
				for i := i0; i < i1; i++ {
					p := prod.Data[i*q*bs : (i+1)*q*bs]
					out := dst.Data[(r0+i)*dst.Stride+b0 : (r0+i)*dst.Stride+b0+bs]
					if codes != nil {
						maxCodes(out, codes[(r0+i)*m+b0:(r0+i)*m+b0+bs], p, q, bs, scale)
					} else {
						vecmath.MaxScale(out, p, q, scale)
					}
				}
			})
		}
	}
}

func maxCodes(out []float32, code []uint8, p []float32, q, bs int, scale float32) {
	for u := 0; u < bs; u++ {
		best, arg := p[u], 0
		for j := 1; j < q; j++ {
			if v := p[j*bs+u]; v > best {
				best, arg = v, j
			}
		}
		out[u] = best * scale
		code[u] = uint8(arg)
	}
}

func (mp *Map) runPool(dst, x blas32.General, codes []uint8, scale float32) {
	m, q, P := mp.p.M, mp.p.Q, mp.p.Pool
	buf := mp.getScratch(rowChunk * P)
	defer mp.putScratch(buf)
	for r0 := 0; r0 < x.Rows; r0 += rowChunk {
		rows := min(rowChunk, x.Rows-r0)
		prod := blas32.General{Rows: rows, Cols: P, Stride: P, Data: buf[:rows*P]}
		linalg.MulABt32(prod, linalg.Rows32(x, r0, r0+rows), mp.pool)
		for i := 0; i < rows; i++ {
			p := prod.Data[i*P : (i+1)*P]
			out := dst.Data[(r0+i)*dst.Stride : (r0+i)*dst.Stride+m]
			for l := range out {
				mem := mp.members[l*q : (l+1)*q]
				best, arg := p[mem[0]], 0
				for j := 1; j < q; j++ {
					if v := p[mem[j]]; v > best {
						best, arg = v, j
					}
				}
				out[l] = best * scale
				if codes != nil {
					codes[(r0+i)*m+l] = uint8(arg)
				}
			}
		}
	}
}
