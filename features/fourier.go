package features

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/vecmath"
)

// FourierKind is the recipe kind of random Fourier features.
const FourierKind = "fourier"

// FourierParams are the recipe parameters of random Fourier features.
type FourierParams struct {
	M     int     `json:"m"`     // features
	Sigma float64 `json:"sigma"` // Gaussian kernel bandwidth
}

// Fourier is the random Fourier ("kitchen sinks") map for the Gaussian
// kernel exp(-‖x-z‖²/(2σ²)): φ_k(x) = √(2/m)·cos(<w_k,x> + b_k) with
// w_k ~ N(0, σ⁻²I) and b_k ~ U[0, 2π).
type Fourier struct {
	in   int
	seed uint64
	p    FourierParams
	w    blas32.General // m × in, already divided by σ
	b    []float32
	// proj multiplies sparse inputs (images) by their nonzeros alone.
	proj *linalg.Projections
}

func init() {
	Register(FourierKind, func(r Recipe) (Map, error) {
		var p FourierParams
		if err := UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		return NewFourier(r.In, p, r.Seed)
	})
}

// NewFourier draws the map: projections from stream 0, phases from stream 1.
func NewFourier(in int, p FourierParams, seed uint64) (*Fourier, error) {
	if in <= 0 || p.M <= 0 || !(p.Sigma > 0) || math.IsInf(p.Sigma, 0) {
		return nil, fmt.Errorf("features: fourier map needs in, m ≥ 1 and σ > 0, have in=%d m=%d σ=%v", in, p.M, p.Sigma)
	}
	f := &Fourier{in: in, seed: seed, p: p, w: linalg.NewGeneral32(p.M, in), b: make([]float32, p.M)}
	SeededNormal32(seed, 0, f.w.Data)
	inv := float32(1 / p.Sigma)
	for i := range f.w.Data {
		f.w.Data[i] *= inv
	}
	r := NewRand(seed, 1)
	for i := range f.b {
		f.b[i] = float32(2 * math.Pi * Uniform(r))
	}
	f.proj = linalg.NewProjections(f.w)
	return f, nil
}

func (f *Fourier) InDim() int  { return f.in }
func (f *Fourier) OutDim() int { return f.p.M }

func (f *Fourier) Recipe() Recipe {
	return Recipe{Kind: FourierKind, In: f.in, Seed: f.seed, Params: MarshalParams(f.p)}
}

// Apply computes the features: one GEMM (rows mostly of zeros by their
// nonzeros alone, linalg.Projections), then the cosine in float64 (the
// phase can be large, and float32 cosines of large arguments lose digits),
// vectorised by vecmath.
func (f *Fourier) Apply(dst, x blas32.General) {
	CheckShapes(f, dst, x)
	if x.Rows == 0 {
		return
	}
	split := linalg.NewSplitRows()
	split.Split(x)
	f.proj.MulABt(dst, split)
	split.Release()
	// The cosines cost as much as the product (which OpenBLAS already
	// spreads over the cores), so they are spread over the cores too.
	scale := math.Sqrt(2 / float64(f.p.M))
	linalg.ParallelRows(dst.Rows, 16, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			vecmath.CosAffine(dst.Data[i*dst.Stride:i*dst.Stride+f.p.M], f.b, scale)
		}
	})
}

func init() {
	RegisterColumns(FourierKind, func(r Recipe, cols []int) (Applier, error) {
		var p FourierParams
		if err := UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		return newFourierColumns(r.In, p, r.Seed, cols)
	})
}

// fourierColumns computes columns cols of the Fourier map (in, p, seed):
// the same frequencies, phases and √(2/m) scale, but only len(cols) rows of
// projections are ever held.
type fourierColumns struct {
	in, m int
	scale float64
	w     blas32.General // len(cols) × in, divided by σ
	b     []float32
}

func newFourierColumns(in int, p FourierParams, seed uint64, cols []int) (*fourierColumns, error) {
	if in <= 0 || p.M <= 0 || !(p.Sigma > 0) || math.IsInf(p.Sigma, 0) {
		return nil, fmt.Errorf("features: fourier map needs in, m ≥ 1 and σ > 0, have in=%d m=%d σ=%v", in, p.M, p.Sigma)
	}
	if int64(p.M)*int64(in) > 1<<31 {
		// The kept rows are found by drawing the whole stream: refuse a
		// recipe whose stream alone would take minutes.
		return nil, fmt.Errorf("features: fourier map of %d×%d projections exceeds 2³¹ values", p.M, in)
	}
	if err := CheckColumns(cols, p.M); err != nil {
		return nil, err
	}
	f := &fourierColumns{in: in, m: len(cols), scale: math.Sqrt(2 / float64(p.M)), w: linalg.NewGeneral32(len(cols), in), b: make([]float32, len(cols))}
	inv := float32(1 / p.Sigma)
	next := 0 // index into cols of the next row wanted
	ForEachNormal32(NewRand(seed, 0), p.M*in, func(off int, chunk []float32) {
		end := off + len(chunk)
		for next < len(cols) && cols[next]*in < end {
			row := cols[next]
			// A row may straddle two chunks: copy the part in this one.
			lo, hi := max(row*in, off), min((row+1)*in, end)
			dst := f.w.Data[next*in+(lo-row*in) : next*in+(hi-row*in)]
			for i, v := range chunk[lo-off : hi-off] {
				dst[i] = v * inv
			}
			if hi < (row+1)*in {
				break // the rest of this row is in the next chunk
			}
			next++
		}
	})
	r := NewRand(seed, 1)
	k := 0
	for i := 0; i < p.M && k < len(cols); i++ {
		b := float32(2 * math.Pi * Uniform(r))
		if i == cols[k] {
			f.b[k] = b
			k++
		}
	}
	return f, nil
}

func (f *fourierColumns) InDim() int  { return f.in }
func (f *fourierColumns) OutDim() int { return f.m }

func (f *fourierColumns) Apply(dst, x blas32.General) {
	if x.Cols != f.in || dst.Cols != f.m || dst.Rows != x.Rows {
		panic(fmt.Sprintf("features: fourier columns %d→%d applied to %dx%d into %dx%d", f.in, f.m, x.Rows, x.Cols, dst.Rows, dst.Cols))
	}
	if x.Rows == 0 {
		return
	}
	linalg.MulABt32(dst, x, f.w)
	for i := 0; i < dst.Rows; i++ {
		// The full map's cosine, so every column equals the full map's.
		vecmath.CosAffine(dst.Data[i*dst.Stride:i*dst.Stride+f.m], f.b, f.scale)
	}
}
