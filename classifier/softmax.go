package classifier

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/optimize"

	"github.com/rfstream/rfstream/internal/linalg"
)

// Softmax is a trained multinomial logistic regression: posteriors are
// softmax(z·W + B) row by row.
type Softmax struct {
	Dim, Classes int
	Lambda       float64
	W            blas32.General // Dim × Classes
	B            []float32      // Classes
	// packed, when set (PackWeights), is W laid out for repeated products.
	packed *linalg.Packed
}

// PackWeights lays W out once for the products of a recogniser that scores
// frames for as long as it runs (linalg.Packed); W must not change after.
func (s *Softmax) PackWeights() { s.packed = linalg.PackB(s.W) }

// Logits writes z·W + B (n×Classes) into dst.
func (s *Softmax) Logits(dst, z blas32.General) {
	if z.Cols != s.Dim || dst.Rows != z.Rows || dst.Cols != s.Classes {
		panic(fmt.Sprintf("classifier: logits of %dx%d into %dx%d for a %d→%d softmax", z.Rows, z.Cols, dst.Rows, dst.Cols, s.Dim, s.Classes))
	}
	if z.Rows == 0 {
		return
	}
	if s.packed != nil {
		s.packed.Mul(dst, z)
		for i := 0; i < dst.Rows; i++ {
			for j, b := range s.B {
				dst.Data[i*dst.Stride+j] += b
			}
		}
		return
	}
	for i := 0; i < dst.Rows; i++ {
		copy(dst.Data[i*dst.Stride:i*dst.Stride+dst.Cols], s.B)
	}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, z, s.W, 1, dst)
}

// Posteriors writes the class posteriors of every row of z into dst; each
// row of dst sums to 1.
func (s *Softmax) Posteriors(dst, z blas32.General) {
	s.Logits(dst, z)
	SoftmaxRows(dst, 1)
}

// LogPosteriors writes the log class posteriors of every row of z into dst.
func (s *Softmax) LogPosteriors(dst, z blas32.General) {
	s.Logits(dst, z)
	LogSoftmaxRows(dst, 1)
}

// Predict returns the arg-max class of every row of z.
func (s *Softmax) Predict(z blas32.General) []int {
	l := linalg.NewGeneral32(z.Rows, s.Classes)
	s.Logits(l, z)
	return Argmax(l)
}

// SoftmaxRows replaces every row x of a by softmax(x/temp), in place.
func SoftmaxRows(a blas32.General, temp float64) {
	LogSoftmaxRows(a, temp)
	for i := 0; i < a.Rows; i++ {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		for j, v := range row {
			row[j] = float32(math.Exp(float64(v)))
		}
	}
}

// LogSoftmaxRows replaces every row x of a by log softmax(x/temp), in
// place, subtracting the row maximum first so no exponential overflows.
func LogSoftmaxRows(a blas32.General, temp float64) {
	inv := 1 / temp
	for i := 0; i < a.Rows; i++ {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		lse := logSumExp(row, inv)
		for j, v := range row {
			row[j] = float32(float64(v)*inv - lse)
		}
	}
}

// logSumExp is log Σ exp(scale·x) over row, computed stably.
func logSumExp(row []float32, scale float64) float64 {
	mx := math.Inf(-1)
	for _, v := range row {
		mx = max(mx, float64(v)*scale)
	}
	var s float64
	for _, v := range row {
		s += math.Exp(float64(v)*scale - mx)
	}
	return mx + math.Log(s)
}

// SoftmaxOptions control FitSoftmax.
type SoftmaxOptions struct {
	// Lambda weighs the L2 penalty (λ/2)·‖W‖² against the mean
	// cross-entropy; W is measured in standardised feature units, so one λ
	// suits features of any scale. The bias is not penalised.
	Lambda float64
	// Optimizer is "lbfgs" (full batch, gonum/optimize; the default) or
	// "adam" (mini-batch).
	Optimizer string
	// MaxIter bounds L-BFGS iterations (default 200) or Adam epochs
	// (default 20).
	MaxIter int
	// Batch is Adam's mini-batch size (default 256); Block is how many rows
	// a full-batch evaluation pushes through one GEMM (default 4096).
	Batch, Block int
	// LearningRate is Adam's step size (default 0.003, halved each epoch
	// whose loss did not fall).
	LearningRate float64
	// GradTol stops L-BFGS once the gradient's largest entry is below it
	// (default 1e-5).
	GradTol float64
	// Seed orders Adam's mini-batches.
	Seed uint64
	// Progress, when set, is called after each iteration (L-BFGS) or epoch
	// (Adam) with the objective at that point.
	Progress func(iter int, loss float64)
}

// SoftmaxReport says how a fit went.
type SoftmaxReport struct {
	Optimizer   string
	Iterations  int
	Evaluations int // full-batch objective evaluations (L-BFGS) or mini-batch steps (Adam)
	Loss        float64
	Seconds     float64
}

// FitSoftmax trains a multinomial logistic regression on the rows of z.
//
// Features are standardised inside the objective (column mean μ and
// standard deviation σ, folded into W and B afterwards) instead of in a
// copy of z: the optimiser sees a well-conditioned problem and the caller's
// matrix is neither copied nor changed.
func FitSoftmax(z blas32.General, labels []int, classes int, opt SoftmaxOptions) (*Softmax, SoftmaxReport, error) {
	obj, err := newSoftmaxObjective(z, labels, classes, opt.Lambda, opt.Block)
	if err != nil {
		return nil, SoftmaxReport{}, err
	}
	start := time.Now()
	var rep SoftmaxReport
	var params []float64
	switch opt.Optimizer {
	case "", "lbfgs":
		params, rep, err = obj.lbfgs(opt)
	case "adam":
		params, rep, err = obj.adam(opt)
	default:
		return nil, rep, fmt.Errorf("classifier: unknown softmax optimizer %q (lbfgs, adam)", opt.Optimizer)
	}
	if err != nil {
		return nil, rep, err
	}
	rep.Seconds = time.Since(start).Seconds()
	w, b := obj.effective(params)
	return &Softmax{Dim: z.Cols, Classes: classes, Lambda: opt.Lambda, W: w, B: b}, rep, nil
}

// softmaxObjective is the mean cross-entropy plus (λ/2)‖W‖² as a function
// of the standardised-feature parameters: W (dim×classes, row-major) then B.
type softmaxObjective struct {
	z              blas32.General
	labels         []int
	dim, classes   int
	lambda         float64
	block          int
	mu, invSigma   []float64
	logits, resid  blas32.General // block × classes scratch
	gradW          blas32.General // dim × classes scratch
	wEff           blas32.General
	cacheX, cacheG []float64
	cacheF         float64
	evals          int
}

func newSoftmaxObjective(z blas32.General, labels []int, classes int, lambda float64, block int) (*softmaxObjective, error) {
	if z.Rows != len(labels) {
		return nil, fmt.Errorf("classifier: %d rows but %d labels", z.Rows, len(labels))
	}
	if z.Rows == 0 || z.Cols == 0 {
		return nil, errors.New("classifier: no training rows")
	}
	if classes < 2 {
		return nil, fmt.Errorf("classifier: softmax needs ≥ 2 classes, have %d", classes)
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("classifier: λ = %v", lambda)
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("classifier: label %d of row %d outside 0..%d", l, i, classes-1)
		}
	}
	if block <= 0 {
		block = 4096
	}
	block = min(block, z.Rows)
	o := &softmaxObjective{z: z, labels: labels, dim: z.Cols, classes: classes, lambda: lambda, block: block,
		mu: make([]float64, z.Cols), invSigma: make([]float64, z.Cols)}
	sq := make([]float64, z.Cols)
	for i := 0; i < z.Rows; i++ {
		for j, v := range linalg.Row32(z, i) {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%w (row %d, feature %d = %v)", ErrNonFinite, i, j, v)
			}
			o.mu[j] += f
			sq[j] += f * f
		}
	}
	n := float64(z.Rows)
	for j := range o.mu {
		o.mu[j] /= n
		v := sq[j]/n - o.mu[j]*o.mu[j]
		// A constant feature carries nothing: leave it unscaled.
		if v > 1e-12 {
			o.invSigma[j] = 1 / math.Sqrt(v)
		} else {
			o.invSigma[j] = 1
		}
	}
	o.logits = linalg.NewGeneral32(block, classes)
	o.resid = linalg.NewGeneral32(block, classes)
	o.gradW = linalg.NewGeneral32(z.Cols, classes)
	o.wEff = linalg.NewGeneral32(z.Cols, classes)
	return o, nil
}

func (o *softmaxObjective) nParams() int { return (o.dim + 1) * o.classes }

// effective folds the standardisation into raw-feature weights:
// ((z−μ)/σ)·W + B = z·(W/σ) + (B − Σ_d μ_d W_d/σ_d).
func (o *softmaxObjective) effective(p []float64) (blas32.General, []float32) {
	w := linalg.NewGeneral32(o.dim, o.classes)
	b := make([]float64, o.classes)
	copy(b, p[o.dim*o.classes:])
	for d := 0; d < o.dim; d++ {
		for c := 0; c < o.classes; c++ {
			v := p[d*o.classes+c] * o.invSigma[d]
			w.Data[d*o.classes+c] = float32(v)
			b[c] -= o.mu[d] * v
		}
	}
	b32 := make([]float32, o.classes)
	for c, v := range b {
		b32[c] = float32(v)
	}
	return w, b32
}

// rowsLoss computes the summed cross-entropy of rows [r0, r1) under the
// effective weights and, when want is set, leaves P − Y in o.resid.
func (o *softmaxObjective) rowsLoss(w blas32.General, b []float32, rows blas32.General, labels []int, want bool) float64 {
	n := rows.Rows
	lg := linalg.Rows32(o.logits, 0, n)
	for i := 0; i < n; i++ {
		copy(linalg.Row32(lg, i), b)
	}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, rows, w, 1, lg)
	var loss float64
	for i := 0; i < n; i++ {
		row := linalg.Row32(lg, i)
		lse := logSumExp(row, 1)
		loss += lse - float64(row[labels[i]])
		if want {
			r := linalg.Row32(o.resid, i)
			for c, v := range row {
				r[c] = float32(math.Exp(float64(v) - lse))
			}
			r[labels[i]]--
		}
	}
	return loss
}

// eval returns the objective at p and writes its gradient into grad (when
// grad is not nil).
func (o *softmaxObjective) eval(p, grad []float64) float64 {
	o.evals++
	w, b := o.effective(p)
	nc := o.dim * o.classes
	if grad != nil {
		clear(grad)
	}
	gb := make([]float64, o.classes)
	var loss float64
	for r0 := 0; r0 < o.z.Rows; r0 += o.block {
		r1 := min(r0+o.block, o.z.Rows)
		rows := linalg.Rows32(o.z, r0, r1)
		loss += o.rowsLoss(w, b, rows, o.labels[r0:r1], grad != nil)
		if grad == nil {
			continue
		}
		res := linalg.Rows32(o.resid, 0, r1-r0)
		blas32.Gemm(blas.Trans, blas.NoTrans, 1, rows, res, 0, o.gradW)
		for i, v := range o.gradW.Data {
			grad[i] += float64(v)
		}
		for i := 0; i < res.Rows; i++ {
			for c, v := range linalg.Row32(res, i) {
				gb[c] += float64(v)
			}
		}
	}
	n := float64(o.z.Rows)
	loss /= n
	var reg float64
	for _, v := range p[:nc] {
		reg += v * v
	}
	loss += 0.5 * o.lambda * reg
	if grad != nil {
		// Chain rule through the standardisation: ∂/∂W_dc = (Σ z_d r_c − μ_d Σ r_c)/σ_d.
		for d := 0; d < o.dim; d++ {
			for c := 0; c < o.classes; c++ {
				i := d*o.classes + c
				grad[i] = (grad[i]-o.mu[d]*gb[c])*o.invSigma[d]/n + o.lambda*p[i]
			}
		}
		for c := range gb {
			grad[nc+c] = gb[c] / n
		}
	}
	return loss
}

func (o *softmaxObjective) lbfgs(opt SoftmaxOptions) ([]float64, SoftmaxReport, error) {
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = 200
	}
	tol := opt.GradTol
	if tol <= 0 {
		tol = 1e-5
	}
	// gonum asks for the value and the gradient at the same point in two
	// calls; one pass over the data gives both, so the second is served
	// from a cache.
	o.cacheG = make([]float64, o.nParams())
	evalBoth := func(x []float64) {
		if o.cacheX != nil && slices.Equal(o.cacheX, x) {
			return
		}
		o.cacheF = o.eval(x, o.cacheG)
		o.cacheX = append(o.cacheX[:0], x...)
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { evalBoth(x); return o.cacheF },
		Grad: func(g, x []float64) { evalBoth(x); copy(g, o.cacheG) },
	}
	iter := 0
	settings := &optimize.Settings{
		MajorIterations:   maxIter,
		GradientThreshold: tol,
		Converger:         &optimize.FunctionConverge{Relative: 1e-9, Iterations: 20},
	}
	if opt.Progress != nil {
		settings.Recorder = recorderFunc(func(l *optimize.Location, op optimize.Operation) {
			if op == optimize.MajorIteration {
				iter++
				opt.Progress(iter, l.F)
			}
		})
	}
	res, err := optimize.Minimize(prob, make([]float64, o.nParams()), settings, &optimize.LBFGS{Store: 20})
	if err != nil && res == nil {
		return nil, SoftmaxReport{}, fmt.Errorf("classifier: softmax L-BFGS: %w", err)
	}
	// Hitting the iteration limit is a normal stop for a training budget.
	return res.X, SoftmaxReport{Optimizer: "lbfgs", Iterations: res.Stats.MajorIterations, Evaluations: o.evals, Loss: res.F}, nil
}

type recorderFunc func(*optimize.Location, optimize.Operation)

func (r recorderFunc) Init() error { return nil }
func (r recorderFunc) Record(l *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	r(l, op)
	return nil
}

// adam runs mini-batch Adam over shuffled rows, one full pass per epoch;
// the step halves after an epoch that did not lower the full objective.
func (o *softmaxObjective) adam(opt SoftmaxOptions) ([]float64, SoftmaxReport, error) {
	epochs := opt.MaxIter
	if epochs <= 0 {
		epochs = 20
	}
	bs := opt.Batch
	if bs <= 0 {
		bs = 256
	}
	bs = min(bs, o.z.Rows)
	if bs > o.logits.Rows {
		o.logits = linalg.NewGeneral32(bs, o.classes)
		o.resid = linalg.NewGeneral32(bs, o.classes)
	}
	lr := opt.LearningRate
	if lr <= 0 {
		lr = 0.003
	}
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	np := o.nParams()
	nc := o.dim * o.classes
	p := make([]float64, np)
	m1, m2 := make([]float64, np), make([]float64, np)
	g := make([]float64, np)
	xb := linalg.NewGeneral32(bs, o.dim)
	lb := make([]int, bs)
	gb := make([]float64, o.classes)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6164616d))
	order := make([]int, o.z.Rows)
	for i := range order {
		order[i] = i
	}
	steps := 0
	prev := o.eval(p, nil)
	best := slices.Clone(p)
	for epoch := 1; epoch <= epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for b0 := 0; b0+bs <= len(order); b0 += bs {
			// Gather the standardised batch, so the gradient is a plain
			// GEMM on parameters in the optimiser's own units.
			for i, r := range order[b0 : b0+bs] {
				dst := linalg.Row32(xb, i)
				for d, v := range linalg.Row32(o.z, r) {
					dst[d] = float32((float64(v) - o.mu[d]) * o.invSigma[d])
				}
				lb[i] = o.labels[r]
			}
			w := o.wEff
			for i := 0; i < nc; i++ {
				w.Data[i] = float32(p[i])
			}
			b := make([]float32, o.classes)
			for c := range b {
				b[c] = float32(p[nc+c])
			}
			o.rowsLoss(w, b, xb, lb, true)
			res := linalg.Rows32(o.resid, 0, bs)
			blas32.Gemm(blas.Trans, blas.NoTrans, 1, xb, res, 0, o.gradW)
			clear(gb)
			for i := 0; i < bs; i++ {
				for c, v := range linalg.Row32(res, i) {
					gb[c] += float64(v)
				}
			}
			for i := 0; i < nc; i++ {
				g[i] = float64(o.gradW.Data[i])/float64(bs) + o.lambda*p[i]
			}
			for c := range gb {
				g[nc+c] = gb[c] / float64(bs)
			}
			steps++
			c1 := 1 - math.Pow(beta1, float64(steps))
			c2 := 1 - math.Pow(beta2, float64(steps))
			for i := range p {
				m1[i] = beta1*m1[i] + (1-beta1)*g[i]
				m2[i] = beta2*m2[i] + (1-beta2)*g[i]*g[i]
				p[i] -= lr * (m1[i] / c1) / (math.Sqrt(m2[i]/c2) + eps)
			}
		}
		loss := o.eval(p, nil)
		if opt.Progress != nil {
			opt.Progress(epoch, loss)
		}
		if loss < prev {
			prev = loss
			copy(best, p)
		} else {
			lr /= 2
		}
	}
	return best, SoftmaxReport{Optimizer: "adam", Iterations: epochs, Evaluations: steps, Loss: prev}, nil
}
