package train

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/floats"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// The out-of-domain rule of an image model (engine.OutOfDomain) is
// chosen on its training images: a seeded tenth of them (at most
// oodHeldOut) is held out, the main directions of the others' features
// (at most oodBasisRows of them) make the basis, and the threshold is the
// familiarity below which OODReject of the held-out images fall. The
// read-out is not refitted: the rule reads features only.
const (
	oodHeldOut   = 2000
	oodBasisRows = 10000
	// oodMaxValues bounds the feature values held at once (basis rows and
	// held-out rows alike), so a map of many features (an invariant map's
	// m·bins) takes fewer rows rather than gigabytes: 128 MiB of float32.
	oodMaxValues = 32 << 20
	// oodIterations of subspace iteration bring the basis close enough to
	// the leading principal directions; the threshold is chosen on the
	// basis as it is, so any error in it is measured, not hidden.
	oodIterations = 4
)

// addOutOfDomain gives run's model an out-of-domain rule chosen on the
// prepared training images train.
func (o ImageOptions) addOutOfDomain(run *ImageRun, train *frontend.LabelledImages) error {
	fm, err := run.Model.FeatureMap()
	if err != nil {
		return err
	}
	start := time.Now()
	basis, rule, err := CalibrateOutOfDomain(fm, train.X, o.OODComponents, o.OODReject, o.SubsetSeed)
	if err != nil || rule == nil {
		return err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "out-of-domain rule: %d components, familiarity < %.4f rejects %.2f%% of %d held-out pictures (%.1fs)\n",
			rule.Components, rule.MinFamiliarity, 100*rule.HeldOutRejected, rule.HeldOut, time.Since(start).Seconds())
	}
	in := o.Input(train.Height, train.Width)
	in.OutOfDomain = rule
	if run.Model.Input, err = json.Marshal(in); err != nil {
		return err
	}
	if run.Model.Blobs == nil {
		run.Model.Blobs = map[string]blas32.General{}
	}
	run.Model.Blobs[engine.OODBasisBlob] = basis
	run.Report.OutOfDomain = rule
	return nil
}

// CalibrateOutOfDomain chooses an out-of-domain rule for the map fm from
// its prepared training rows x: a basis of at most components directions
// and the familiarity threshold that leaves reject of the held-out rows
// below it. With fewer than four rows there is nothing to hold out, and
// no rule (nil, nil).
func CalibrateOutOfDomain(fm features.Map, x blas32.General, components int, reject float64, seed uint64) (blas32.General, *engine.OutOfDomain, error) {
	if reject < 0 || reject >= 1 {
		return blas32.General{}, nil, fmt.Errorf("out-of-domain reject rate %g outside [0, 1)", reject)
	}
	n := x.Rows
	if n < 4 {
		return blas32.General{}, nil, nil
	}
	order := rand.New(rand.NewPCG(seed, 0x6f6f64)).Perm(n)
	budget := max(oodMaxValues/fm.OutDim(), 4)
	held := min(max(n/10, 1), oodHeldOut, max(budget/5, 1))
	heldRows, basisRows := order[:held], order[held:min(n, held+oodBasisRows, held+budget)]
	k := min(components, len(basisRows)/2, fm.OutDim())
	if k < 1 {
		return blas32.General{}, nil, nil
	}
	zb := featuresOf(fm, x, basisRows)
	basis := principalDirections(zb, k, seed)
	fam := engine.Familiarity(featuresOf(fm, x, heldRows), basis)
	slices.Sort(fam)
	threshold := fam[int(reject*float64(len(fam)))]
	rejected := 0
	for _, f := range fam {
		if f < threshold {
			rejected++
		}
	}
	return basis, &engine.OutOfDomain{Components: k, MinFamiliarity: threshold, HeldOut: held,
		HeldOutRejected: float64(rejected) / float64(held)}, nil
}

// featuresOf maps the given rows of x.
func featuresOf(fm features.Map, x blas32.General, rows []int) blas32.General {
	sel := linalg.NewGeneral32(len(rows), x.Cols)
	for j, i := range rows {
		copy(linalg.Row32(sel, j), linalg.Row32(x, i))
	}
	z := linalg.NewGeneral32(len(rows), fm.OutDim())
	fm.Apply(z, sel)
	return z
}

// principalDirections approximates the k leading right singular vectors
// of z (uncentred: the directions of most energy) by subspace iteration
// from a seeded random start, returned as k orthonormal rows.
func principalDirections(z blas32.General, k int, seed uint64) blas32.General {
	m := z.Cols
	q := linalg.NewGeneral32(m, k)
	rng := rand.New(rand.NewPCG(seed, 0x62617369))
	for i := range q.Data {
		q.Data[i] = float32(rng.NormFloat64())
	}
	orthonormalize(q)
	a := linalg.NewGeneral32(z.Rows, k)
	for range oodIterations {
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, z, q, 0, a)
		blas32.Gemm(blas.Trans, blas.NoTrans, 1, z, a, 0, q)
		orthonormalize(q)
	}
	basis := linalg.NewGeneral32(k, m)
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			basis.Data[j*basis.Stride+i] = q.Data[i*q.Stride+j]
		}
	}
	return basis
}

// orthonormalize replaces q's columns by an orthonormal basis of their
// span: Gram-Schmidt in float64, each column cleared of the ones before it
// twice over (once is not enough in floating point when columns are close
// to dependent). A column left with no length of its own stays zero.
func orthonormalize(q blas32.General) {
	col := make([][]float64, q.Cols)
	for j := range col {
		col[j] = make([]float64, q.Rows)
		for i := range col[j] {
			col[j][i] = float64(q.Data[i*q.Stride+j])
		}
	}
	for j, c := range col {
		for range 2 {
			for _, prev := range col[:j] {
				dot := floats.Dot(c, prev)
				floats.AddScaled(c, -dot, prev)
			}
		}
		if n := floats.Norm(c, 2); n > 1e-12 {
			floats.Scale(1/n, c)
		} else {
			clear(c)
		}
	}
	for j, c := range col {
		for i, v := range c {
			q.Data[i*q.Stride+j] = float32(v)
		}
	}
}
