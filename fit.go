package rfstream

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/progress"
)

// FitOptions control FitRLS.
type FitOptions struct {
	// Lambda is the ridge parameter; 0 chooses it on a held-out split.
	Lambda float64
	// Block is how many rows go through the map at a time (default 4096).
	Block int
	// HoldOut is the fraction of training rows held out to choose λ
	// (default 0.1). The test set is never used for this.
	HoldOut float64
	// Grid lists candidate λ relative to the mean diagonal of ZᵀZ
	// (default 1e-6 … 1e-1 by decades).
	Grid []float64
	// Seed fixes which rows are held out.
	Seed uint64
	// HeldOutRows, when set, are the rows held out to choose λ instead of
	// a random HoldOut fraction: e.g. every recording of some speakers, so
	// λ is chosen for new speakers rather than new takes of known ones.
	HeldOutRows []int
	// Progress, when set, receives progress reports.
	Progress io.Writer
}

// LambdaTrial is one candidate λ and its held-out error.
type LambdaTrial struct {
	Lambda, Relative, HeldOutError float64
}

// FitReport says how a fit went.
type FitReport struct {
	Lambda float64
	Trials []LambdaTrial
}

// FitRLS trains an RLS read-out on map m of the rows of x, streaming x
// through the map block by block so only one block of features is held at
// a time (plus, when λ is being chosen, the held-out rows' features).
func FitRLS(m features.Map, x blas32.General, labels []int, classes int, opt FitOptions) (*classifier.RLS, FitReport, error) {
	if x.Rows != len(labels) {
		return nil, FitReport{}, fmt.Errorf("rfstream: %d rows but %d labels", x.Rows, len(labels))
	}
	if x.Cols != m.InDim() {
		return nil, FitReport{}, fmt.Errorf("rfstream: %d-column input for a %d-input map", x.Cols, m.InDim())
	}
	if opt.Block <= 0 {
		opt.Block = 4096
	}
	if opt.HoldOut <= 0 {
		opt.HoldOut = 0.1
	}
	if len(opt.Grid) == 0 {
		opt.Grid = []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1}
	}
	var bar *progress.Bar
	if opt.Progress != nil {
		bar = progress.New(opt.Progress, "features+gram", int64(x.Rows), "rows")
		defer bar.Finish()
	}
	train := classifier.NewRLSAccumulator(m.OutDim(), classes)
	if opt.Lambda > 0 {
		err := streamRows(m, x, labels, identityOrder(x.Rows), opt.Block, bar, func(z blas32.General, l []int) error { return train.Add(z, l) })
		if err != nil {
			return nil, FitReport{}, err
		}
		r, err := train.Solve(opt.Lambda)
		return r, FitReport{Lambda: opt.Lambda}, err
	}

	// Hold out a seeded random subset to choose λ.
	held, rest, err := heldOutSplit(x.Rows, opt)
	if err != nil {
		return nil, FitReport{}, err
	}
	nHeld := len(held)
	// The held-out rows' features are kept (they are scored for every λ
	// and join the Gram afterwards), so only one dim×dim Gram ever exists.
	heldZ := linalg.NewGeneral32(nHeld, m.OutDim())
	heldLabels := make([]int, 0, nHeld)
	at := 0
	err = streamRows(m, x, labels, held, opt.Block, bar, func(z blas32.General, l []int) error {
		for i := 0; i < z.Rows; i++ {
			copy(linalg.Row32(heldZ, at+i), linalg.Row32(z, i))
		}
		at += z.Rows
		heldLabels = append(heldLabels, l...)
		return nil
	})
	if err != nil {
		return nil, FitReport{}, err
	}
	err = streamRows(m, x, labels, rest, opt.Block, bar, func(z blas32.General, l []int) error { return train.Add(z, l) })
	if err != nil {
		return nil, FitReport{}, err
	}
	scale := train.MeanDiagonal()
	if scale == 0 {
		scale = 1
	}
	var rep FitReport
	best := -1
	for _, rel := range opt.Grid {
		r, err := train.Solve(rel * scale)
		if err != nil {
			continue // too small a λ for this Gram: skip it
		}
		e := classifier.ErrorRate(r.Predict(heldZ), heldLabels)
		rep.Trials = append(rep.Trials, LambdaTrial{Lambda: rel * scale, Relative: rel, HeldOutError: e})
		// Ties go to the larger λ: the smoother model.
		if best < 0 || e <= rep.Trials[best].HeldOutError {
			best = len(rep.Trials) - 1
		}
	}
	if best < 0 {
		return nil, rep, fmt.Errorf("rfstream: no λ in %v gave a solvable system", opt.Grid)
	}
	// Refit on all rows. λ grows with N so the balance between data and
	// regulariser stays the one the held-out rows chose.
	for b0 := 0; b0 < nHeld; b0 += opt.Block {
		b1 := min(b0+opt.Block, nHeld)
		if err := train.Add(linalg.Rows32(heldZ, b0, b1), heldLabels[b0:b1]); err != nil {
			return nil, rep, err
		}
	}
	rep.Lambda = rep.Trials[best].Lambda * float64(x.Rows) / float64(len(rest))
	r, err := train.Solve(rep.Lambda)
	return r, rep, err
}

// heldOutSplit returns the sorted rows held out to choose λ and the rest.
func heldOutSplit(n int, opt FitOptions) (held, rest []int, err error) {
	if len(opt.HeldOutRows) > 0 {
		in := make([]bool, n)
		for _, r := range opt.HeldOutRows {
			if r < 0 || r >= n || in[r] {
				return nil, nil, fmt.Errorf("rfstream: held-out row %d is out of range or repeated (%d rows)", r, n)
			}
			in[r] = true
		}
		for i, h := range in {
			if h {
				held = append(held, i)
			} else {
				rest = append(rest, i)
			}
		}
	} else {
		order := rand.New(rand.NewPCG(opt.Seed, 0x686f6c64)).Perm(n)
		k := int(math.Round(opt.HoldOut * float64(n)))
		held, rest = order[:min(max(k, 0), n)], order[min(max(k, 0), n):]
		sort.Ints(held)
		sort.Ints(rest)
	}
	if len(held) < 1 || len(rest) < 1 {
		return nil, nil, fmt.Errorf("rfstream: cannot hold out %d of %d rows to choose λ; give --lambda", len(held), n)
	}
	return held, rest, nil
}

func identityOrder(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// streamRows applies m to the rows of x listed in idx, block by block, and
// hands each block of features with its labels to sink.
func streamRows(m features.Map, x blas32.General, labels []int, idx []int, block int, bar *progress.Bar, sink func(blas32.General, []int) error) error {
	in := linalg.NewGeneral32(min(block, len(idx)), x.Cols)
	out := linalg.NewGeneral32(min(block, len(idx)), m.OutDim())
	lb := make([]int, 0, block)
	for b0 := 0; b0 < len(idx); b0 += block {
		rows := idx[b0:min(b0+block, len(idx))]
		xi := linalg.Rows32(in, 0, len(rows))
		lb = lb[:0]
		for i, r := range rows {
			copy(linalg.Row32(xi, i), linalg.Row32(x, r))
			lb = append(lb, labels[r])
		}
		z := linalg.Rows32(out, 0, len(rows))
		m.Apply(z, xi)
		if err := sink(z, lb); err != nil {
			return err
		}
		if bar != nil {
			bar.Add(int64(len(rows)))
		}
	}
	return nil
}

// Features applies m to all rows of x in blocks and returns the features.
func Features(m features.Map, x blas32.General, block int) blas32.General {
	if block <= 0 {
		block = 4096
	}
	z := linalg.NewGeneral32(x.Rows, m.OutDim())
	for b0 := 0; b0 < x.Rows; b0 += block {
		b1 := min(b0+block, x.Rows)
		m.Apply(linalg.Rows32(z, b0, b1), linalg.Rows32(x, b0, b1))
	}
	return z
}

// Predict maps the rows of x through m block by block and returns r's
// arg-max class for each, holding one block of features at a time rather
// than the whole n×OutDim feature matrix (400 MB for the MNIST test set at
// 10000 features).
func Predict(m features.Map, r *classifier.RLS, x blas32.General, block int) []int {
	if block <= 0 {
		block = 4096
	}
	pred := make([]int, 0, x.Rows)
	z := linalg.NewGeneral32(min(block, x.Rows), m.OutDim())
	for b0 := 0; b0 < x.Rows; b0 += block {
		b1 := min(b0+block, x.Rows)
		zb := linalg.Rows32(z, 0, b1-b0)
		m.Apply(zb, linalg.Rows32(x, b0, b1))
		pred = append(pred, r.Predict(zb)...)
	}
	return pred
}
