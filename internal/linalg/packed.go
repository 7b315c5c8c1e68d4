package linalg

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/vecmath"
)

// packedKernel tells whether Packed products run on the tile kernel
// (vecmath.GemmTile12x32); tests switch it off to compare with the BLAS.
var packedKernel = vecmath.TileKernel

// Packed is the right operand B (k×n) of products a·B taken again and
// again with the same B, a model's weights: the feature map's projections
// and the read-out. Where the CPU has AVX-512 it holds B rearranged once
// into panels of tileCols columns, row after row, which a register-tiled
// kernel streams through while the rows of a stay in cache; gonum's pure-Go
// GEMM reached 6 GFLOP/s on one core on the connected model's map
// (experiments/journal/streaming.md, 2026-12-01), a third of what the map
// needs to keep up with pocketsphinx. Elsewhere, and in purego builds, the
// product is the BLAS's. The two agree to float32 rounding (the kernel
// fuses each multiply-add and sums in order over the inner dimension), and
// a row's result never depends on which other rows share the product.
type Packed struct {
	k, n   int
	b      blas32.General // B, or Bᵀ when trans
	trans  bool
	panels []float32 // ⌈n/tileCols⌉ panels of k rows of tileCols values, zero-padded
}

const (
	tileRows = 12 // rows of a per kernel call
	tileCols = 32 // columns of B per panel
	// chunkRows of a are packed at a time: 16 tiles of a 429-long inner
	// dimension, 330 KB, stay in L2 while every panel passes over them.
	chunkRows = 16 * tileRows
)

// PackB prepares a·b products with b (k×n), which must not change.
func PackB(b blas32.General) *Packed { return pack(b, false) }

// PackBt prepares a·bᵀ products with b (n×k), which must not change.
func PackBt(b blas32.General) *Packed { return pack(b, true) }

func pack(b blas32.General, trans bool) *Packed {
	p := &Packed{k: b.Rows, n: b.Cols, b: b, trans: trans}
	if trans {
		p.k, p.n = b.Cols, b.Rows
	}
	if !packedKernel || p.k == 0 || p.n == 0 {
		return p
	}
	np := (p.n + tileCols - 1) / tileCols
	p.panels = make([]float32, np*p.k*tileCols)
	for j := 0; j < p.n; j++ {
		panel := p.panels[(j/tileCols)*p.k*tileCols:]
		for r := 0; r < p.k; r++ {
			v := float32(0)
			if trans {
				v = b.Data[j*b.Stride+r]
			} else {
				v = b.Data[r*b.Stride+j]
			}
			panel[r*tileCols+j%tileCols] = v
		}
	}
	return p
}

// Rows is k, the inner dimension; Cols is n.
func (p *Packed) Rows() int { return p.k }

// Cols is the number of columns of B and of a product.
func (p *Packed) Cols() int { return p.n }

var packScratch = sync.Pool{New: func() any { return new([]float32) }}

// Mul sets dst = a·B.
func (p *Packed) Mul(dst, a blas32.General) {
	if a.Cols != p.k || dst.Rows != a.Rows || dst.Cols != p.n {
		panic(fmt.Sprintf("linalg: Packed product %dx%d · %dx%d → %dx%d", a.Rows, a.Cols, p.k, p.n, dst.Rows, dst.Cols))
	}
	if a.Rows == 0 || p.n == 0 {
		return
	}
	if p.panels == nil || p.k == 0 {
		tb := blas.NoTrans
		if p.trans {
			tb = blas.Trans
		}
		blas32.Gemm(blas.NoTrans, tb, 1, a, p.b, 0, dst)
		return
	}
	chunks := (a.Rows + chunkRows - 1) / chunkRows
	if chunks == 1 {
		// One chunk (a few frames, one word's vector): its rows are packed
		// once and the panels split between the cores, so a small
		// product is not left to one core.
		buf := packScratch.Get().(*[]float32)
		defer packScratch.Put(buf)
		if cap(*buf) < chunkRows*p.k {
			*buf = make([]float32, chunkRows*p.k)
		}
		ap := (*buf)[:chunkRows*p.k]
		p.packRows(a, 0, a.Rows, ap)
		panels := (p.n + tileCols - 1) / tileCols
		ParallelRows(panels, 16, func(j0, j1 int) {
			var tile [tileRows * tileCols]float32
			p.mulPanels(dst, 0, a.Rows, ap, tile[:], j0, j1)
		})
		return
	}
	ParallelRows(chunks, 1, func(c0, c1 int) {
		buf := packScratch.Get().(*[]float32)
		defer packScratch.Put(buf)
		need := chunkRows*p.k + tileRows*tileCols
		if cap(*buf) < need {
			*buf = make([]float32, need)
		}
		ap, tile := (*buf)[:chunkRows*p.k], (*buf)[chunkRows*p.k:need]
		panels := (p.n + tileCols - 1) / tileCols
		for c := c0; c < c1; c++ {
			r0, r1 := c*chunkRows, min((c+1)*chunkRows, a.Rows)
			p.packRows(a, r0, r1, ap)
			p.mulPanels(dst, r0, r1, ap, tile, 0, panels)
		}
	})
}

// packRows lays rows [r0, r1) of a out tile by tile in ap ([k][tileRows]
// a tile, zero rows past r1).
func (p *Packed) packRows(a blas32.General, r0, r1 int, ap []float32) {
	k := p.k
	tiles := (r1 - r0 + tileRows - 1) / tileRows
	for t := 0; t < tiles; t++ {
		at := ap[t*k*tileRows : (t+1)*k*tileRows]
		for i := 0; i < tileRows; i++ {
			r := r0 + t*tileRows + i
			if r >= r1 {
				for q := 0; q < k; q++ {
					at[q*tileRows+i] = 0
				}
				continue
			}
			for q, v := range a.Data[r*a.Stride : r*a.Stride+k] {
				at[q*tileRows+i] = v
			}
		}
	}
}

// mulPanels computes rows [r0, r1) of dst, packed in ap, in the columns of
// panels [q0, q1).
func (p *Packed) mulPanels(dst blas32.General, r0, r1 int, ap, tile []float32, q0, q1 int) {
	k := p.k
	tiles := (r1 - r0 + tileRows - 1) / tileRows
	for q := q0; q < q1; q++ {
		j0 := q * tileCols
		panel := p.panels[q*k*tileCols:]
		cols := min(tileCols, p.n-j0)
		for t := 0; t < tiles; t++ {
			vecmath.GemmTile12x32(k, &ap[t*k*tileRows], &panel[0], &tile[0])
			for i := 0; i < tileRows && r0+t*tileRows+i < r1; i++ {
				r := r0 + t*tileRows + i
				copy(dst.Data[r*dst.Stride+j0:r*dst.Stride+j0+cols], tile[i*tileCols:i*tileCols+cols])
			}
		}
	}
}
