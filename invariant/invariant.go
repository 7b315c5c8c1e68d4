package invariant

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// Kind is the recipe kind of the invariant map.
const Kind = "invariant"

// Template sources.
const (
	Gaussian = "gaussian" // N(0, I/d), rejected unless ‖t‖² < 1+ε
	Sphere   = "sphere"   // uniform on the unit sphere
	Data     = "data"     // rows of training data (stored in the recipe)
	// DataDiff templates are differences of two rows of training data
	// (stored in the recipe). Each compares the input with one example
	// against another under every group element, so a template is centred
	// by construction and pairs of digits of different shapes give
	// contrasts a single digit does not.
	DataDiff = "datadiff"
	// DataMix templates are zero-sum random combinations Σ wᵢ xᵢ of
	// MixRows rows of training data (stored in the recipe): contrasts
	// among several shapes. Two rows give a difference template up to
	// scale and sign; many rows tend to a Gaussian with the data's
	// covariance.
	DataMix = "datamix"
)

// FromData reports whether a template source draws its templates from rows
// of data (which then live in the recipe) rather than from the seed.
func FromData(source string) bool { return source == Data || source == DataDiff || source == DataMix }

// Params are the recipe parameters of the invariant map.
type Params struct {
	// M is the number of templates.
	M int `json:"m"`
	// N is the number of bins on each side of zero: the thresholds are
	// s·k/n for k = −n … n (or 2n+1 thresholds on [Lo, Hi]).
	N int `json:"n"`
	// G is the number of group elements sampled from the Haar measure (or
	// the local subset); 0 uses every element of a finite group.
	G int `json:"g"`
	// Group is the group acting on the templates.
	Group transforms.Spec `json:"group"`
	// Templates is the template source: gaussian (default), sphere or data.
	Templates string `json:"templates,omitempty"`
	// Epsilon is the rejection bound of Gaussian templates and sets the
	// default threshold range s = 1+ε (default 0.5).
	Epsilon float64 `json:"epsilon,omitempty"`
	// S is the threshold range [−s, s]; 0 means 1+ε, right for unit inputs.
	// Inputs of norm up to R need R(1+ε).
	S float64 `json:"s,omitempty"`
	// Lo and Hi, when either is non-zero, place the 2n+1 thresholds at
	// Lo + (Hi−Lo)·k/(2n), k = 0 … 2n, instead of on [−s, s]. Unit images
	// project onto centred unit templates mostly inside a narrow band
	// (about [−0.3, 0.8] on MNIST), where the symmetric grid puts only a
	// few of its thresholds; the features are still CDF values of the
	// whole pooled orbit, so invariance is unchanged.
	Lo float64 `json:"lo,omitempty"`
	Hi float64 `json:"hi,omitempty"`
	// Ranges, when set, give every template its own threshold range:
	// template j's 2n+1 thresholds lie evenly on [Ranges[2j],
	// Ranges[2j+1]] (see WithRanges). Difference templates of two similar
	// digits project into a narrower band than those of two dissimilar
	// ones, so one range for all leaves many thresholds of the narrow ones
	// where no projection falls. Excludes S, Lo and Hi.
	Ranges []float64 `json:"ranges,omitempty"`
	// GridBits, when positive, rounds template entries to multiples of
	// 2^−GridBits. Projections of inputs with few small-integer entries
	// (one-hot sequences) are then exact in float32 whatever the summation
	// order, so a finite group used whole gives bit-identical features on
	// every point of an orbit.
	GridBits int `json:"grid_bits,omitempty"`
	// TemplateData holds data templates (m rows of In float32, little
	// endian), since they cannot be regenerated from the seed.
	TemplateData []byte `json:"template_data,omitempty"`
	// Sources records the training rows the data templates came from.
	Sources []int `json:"sources,omitempty"`
	// MixRows is the number of rows each datamix template combines.
	MixRows int `json:"mix_rows,omitempty"`
	// MixWeights records the datamix weights, MixRows per template in the
	// order of Sources; each template's weights sum to zero.
	MixWeights []float32 `json:"mix_weights,omitempty"`
	// Center subtracts each data template's mean value before scaling it
	// to unit length. Rows of non-negative data (images) project onto
	// non-negative templates at non-negative values only, which leaves
	// the thresholds below zero idle; centred templates use both sides.
	Center bool `json:"center,omitempty"`
	// CenterCopies centres every stored transformed copy g·t and scales it
	// to unit length. Transforms of images move pixels out of the frame and
	// zeros in, so a centred unit template's copies are neither centred nor
	// of unit length; with this set every copy is, and the projections of
	// all copies share one scale (what the threshold range was chosen for).
	CenterCopies bool `json:"center_copies,omitempty"`
}

// Map is the CDF-pooled group-invariant feature map. It is safe for
// concurrent use.
type Map struct {
	in    int
	seed  uint64
	p     Params
	group transforms.Group
	elems []transforms.Element
	s     float64
	// lo and step place threshold k (0 … 2n) at lo + k·step; with
	// per-template ranges step is their mean, which sets the weight.
	lo, step float64
	// scale[j] and offset[j] turn a projection v onto template j into its
	// threshold index as a real number, v·scale + offset.
	scale, offset []float32
	// t holds the transformed templates, template-major: row j·|G|+i is
	// g_i·t_j, so one template's projections are contiguous.
	t blas32.General
}

func init() {
	features.Register(Kind, func(r features.Recipe) (features.Map, error) {
		var p Params
		if err := features.UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		return New(r.In, p, r.Seed)
	})
}

// New builds the map: templates from stream 0 of seed, group elements from
// stream 1. Data templates must already be in p.TemplateData (see
// NewFromData).
func New(in int, p Params, seed uint64) (*Map, error) {
	if p.Templates == "" {
		p.Templates = Gaussian
	}
	if p.Epsilon == 0 {
		p.Epsilon = 0.5
	}
	if in < 1 || p.M < 1 || p.N < 1 || p.G < 0 || !(p.Epsilon > 0) || !(p.S >= 0) || math.IsInf(p.S, 0) || p.GridBits < 0 || p.GridBits > 30 {
		return nil, fmt.Errorf("invariant: need in, m, n ≥ 1, g ≥ 0, ε > 0, finite s ≥ 0, 0 ≤ grid_bits ≤ 30; have in=%d m=%d n=%d g=%d ε=%v s=%v grid_bits=%d",
			in, p.M, p.N, p.G, p.Epsilon, p.S, p.GridBits)
	}
	if p.Lo != 0 || p.Hi != 0 {
		if !(p.Hi > p.Lo) || math.IsInf(p.Lo, 0) || math.IsInf(p.Hi, 0) || p.S != 0 {
			return nil, fmt.Errorf("invariant: a threshold range needs finite lo < hi and no s; have lo=%v hi=%v s=%v", p.Lo, p.Hi, p.S)
		}
	}
	if p.Ranges != nil {
		if len(p.Ranges) != 2*p.M || p.S != 0 || p.Lo != 0 || p.Hi != 0 {
			return nil, fmt.Errorf("invariant: per-template ranges need 2 values for each of %d templates and no s, lo or hi; have %d values, s=%v lo=%v hi=%v",
				p.M, len(p.Ranges), p.S, p.Lo, p.Hi)
		}
		for j := 0; j < p.M; j++ {
			lo, hi := p.Ranges[2*j], p.Ranges[2*j+1]
			if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
				return nil, fmt.Errorf("invariant: template %d's threshold range [%v, %v] needs finite lo < hi", j, lo, hi)
			}
		}
	}
	g, err := transforms.Build(p.Group)
	if err != nil {
		return nil, fmt.Errorf("invariant: %w", err)
	}
	if g.Dim() != in {
		return nil, fmt.Errorf("invariant: group %s acts on length %d, inputs have %d", p.Group.Kind, g.Dim(), in)
	}
	mp := &Map{in: in, seed: seed, p: p, group: g, s: p.S}
	if mp.s == 0 {
		mp.s = 1 + p.Epsilon
	}
	mp.setThresholds()
	if p.G == 0 {
		all, ok := g.Elements()
		if !ok {
			return nil, fmt.Errorf("invariant: group %s is continuous: give the number of elements to sample (g > 0)", p.Group.Kind)
		}
		mp.elems = all
	} else {
		mp.elems = g.Sample(features.NewRand(seed, 1), p.G)
	}
	tmpl, err := templates(in, p, seed)
	if err != nil {
		return nil, err
	}
	if p.GridBits > 0 {
		q := math.Ldexp(1, p.GridBits)
		for i, v := range tmpl.Data {
			tmpl.Data[i] = float32(math.Round(float64(v)*q) / q)
		}
	}
	ng := len(mp.elems)
	mp.t = linalg.NewGeneral32(p.M*ng, in)
	for j := 0; j < p.M; j++ {
		src := linalg.Row32(tmpl, j)
		for i, e := range mp.elems {
			row := linalg.Row32(mp.t, j*ng+i)
			g.Apply(row, src, e)
			if p.CenterCopies {
				centre(row)
				normalize(row)
			}
		}
	}
	return mp, nil
}

// templates draws (or decodes) the m templates as rows.
func templates(in int, p Params, seed uint64) (blas32.General, error) {
	t := linalg.NewGeneral32(p.M, in)
	r := features.NewRand(seed, 0)
	switch p.Templates {
	case Gaussian:
		// t ~ N(0, I/d), redrawn while ‖t‖² ≥ 1+ε so projections of unit
		// inputs stay inside [−s, s].
		sd := 1 / math.Sqrt(float64(in))
		for j := 0; j < p.M; j++ {
			row := linalg.Row32(t, j)
			for tries := 0; ; tries++ {
				if tries == 1000 {
					return t, fmt.Errorf("invariant: no Gaussian template with ‖t‖² < 1+ε in 1000 draws (ε=%v, d=%d)", p.Epsilon, in)
				}
				features.FillNormal32(r, row)
				var n2 float64
				for k := range row {
					row[k] *= float32(sd)
					n2 += float64(row[k]) * float64(row[k])
				}
				if n2 < 1+p.Epsilon {
					break
				}
			}
		}
	case Sphere:
		for j := 0; j < p.M; j++ {
			row := linalg.Row32(t, j)
			features.FillNormal32(r, row)
			normalize(row)
		}
	case Data, DataDiff, DataMix:
		if len(p.TemplateData) != 4*p.M*in {
			return t, fmt.Errorf("invariant: data templates need %d bytes (m=%d rows of %d float32), recipe has %d", 4*p.M*in, p.M, in, len(p.TemplateData))
		}
		for i := range t.Data {
			v := math.Float32frombits(binary.LittleEndian.Uint32(p.TemplateData[4*i:]))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return t, fmt.Errorf("invariant: data template value %d is %v", i, v)
			}
			t.Data[i] = v
		}
	default:
		return t, fmt.Errorf("invariant: unknown template source %q (gaussian, sphere, data, datadiff, datamix)", p.Templates)
	}
	return t, nil
}

// centre subtracts the mean of v from every element.
func centre(v []float32) {
	var mean float64
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	for i := range v {
		v[i] -= float32(mean)
	}
}

func normalize(v []float32) {
	var n2 float64
	for _, x := range v {
		n2 += float64(x) * float64(x)
	}
	if n2 == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n2))
	for i := range v {
		v[i] *= inv
	}
}

// NewFromData builds a map whose templates are m rows of x chosen by the
// seed (without replacement) and scaled to unit length. With p.Templates set
// to DataDiff each template is instead the difference of two chosen rows
// (2m distinct rows, Sources in pairs: template j is row Sources[2j] − row
// Sources[2j+1]); with DataMix it is Σ wᵢ·row Sources[k·j+i] over k =
// p.MixRows distinct rows, the weights drawn N(0, 1) and then shifted to sum
// to zero (recorded in MixWeights). The templates are stored in the recipe,
// so the map rebuilds without the data.
func NewFromData(x blas32.General, p Params, seed uint64) (*Map, error) {
	rowsPer := 1
	switch p.Templates {
	case DataDiff:
		rowsPer = 2
	case DataMix:
		if p.MixRows < 2 {
			return nil, fmt.Errorf("invariant: datamix templates combine at least 2 rows, not %d", p.MixRows)
		}
		rowsPer = p.MixRows
	default:
		p.Templates = Data
	}
	if p.Templates != DataMix {
		p.MixRows = 0
	}
	if p.M < 1 || rowsPer*p.M > x.Rows {
		return nil, fmt.Errorf("invariant: %d %s templates from %d rows", p.M, p.Templates, x.Rows)
	}
	p.Sources = distinctRows(features.NewRand(seed, 0), x.Rows, rowsPer*p.M)
	p.MixWeights = nil
	if p.Templates == DataMix {
		// Stream 2: stream 1 samples the group elements, and stream 0 is
		// left drawing the same rows it would for any other source.
		p.MixWeights = make([]float32, rowsPer*p.M)
		features.FillNormal32(features.NewRand(seed, 2), p.MixWeights)
		for j := 0; j < p.M; j++ {
			centre(p.MixWeights[rowsPer*j : rowsPer*(j+1)])
		}
	}
	p.TemplateData = make([]byte, 4*p.M*x.Cols)
	row := make([]float32, x.Cols)
	for j := 0; j < p.M; j++ {
		switch p.Templates {
		case DataMix:
			clear(row)
			for i := 0; i < rowsPer; i++ {
				w := p.MixWeights[rowsPer*j+i]
				for k, v := range linalg.Row32(x, p.Sources[rowsPer*j+i]) {
					row[k] += w * v
				}
			}
		case DataDiff:
			copy(row, linalg.Row32(x, p.Sources[2*j]))
			for k, v := range linalg.Row32(x, p.Sources[2*j+1]) {
				row[k] -= v
			}
		default:
			copy(row, linalg.Row32(x, p.Sources[j]))
		}
		if p.Center {
			centre(row)
		}
		normalize(row)
		for k, v := range row {
			binary.LittleEndian.PutUint32(p.TemplateData[4*(j*x.Cols+k):], math.Float32bits(v))
		}
	}
	return New(x.Cols, p, seed)
}

// setThresholds places every template's thresholds as m.p says.
func (m *Map) setThresholds() {
	n := m.p.N
	m.lo, m.step = -m.s, m.s/float64(n)
	// Symmetric grid: index u = v·n/s + n, as the map always computed it.
	scale, offset := float32(float64(n)/m.s), float32(n)
	if m.p.Lo != 0 || m.p.Hi != 0 {
		m.lo, m.step = m.p.Lo, (m.p.Hi-m.p.Lo)/float64(2*n)
		scale, offset = float32(1/m.step), float32(-m.lo/m.step)
	}
	m.scale, m.offset = make([]float32, m.p.M), make([]float32, m.p.M)
	if m.p.Ranges == nil {
		for j := range m.scale {
			m.scale[j], m.offset[j] = scale, offset
		}
		return
	}
	var sum float64
	for j := range m.scale {
		lo, hi := m.p.Ranges[2*j], m.p.Ranges[2*j+1]
		step := (hi - lo) / float64(2*n)
		m.scale[j], m.offset[j] = float32(1/step), float32(-lo/step)
		sum += step
	}
	// One weight for all templates keeps every feature a count times one
	// unit (CountUnit); the ridge sees each template's counts alike.
	m.lo, m.step = math.NaN(), sum/float64(m.p.M)
}

// WithRanges returns the map with every template's thresholds spread evenly
// over its own range: from the qlo to the qhi quantile of the projections
// of up to rows rows of x (drawn by the map's seed) at every group element.
// The fixed range [Lo, Hi] was read off projections pooled over all
// templates in the same way; this reads it off each template alone. x must
// be prepared as the map's inputs are (e.g. unit length), and its labels
// are not needed. The ranges go into the recipe, so the map rebuilds
// without x.
func (m *Map) WithRanges(x blas32.General, rows int, qlo, qhi float64) (*Map, error) {
	if x.Cols != m.in || x.Rows < 1 || rows < 1 {
		return nil, fmt.Errorf("invariant: per-template ranges need rows of length %d, have %d×%d (rows %d)", m.in, x.Rows, x.Cols, rows)
	}
	if !(0 <= qlo && qlo < qhi && qhi <= 1) {
		return nil, fmt.Errorf("invariant: per-template ranges need quantiles 0 ≤ lo < hi ≤ 1, have %v, %v", qlo, qhi)
	}
	sample := x
	if rows < x.Rows {
		// Stream 3: streams 0–2 draw the templates, the group elements
		// and the mix weights.
		sample = linalg.NewGeneral32(rows, x.Cols)
		for i, src := range distinctRows(features.NewRand(m.seed, 3), x.Rows, rows) {
			copy(linalg.Row32(sample, i), linalg.Row32(x, src))
		}
	}
	ng := len(m.elems)
	ranges := make([]float64, 2*m.p.M)
	chunk := max(1, projBudget/(sample.Rows*ng))
	proj := make([]float32, sample.Rows*min(chunk, m.p.M)*ng)
	for j0 := 0; j0 < m.p.M; j0 += chunk {
		j1 := min(j0+chunk, m.p.M)
		cols := (j1 - j0) * ng
		pr := blas32.General{Rows: sample.Rows, Cols: cols, Stride: cols, Data: proj[:sample.Rows*cols]}
		linalg.MulABt32(pr, sample, linalg.Rows32(m.t, j0*ng, j1*ng))
		linalg.ParallelRows(j1-j0, 1, func(t0, t1 int) {
			v := make([]float32, sample.Rows*ng)
			for t := t0; t < t1; t++ {
				for i := 0; i < sample.Rows; i++ {
					copy(v[i*ng:(i+1)*ng], linalg.Row32(pr, i)[t*ng:(t+1)*ng])
				}
				slices.Sort(v)
				ranges[2*(j0+t)], ranges[2*(j0+t)+1] = quantile(v, qlo), quantile(v, qhi)
			}
		})
	}
	for j := 0; j < m.p.M; j++ {
		if math.IsNaN(ranges[2*j]) || math.IsNaN(ranges[2*j+1]) || math.IsInf(ranges[2*j], 0) || math.IsInf(ranges[2*j+1], 0) {
			return nil, fmt.Errorf("invariant: template %d's projection quantiles are %v and %v: the rows hold a NaN or infinite value", j, ranges[2*j], ranges[2*j+1])
		}
		if !(ranges[2*j+1] > ranges[2*j]) {
			return nil, fmt.Errorf("invariant: template %d's projections have no spread between quantiles %v and %v (%v, %v)", j, qlo, qhi, ranges[2*j], ranges[2*j+1])
		}
	}
	c := *m
	c.p.S, c.p.Lo, c.p.Hi, c.p.Ranges = 0, 0, 0, ranges
	c.setThresholds()
	return &c, nil
}

// distinctRows draws k distinct indices below n in the order a partial
// Fisher–Yates shuffle with r picks them.
func distinctRows(r *rand.Rand, n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + transforms.Intn(r, n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return slices.Clone(idx[:k]) // not the whole shuffle: Sources is kept in the recipe
}

// quantile interpolates linearly between the order statistics of sorted v
// (NumPy's default rule), so the probe's ranges and these agree.
func quantile(v []float32, q float64) float64 {
	h := q * float64(len(v)-1)
	i := int(h)
	if i >= len(v)-1 {
		return float64(v[len(v)-1])
	}
	return float64(v[i]) + (h-float64(i))*(float64(v[i+1])-float64(v[i]))
}

func (m *Map) InDim() int  { return m.in }
func (m *Map) OutDim() int { return m.p.M * (2*m.p.N + 1) }

// Recipe returns the recipe; data templates are inside it.
func (m *Map) Recipe() features.Recipe {
	return features.Recipe{Kind: Kind, In: m.in, Seed: m.seed, Params: features.MarshalParams(m.p)}
}

// Params returns the map's parameters.
func (m *Map) Params() Params { return m.p }

// S is the threshold range of the symmetric grid (unused when the params
// give Lo and Hi).
func (m *Map) S() float64 { return m.s }

// Thresholds returns template j's 2n+1 thresholds in increasing order.
func (m *Map) Thresholds(j int) []float64 {
	lo, step := m.lo, m.step
	if m.p.Ranges != nil {
		lo, step = m.p.Ranges[2*j], (m.p.Ranges[2*j+1]-m.p.Ranges[2*j])/float64(2*m.p.N)
	}
	t := make([]float64, 2*m.p.N+1)
	for k := range t {
		t[k] = lo + float64(k)*step
	}
	return t
}

// Group returns the group and the elements the templates were transformed by.
func (m *Map) Group() (transforms.Group, []transforms.Element) { return m.group, m.elems }

// Transformed returns the stored transformed templates, (m·|G|)×in,
// template-major.
func (m *Map) Transformed() blas32.General { return m.t }

// projBudget bounds the projections held at once (in float32 values, 16 MB),
// whatever the batch size and the number of transformed templates.
var projBudget = 4 << 20 // a variable so tests can force small tiles

// tiles chooses how Apply cuts the product of a batch of rows with the
// stored templates: equal row blocks of a multiple of 64 (at most 512), and
// templates in chunks so one block's projections fit projBudget. The GEMM
// runs well below its peak on thin or ragged row blocks (on 2 cores:
// 19 GFLOP/s for 1024 rows at once, 18.5 for 512, 15 for 419, 13.5 for 256,
// 10.7 for 128), so a large template set is cut along the templates instead
// of shrinking the row blocks. The CDF counts cost ~1% of the projection
// (BenchmarkPoolMNIST: ~2 ns a projection against ~200 core-ns of GEMM), so
// the tile shape decides the extraction speed.
func (m *Map) tiles(rows int) (rowBlock, tmplChunk int) {
	ng := len(m.elems)
	blocks := (rows + 511) / 512
	per := (rows + blocks - 1) / blocks
	rowBlock = min(rows, (per+63)/64*64)
	tmplChunk = min(m.p.M, max(1, projBudget/(rowBlock*ng)))
	return rowBlock, tmplChunk
}

// Apply computes the features of every row of x.
func (m *Map) Apply(dst, x blas32.General) {
	features.CheckShapes(m, dst, x)
	if x.Rows == 0 {
		return
	}
	ng := len(m.elems)
	nb := 2*m.p.N + 1
	block, chunk := m.tiles(x.Rows)
	buf := make([]float32, block*chunk*ng)
	for b0 := 0; b0 < x.Rows; b0 += block {
		b1 := min(b0+block, x.Rows)
		xb := linalg.Rows32(x, b0, b1)
		for j0 := 0; j0 < m.p.M; j0 += chunk {
			j1 := min(j0+chunk, m.p.M)
			cols := (j1 - j0) * ng
			pr := blas32.General{Rows: b1 - b0, Cols: cols, Stride: cols, Data: buf[:(b1-b0)*cols]}
			linalg.MulABt32(pr, xb, linalg.Rows32(m.t, j0*ng, j1*ng))
			d := linalg.Rows32(dst, b0, b1)
			d = blas32.General{Rows: d.Rows, Cols: (j1 - j0) * nb, Stride: d.Stride, Data: d.Data[j0*nb:]}
			m.pool(d, pr, j0)
		}
	}
}

// CountUnit reports that every feature Apply writes is an integer count
// between 0 and maxCount (= |G|) times unit, computed as float32(count)·unit:
// the paper's weight √(s/(n·m)) on the threshold grid, divided by |G|. A
// caller can recover the counts exactly and do integer arithmetic on them,
// as the exact-count Gram of classifier.FitOptions.ExactCounts does.
func (m *Map) CountUnit() (unit float32, maxCount int) {
	return float32(math.Sqrt(m.step/float64(m.p.M)) / float64(len(m.elems))), len(m.elems)
}

// pool turns projections onto consecutive templates, from template j0 on,
// into their CDF features, splitting rows among the CPUs.
func (m *Map) pool(dst, proj blas32.General, j0 int) {
	linalg.ParallelRows(dst.Rows, 8, func(r0, r1 int) { m.poolRows(dst, proj, j0, r0, r1) })
}

// poolRows counts, for rows [r0, r1) and every template whose projections
// proj holds (|G| consecutive columns each, the first template being j0),
// how many of its |G| projections v satisfy v ≤ lo + k·step for each k. A
// projection's first threshold is k = ⌈(v−lo)/step⌉, so one histogram over
// those indices and a running sum give all 2n+1 counts in O(|G| + n). The
// weight √(step/m) is the paper's √(s/(n·m)) on the symmetric grid
// (step = s/n).
func (m *Map) poolRows(dst, proj blas32.General, j0, r0, r1 int) {
	n := m.p.N
	ng := len(m.elems)
	nb := 2*n + 1
	hist := make([]int32, nb+1)
	top := float32(2 * n)
	w, _ := m.CountUnit()
	for r := r0; r < r1; r++ {
		prow := linalg.Row32(proj, r)
		drow := linalg.Row32(dst, r)
		for j := 0; j < proj.Cols/ng; j++ {
			clear(hist)
			scale, offset := m.scale[j0+j], m.offset[j0+j]
			for _, v := range prow[j*ng : (j+1)*ng] {
				u := v*scale + offset // threshold index + n, as a real number
				var c int
				switch {
				case u != u: // NaN input: counted nowhere
					c = nb
				case u <= 0:
					c = 0
				case u > top:
					c = nb // above every threshold: never counted
				default:
					c = int(u)
					if float32(c) < u {
						c++
					}
				}
				hist[c]++
			}
			out := drow[j*nb : (j+1)*nb]
			var run int32
			for k := range out {
				run += hist[k]
				out[k] = float32(run) * w
			}
		}
	}
}
