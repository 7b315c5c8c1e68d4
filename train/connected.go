package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/parallel"
)

// Utterance is one training recording at the model's sample rate and
// the words spoken in it.
type Utterance struct {
	Samples []float32
	Words   []string
	// Spans, when given, are the words' times in seconds (one per word):
	// a string built from isolated recordings knows where each word lies,
	// and the bootstrap then splits each word's own speech region.
	Spans [][2]float64
	// ExactSpans says the spans are the units' own boundaries (phone
	// times from a labelled corpus): each span is split uniformly over its
	// unit's states with no speech detection inside it, and the frames
	// outside every span are silence.
	ExactSpans bool
	// Labels, when given, are the first labels frame by frame (one class
	// per frame, the trained model's class layout), e.g. another model's
	// forced alignment of Words; they take the place of Spans and of the
	// flat start.
	Labels []int
	// HeldOut keeps the utterance out of the classifier's training (it
	// serves λ, the temperature and the held-out frame accuracy). When no
	// utterance is marked, a seeded fraction opt.HeldOut is held out.
	HeldOut bool
}

// ConnectedOptions control Connected.
type ConnectedOptions struct {
	// Task is the trained model's task: TaskConnected (the default) or
	// engine.TaskPhones.
	Task    string
	Input   engine.ConnectedInput
	Decoder engine.ConnectedDecoder
	// Map is the feature map's recipe; its input dimension is set from
	// the frontend.
	Map features.Recipe
	// Words is the vocabulary, in class order.
	Words []string
	// Passes is the number of re-alignments after the uniform bootstrap
	// (the classifier is trained Passes+1 times).
	Passes int
	// HeldOut is the fraction of utterances kept out of training to choose
	// λ (RLS), fit the temperature (RLS) and measure frame accuracy.
	HeldOut float64
	// SoftmaxFrames caps the training frames the softmax sees (a seeded
	// uniform subsample; the RLS sees every frame through its Gram).
	SoftmaxFrames int
	// Softmax are the softmax's options; a zero Lambda means 1e-4 (an
	// unregularised softmax on separable frames grows without bound and
	// its posteriors become all-or-nothing, which breaks alignment).
	Softmax classifier.SoftmaxOptions
	// RLSLambda fixes λ; 0 chooses it on held-out frames.
	RLSLambda float64
	// SpeechMarginDB sets the energy speech detector of the bootstrap.
	SpeechMarginDB float64
	Seed           uint64
	Log            io.Writer
}

// PassReport is one round of align-and-retrain.
type PassReport struct {
	Pass int `json:"pass"`
	// Labels says where the round's frame labels came from: "uniform" or
	// "aligned".
	Labels string `json:"labels"`
	// Frame accuracies: the classifier's arg-max state against the round's
	// labels, on training and on held-out utterances.
	TrainFrameAcc   float64 `json:"train_frame_acc"`
	HeldOutFrameAcc float64 `json:"held_out_frame_acc"`
	// Changed is the fraction of frames whose label the next alignment
	// changed (0 in the last round).
	Changed float64 `json:"changed"`
	Loss    float64 `json:"loss,omitempty"`
	Lambda  float64 `json:"lambda,omitempty"`
	Temp    float64 `json:"temperature,omitempty"`
	Seconds float64 `json:"seconds"`
}

// ConnectedReport says how training went.
type ConnectedReport struct {
	Utterances, HeldOut        int
	TrainFrames, HeldOutFrames int
	Passes                     []PassReport
	// Tuning lists the decoder settings tried on development strings,
	// when the caller tuned (TuneConnected).
	Tuning  []TuneTrial `json:",omitempty"`
	Seconds float64
}

// utt is one utterance's frames (static + deltas, not spliced: splicing
// happens per block, so memory holds 1/(2k+1) of the spliced frames).
type utt struct {
	frames blas32.General
	seq    []decode.Unit
	labels []int
	held   bool
}

// Connected trains a connected-word model by alignment: frame labels
// start from a uniform split of each utterance's speech region over its
// words' states (the rest silence), the classifier is trained, the
// utterances are force-aligned with it, and the classifier retrained, for
// opt.Passes rounds.
func Connected(utts []Utterance, opt ConnectedOptions) (*engine.Model, ConnectedReport, error) {
	start := time.Now()
	var rep ConnectedReport
	in := opt.Input
	if in.StatesPerWord < 1 || in.SilenceStates < 1 || len(opt.Words) == 0 {
		return nil, rep, fmt.Errorf("rfstream: connected training with %d words, %d states a word, %d silence states", len(opt.Words), in.StatesPerWord, in.SilenceStates)
	}
	if err := in.Audio.Validate(); err != nil {
		return nil, rep, err
	}
	if opt.HeldOut <= 0 {
		opt.HeldOut = 0.1
	}
	switch opt.Task {
	case "":
		opt.Task = engine.TaskConnected
	case engine.TaskConnected, engine.TaskPhones:
	default:
		return nil, rep, fmt.Errorf("rfstream: connected training of a %q model (%s, %s)", opt.Task, engine.TaskConnected, engine.TaskPhones)
	}
	if opt.SpeechMarginDB <= 0 {
		opt.SpeechMarginDB = 35
	}
	if opt.Softmax.Lambda == 0 {
		opt.Softmax.Lambda = 1e-4
	}
	if opt.SoftmaxFrames <= 0 {
		opt.SoftmaxFrames = 60000
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	classes := in.Classes(len(opt.Words))
	words, sil, err := in.Units(opt.Words, opt.Decoder.SelfLoop)
	if err != nil {
		return nil, rep, err
	}
	wordIndex := map[string]int{}
	for i, w := range opt.Words {
		wordIndex[w] = i
	}
	opt.Map.In = in.Audio.Dim()
	fm, err := features.Build(opt.Map)
	if err != nil {
		return nil, rep, err
	}

	// Frames and bootstrap labels.
	us, err := prepareUtterances(utts, in.Audio, opt.SpeechMarginDB, words, sil, wordIndex, classes)
	if err != nil {
		return nil, rep, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x636f6e74))
	marked := false
	for i, u := range utts {
		us[i].held = u.HeldOut
		marked = marked || u.HeldOut
	}
	if !marked {
		for _, i := range rng.Perm(len(us))[:int(math.Round(opt.HeldOut*float64(len(us))))] {
			us[i].held = true
		}
	}
	for _, u := range us {
		if u.held {
			rep.HeldOut++
			rep.HeldOutFrames += u.frames.Rows
		} else {
			rep.Utterances++
			rep.TrainFrames += u.frames.Rows
		}
	}
	if rep.Utterances == 0 || rep.HeldOut == 0 {
		return nil, rep, fmt.Errorf("rfstream: %d utterances are too few to hold %.0f%% out", len(us), 100*opt.HeldOut)
	}
	fmt.Fprintf(logw, "%s: %d training utterances (%d frames), %d held out (%d frames), %d classes, %s map %d→%d\n",
		opt.Task, rep.Utterances, rep.TrainFrames, rep.HeldOut, rep.HeldOutFrames, classes, opt.Map.Kind, fm.InDim(), fm.OutDim())

	tr := &connTrainer{opt: opt, in: in, fm: fm, classes: classes, us: us, words: words, sil: sil}
	if err := tr.firstPass(rng); err != nil {
		return nil, rep, err
	}
	var model *engine.Model
	for pass := 0; pass <= opt.Passes; pass++ {
		t0 := time.Now()
		pr := PassReport{Pass: pass, Labels: "uniform"}
		if pass > 0 {
			pr.Labels = "aligned"
		}
		if model, err = tr.fit(&pr); err != nil {
			return nil, rep, err
		}
		if err := tr.scoreAndAlign(model, pass < opt.Passes, &pr); err != nil {
			return nil, rep, err
		}
		pr.Seconds = time.Since(t0).Seconds()
		rep.Passes = append(rep.Passes, pr)
		fmt.Fprintf(logw, "%s: pass %d (%s labels): frame accuracy %.2f%% train, %.2f%% held out; %.1f%% of labels changed by re-alignment; %.1f s\n",
			opt.Task, pass, pr.Labels, 100*pr.TrainFrameAcc, 100*pr.HeldOutFrameAcc, 100*pr.Changed, pr.Seconds)
	}
	// The priors come from the labels the final classifier was trained on.
	lp, err := decode.LogPriors(tr.trainLabels(), classes)
	if err != nil {
		return nil, rep, err
	}
	prior := linalg.NewGeneral32(1, classes)
	for i, v := range lp {
		prior.Data[i] = float32(v)
	}
	model.Blobs[engine.BlobLogPrior] = prior
	rep.Seconds = time.Since(start).Seconds()
	model.Meta = map[string]any{"train_utterances": rep.Utterances, "train_frames": rep.TrainFrames, "passes": rep.Passes}
	return model, rep, nil
}

// prepareUtterances extracts every utterance's frames (on all cores) and
// its bootstrap labels.
func prepareUtterances(utts []Utterance, ac frontend.AudioConfig, marginDB float64, words []decode.Unit, sil decode.Unit, wordIndex map[string]int, classes int) ([]*utt, error) {
	base := ac
	base.Splice = 0
	out := make([]*utt, len(utts))
	err := parallel.ForErr(len(utts), func(i int) (err error) {
		out[i], err = prepareUtterance(utts[i], base, marginDB, words, sil, wordIndex, classes)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func prepareUtterance(u Utterance, base frontend.AudioConfig, marginDB float64, words []decode.Unit, sil decode.Unit, wordIndex map[string]int, classes int) (*utt, error) {
	e, err := frontend.NewExtractor(base)
	if err != nil {
		return nil, err
	}
	e.Push(u.Samples)
	e.Flush()
	x := e.Pop()
	energy := e.PopEnergy()
	r := &utt{frames: x}
	for _, w := range u.Words {
		i, ok := wordIndex[w]
		if !ok {
			return nil, fmt.Errorf("rfstream: word %q is not in the vocabulary", w)
		}
		r.seq = append(r.seq, words[i])
	}
	if u.Labels != nil {
		r.labels, err = givenLabels(u.Labels, x.Rows, classes)
		return r, err
	}
	if u.Spans != nil && u.ExactSpans {
		r.labels, err = exactSpanLabels(x.Rows, u.Spans, r.seq, sil, base.HopMs/1000)
		return r, err
	}
	if u.Spans != nil {
		r.labels, err = bootstrapSpans(x.Rows, energy, u.Spans, r.seq, sil, base.HopMs/1000, marginDB)
		return r, err
	}
	a, b := speechRegionFor(energy, r.seq, marginDB)
	if b-a <= 0 {
		return nil, fmt.Errorf("rfstream: utterance of %d frames is shorter than its states", x.Rows)
	}
	r.labels, err = decode.BootstrapLabels(x.Rows, a, b, r.seq, sil)
	return r, err
}

// givenLabels checks an utterance's own first labels: one class of the
// model per frame.
func givenLabels(labels []int, frames, classes int) ([]int, error) {
	if len(labels) != frames {
		return nil, fmt.Errorf("rfstream: %d first labels for an utterance of %d frames", len(labels), frames)
	}
	for f, c := range labels {
		if c < 0 || c >= classes {
			return nil, fmt.Errorf("rfstream: first label %d of frame %d is not one of the %d classes", c, f, classes)
		}
	}
	return slices.Clone(labels), nil
}

// speechRegionFor finds the speech region by energy, widened to the middle
// frames when it is shorter than the states of seq (a clipped or very fast
// word); it returns an empty region when even all frames are too few.
func speechRegionFor(energy []float64, seq []decode.Unit, marginDB float64) (int, int) {
	n := len(energy)
	a, b := frontend.SpeechRegion(energy, marginDB)
	need := 0
	for _, w := range seq {
		need += w.States()
	}
	if b-a < need {
		if n < need {
			return 0, 0
		}
		mid := (a + b) / 2
		a = max(0, min(mid-need/2, n-need))
		b = a + need
	}
	return a, b
}

// bootstrapSpans labels a string whose word times are known: each word's
// span is bootstrapped on its own (its speech region split over its states,
// the span's quiet edges silence) and the frames between spans are silence.
func bootstrapSpans(n int, energy []float64, spans [][2]float64, seq []decode.Unit, sil decode.Unit, hop, marginDB float64) ([]int, error) {
	if len(spans) != len(seq) {
		return nil, fmt.Errorf("rfstream: %d word spans for %d words", len(spans), len(seq))
	}
	labels := make([]int, 0, n)
	silence := func(m int) {
		k := min(m, len(sil.Classes))
		if k == 0 {
			return
		}
		l, _ := decode.UniformSplit(m, sil.Classes[:k])
		labels = append(labels, l...)
	}
	for i, sp := range spans {
		f0 := max(int(math.Round(sp[0]/hop)), len(labels))
		f1 := min(int(math.Round(sp[1]/hop)), n)
		if f1 <= f0 {
			return nil, fmt.Errorf("rfstream: word span %.3f–%.3f s outside an utterance of %d frames", sp[0], sp[1], n)
		}
		silence(f0 - len(labels))
		a, b := speechRegionFor(energy[f0:f1], seq[i:i+1], marginDB)
		if b <= a {
			return nil, fmt.Errorf("rfstream: word span of %d frames is shorter than its states", f1-f0)
		}
		l, err := decode.BootstrapLabels(f1-f0, a, b, seq[i:i+1], sil)
		if err != nil {
			return nil, err
		}
		labels = append(labels, l...)
	}
	silence(n - len(labels))
	return labels, nil
}

// exactSpanLabels labels frames from known unit boundaries: frame t (its
// centre at t·hop) belongs to the span holding that time; a span's frames
// are split uniformly over its unit's states (a span shorter than its unit
// gets the first states only); frames outside every span are silence.
func exactSpanLabels(n int, spans [][2]float64, seq []decode.Unit, sil decode.Unit, hop float64) ([]int, error) {
	if len(spans) != len(seq) {
		return nil, fmt.Errorf("rfstream: %d unit spans for %d units", len(spans), len(seq))
	}
	labels := make([]int, 0, n)
	silence := func(m int) {
		if m <= 0 {
			return
		}
		k := min(m, len(sil.Classes))
		l, _ := decode.UniformSplit(m, sil.Classes[:k])
		labels = append(labels, l...)
	}
	for i, sp := range spans {
		if !(sp[0] >= 0 && sp[1] > sp[0]) {
			return nil, fmt.Errorf("rfstream: unit span %d is %.3f–%.3f s", i, sp[0], sp[1])
		}
		f0 := min(max(int(math.Round(sp[0]/hop)), len(labels)), n)
		f1 := min(int(math.Round(sp[1]/hop)), n)
		silence(f0 - len(labels))
		if f1 <= f0 {
			continue // a span shorter than half a frame, or past the end
		}
		cl := seq[i].Classes
		l, err := decode.UniformSplit(f1-f0, cl[:min(len(cl), f1-f0)])
		if err != nil {
			return nil, err
		}
		labels = append(labels, l...)
	}
	silence(n - len(labels))
	return labels, nil
}

// connTrainer holds the state of align-and-retrain.
type connTrainer struct {
	opt     ConnectedOptions
	in      engine.ConnectedInput
	fm      features.Map
	classes int
	us      []*utt
	words   []decode.Unit
	sil     decode.Unit
	acc     *classifier.RLSAccumulator // RLS: Gram of the training frames, ZᵀY of the current labels
	subZ    blas32.General             // softmax: the subsample's features
	subRef  [][2]int                   // (utterance, frame) of each subsample row
	heldZ   blas32.General             // RLS: held-out features for λ and temperature
	heldRef [][2]int
}

func (t *connTrainer) trainLabels() []int {
	var l []int
	for _, u := range t.us {
		if !u.held {
			l = append(l, u.labels...)
		}
	}
	return l
}

// blockFrames is how many frames one map call sees in training.
const blockFrames = 2048

// forBlocks splices and maps the utterances in batches of about
// blockFrames frames and hands each utterance's features to fn, in order.
func (t *connTrainer) forBlocks(fn func(ui int, z blas32.General) error) error {
	k := t.in.Audio.Splice
	x := linalg.NewGeneral32(blockFrames, t.fm.InDim())
	z := linalg.NewGeneral32(blockFrames, t.fm.OutDim())
	for u0 := 0; u0 < len(t.us); {
		u1, rows := u0, 0
		for u1 < len(t.us) && (u1 == u0 || rows+t.us[u1].frames.Rows <= blockFrames) {
			rows += t.us[u1].frames.Rows
			u1++
		}
		if rows > x.Rows {
			x = linalg.NewGeneral32(rows, t.fm.InDim())
			z = linalg.NewGeneral32(rows, t.fm.OutDim())
		}
		at := 0
		for i := u0; i < u1; i++ {
			n := t.us[i].frames.Rows
			frontend.Splice(linalg.Rows32(x, at, at+n), t.us[i].frames, 0, n, k)
			at += n
		}
		zb := linalg.Rows32(z, 0, rows)
		t.fm.Apply(zb, linalg.Rows32(x, 0, rows))
		at = 0
		for i := u0; i < u1; i++ {
			n := t.us[i].frames.Rows
			if err := fn(i, linalg.Rows32(zb, at, at+n)); err != nil {
				return err
			}
			at += n
		}
		u0 = u1
	}
	return nil
}

// firstPass maps every frame once to gather what every later round reuses:
// the RLS Gram (it does not depend on the labels) or the softmax's
// subsample, and the held-out features.
func (t *connTrainer) firstPass(rng *rand.Rand) error {
	// Seeded subsamples: pick frames by utterance and index.
	pick := func(held bool, limit int) map[[2]int]bool {
		var all [][2]int
		for i, u := range t.us {
			if u.held == held {
				for f := 0; f < u.frames.Rows; f++ {
					all = append(all, [2]int{i, f})
				}
			}
		}
		rng.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		m := map[[2]int]bool{}
		for _, r := range all[:min(limit, len(all))] {
			m[r] = true
		}
		return m
	}
	dim := t.fm.OutDim()
	rls := t.in.Classifier == "rls"
	var sub map[[2]int]bool
	if rls {
		t.acc = classifier.NewRLSAccumulator(dim, t.classes)
	} else {
		sub = pick(false, t.opt.SoftmaxFrames)
		t.subZ = linalg.NewGeneral32(len(sub), dim)
	}
	held := pick(true, 20000)
	t.heldZ = linalg.NewGeneral32(len(held), dim)
	nSub, nHeld := 0, 0
	return t.forBlocks(func(ui int, z blas32.General) error {
		u := t.us[ui]
		for f := 0; f < z.Rows; f++ {
			key := [2]int{ui, f}
			switch {
			case held[key]:
				copy(linalg.Row32(t.heldZ, nHeld), linalg.Row32(z, f))
				t.heldRef = append(t.heldRef, key)
				nHeld++
			case sub[key]:
				copy(linalg.Row32(t.subZ, nSub), linalg.Row32(z, f))
				t.subRef = append(t.subRef, key)
				nSub++
			}
		}
		if rls && !u.held {
			return t.acc.Add(z, u.labels)
		}
		return nil
	})
}

func (t *connTrainer) labelsOf(ref [][2]int) []int {
	l := make([]int, len(ref))
	for i, r := range ref {
		l[i] = t.us[r[0]].labels[r[1]]
	}
	return l
}

// fit trains the classifier on the current labels and returns a model
// without priors.
func (t *connTrainer) fit(pr *PassReport) (*engine.Model, error) {
	labels := make([]string, len(t.opt.Words))
	copy(labels, t.opt.Words)
	in := t.in
	in.Temperature = 0
	m := &engine.Model{Task: t.opt.Task, Labels: labels, Map: t.fm.Recipe(), Blobs: map[string]blas32.General{}}
	heldLabels := t.labelsOf(t.heldRef)
	if t.in.Classifier == "rls" {
		lambda := t.opt.RLSLambda
		if lambda <= 0 {
			scale := t.acc.MeanDiagonal()
			bestErr := math.Inf(1)
			for _, rel := range []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2} {
				r, err := t.acc.Solve(rel * scale)
				if err != nil {
					continue
				}
				if e := classifier.ErrorRate(r.Predict(t.heldZ), heldLabels); e <= bestErr {
					bestErr, lambda = e, rel*scale
				}
			}
			if math.IsInf(bestErr, 1) {
				return nil, errors.New("rfstream: no λ gave a solvable RLS system")
			}
		}
		r, err := t.acc.Solve(lambda)
		if err != nil {
			return nil, err
		}
		s := linalg.NewGeneral32(t.heldZ.Rows, t.classes)
		r.Scores(s, t.heldZ)
		if in.Temperature, err = classifier.FitTemperature(s, heldLabels); err != nil {
			return nil, err
		}
		m.RLS = r
		pr.Lambda, pr.Temp = lambda, in.Temperature
	} else {
		sm, srep, err := classifier.FitSoftmax(t.subZ, t.labelsOf(t.subRef), t.classes, t.opt.Softmax)
		if err != nil {
			return nil, err
		}
		m.Blobs[engine.BlobSoftmaxW] = sm.W
		m.Blobs[engine.BlobSoftmaxB] = blas32.General{Rows: 1, Cols: len(sm.B), Stride: len(sm.B), Data: sm.B}
		pr.Loss, pr.Lambda = srep.Loss, t.opt.Softmax.Lambda
		fmt.Fprintf(t.logw(), "%s: softmax (%s) on %d frames: loss %.4f after %d iterations, %.1f s\n", t.opt.Task, srep.Optimizer, t.subZ.Rows, srep.Loss, srep.Iterations, srep.Seconds)
	}
	var err error
	if m.Input, err = json.Marshal(in); err != nil {
		return nil, err
	}
	if m.Decoder, err = json.Marshal(t.opt.Decoder); err != nil {
		return nil, err
	}
	return m, nil
}

func (t *connTrainer) logw() io.Writer {
	if t.opt.Log == nil {
		return io.Discard
	}
	return t.opt.Log
}

// scoreAndAlign maps every frame through the fitted model, measures frame
// accuracy against the current labels and, when realign is set, replaces
// the labels by a forced alignment (and, for RLS, accumulates the new ZᵀY).
func (t *connTrainer) scoreAndAlign(m *engine.Model, realign bool, pr *PassReport) error {
	var post interface{ LogPosteriors(dst, z blas32.General) }
	if t.in.Classifier == "rls" {
		var in engine.ConnectedInput
		if err := json.Unmarshal(m.Input, &in); err != nil {
			return err
		}
		post = &classifier.CalibratedRLS{RLS: m.RLS, Temp: in.Temperature}
	} else {
		w, b := m.Blobs[engine.BlobSoftmaxW], m.Blobs[engine.BlobSoftmaxB]
		post = &classifier.Softmax{Dim: w.Rows, Classes: w.Cols, W: w, B: b.Data}
	}
	// Priors of the current labels turn posteriors into likelihoods for
	// the alignment.
	lp, err := decode.LogPriors(t.trainLabels(), t.classes)
	if err != nil {
		return err
	}
	logPrior := make([]float32, len(lp))
	for i, v := range lp {
		logPrior[i] = float32(t.opt.Decoder.PriorScale * v)
	}
	if realign && t.acc != nil {
		t.acc.ClearTargets()
	}
	opts := decode.Options{Hop: t.in.Audio.HopMs / 1000, AcousticScale: t.opt.Decoder.AcousticScale}
	var hit, total, hitHeld, totalHeld, changed, all int
	lpost := linalg.NewGeneral32(blockFrames, t.classes)
	err = t.forBlocks(func(ui int, z blas32.General) error {
		u := t.us[ui]
		if lpost.Rows < z.Rows {
			lpost = linalg.NewGeneral32(z.Rows, t.classes)
		}
		ll := linalg.Rows32(lpost, 0, z.Rows)
		post.LogPosteriors(ll, z)
		for f, c := range classifier.Argmax(ll) {
			ok := c == u.labels[f]
			if u.held {
				totalHeld++
				if ok {
					hitHeld++
				}
			} else {
				total++
				if ok {
					hit++
				}
			}
		}
		if !realign {
			return nil
		}
		for f := 0; f < ll.Rows; f++ {
			row := linalg.Row32(ll, f)
			for j := range row {
				row[j] -= logPrior[j]
			}
		}
		// An utterance the model cannot align keeps its old labels.
		if a, err := decode.Align(u.seq, &t.sil, ll, decode.LinearConfig{}, opts); err == nil {
			for f, c := range a.Classes {
				if c != u.labels[f] {
					changed++
				}
			}
			all += len(a.Classes)
			u.labels = a.Classes
		}
		if t.acc != nil && !u.held {
			return t.acc.AddTargets(z, u.labels)
		}
		return nil
	})
	if err != nil {
		return err
	}
	pr.TrainFrameAcc = float64(hit) / float64(max(total, 1))
	pr.HeldOutFrameAcc = float64(hitHeld) / float64(max(totalHeld, 1))
	if all > 0 {
		pr.Changed = float64(changed) / float64(all)
	}
	return nil
}
