package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// TaskConnected is the Model.Task of connected-word recognisers: a frame
// classifier over HMM states (spliced frames → random map → softmax or
// calibrated RLS) and a Viterbi decoder over a word loop with silence.
const TaskConnected = "connected"

// TaskPhones is the Model.Task of phone recognisers: a connected model
// whose "words" are 3-state phone HMMs, decoded with a phone loop. It
// shares every piece of TaskConnected; the task name only tells tools to
// score and print phones.
const TaskPhones = "phones"

// ConnectedInput is what a connected-word model reads and how its classes
// are laid out: word w's states are classes w·StatesPerWord … (w+1)·StatesPerWord−1,
// then come the SilenceStates silence classes.
type ConnectedInput struct {
	Audio         frontend.AudioConfig `json:"audio"`
	StatesPerWord int                  `json:"states_per_word"`
	SilenceStates int                  `json:"silence_states"`
	// Classifier is "softmax" (blobs softmax.W, softmax.B) or "rls" (the
	// model's RLS read-out with scores turned into posteriors by a softmax
	// at Temperature, fitted on held-out frames).
	Classifier  string  `json:"classifier"`
	Temperature float64 `json:"temperature,omitempty"`
}

// Classes is the number of HMM-state classes for words words.
func (in ConnectedInput) Classes(words int) int { return words*in.StatesPerWord + in.SilenceStates }

// ConnectedDecoder configures the word-loop Viterbi search.
type ConnectedDecoder struct {
	SelfLoop    float64 `json:"self_loop"`    // HMM self-loop probability of every state
	SilenceProb float64 `json:"silence_prob"` // probability of a silence rather than a word at each choice
	WordPenalty float64 `json:"word_penalty"` // log-domain cost added at each word start
	LMScale     float64 `json:"lm_scale"`
	// AcousticScale multiplies the scaled log-likelihoods; PriorScale is
	// the power of the state priors divided out of the posteriors.
	AcousticScale float64 `json:"acoustic_scale"`
	PriorScale    float64 `json:"prior_scale"`
	// Beam prunes the search (0: exact); EndpointSilenceMs of trailing
	// silence ends an utterance in a stream.
	Beam              float64 `json:"beam"`
	EndpointSilenceMs float64 `json:"endpoint_silence_ms"`
	// FillerBias is added to the scaled log-likelihood of every state of
	// the model's filler unit (FillerLabel) at every frame: the filler
	// weight, larger to reject more. Without a filler unit it is unused;
	// older model files have neither, and reject nothing.
	FillerBias float64 `json:"filler_bias,omitempty"`
	// Warps, when set, is test-time vocal-tract warp search: an utterance
	// is heard through the frontend warped by each factor
	// (frontend.AudioConfig.Warp, 0.7 to 1.4) and the warp whose best path
	// scores highest gives the words, as VTLN decoders choose a speaker's
	// warp. A stream chooses once, on its first utterance with a word, and
	// keeps that warp. Each warp costs one more frontend, map and search
	// pass over the utterance. Empty: the frontend as trained, one pass.
	Warps []float64 `json:"warps,omitempty"`
}

// DefaultConnectedInput: MFCC 13 + Δ + ΔΔ with utterance CMVN, spliced ±5
// (429 values a frame), 8 states a digit, 3 of silence, softmax read-out.
func DefaultConnectedInput() ConnectedInput {
	a := frontend.DefaultAudioConfig()
	a.Ceps, a.Deltas, a.CMVN, a.Splice = 13, 2, "utterance", 5
	return ConnectedInput{Audio: a, StatesPerWord: 8, SilenceStates: 3, Classifier: "softmax"}
}

// DefaultConnectedDecoder is the decoder configuration training starts
// from.
func DefaultConnectedDecoder() ConnectedDecoder {
	return ConnectedDecoder{SelfLoop: 0.7, SilenceProb: 0.5, AcousticScale: 1, PriorScale: 1, EndpointSilenceMs: 500}
}

// Model blob names of the connected task: training writes them, NewConnected
// reads them.
const (
	BlobSoftmaxW = "softmax.W"
	BlobSoftmaxB = "softmax.B"
	BlobLogPrior = "log_prior"
	// blobBigram, when present, holds a unit bigram (log probabilities):
	// row i < len(Labels) is P(· | unit i), the last row P(unit first).
	// The decoder then uses a bigram loop instead of a uniform one.
	blobBigram = "unit_bigram"
)

// posteriorModel is a frame classifier that gives log posteriors.
type posteriorModel interface {
	LogPosteriors(dst, z blas32.General)
}

// Connected recognises word strings in whole recordings with a connected
// model. It is safe for concurrent use: decoding state lives in each call.
type Connected struct {
	Model   *Model
	Input   ConnectedInput
	Decoder ConnectedDecoder
	Map     features.Map
	words   []decode.Unit
	sil     decode.Unit
	graph   *decode.Graph
	post    posteriorModel
	// logPrior is PriorScale · log P(state); rawPrior is log P(state).
	logPrior, rawPrior []float32
	classes            int
	bigram             *decode.Bigram
	// filler is the index of FillerLabel among the labels, −1 without.
	filler int
	// forms print labels that are another word's spoken form ("oh").
	forms map[string]spokenForm
	print *modelPrint // the model's fingerprint, computed once (voice files)
}

// NewConnected prepares a connected model for recognition.
func NewConnected(m *Model) (*Connected, error) {
	if m.Task != TaskConnected && m.Task != TaskPhones {
		return nil, fmt.Errorf("rfstream: model task %q is neither %q nor %q", m.Task, TaskConnected, TaskPhones)
	}
	c := &Connected{Model: m, print: &modelPrint{}}
	if err := strictJSON(m.Input, &c.Input); err != nil {
		return nil, fmt.Errorf("rfstream: connected model input: %w", err)
	}
	if err := strictJSON(m.Decoder, &c.Decoder); err != nil {
		return nil, fmt.Errorf("rfstream: connected model decoder: %w", err)
	}
	if err := c.Input.Audio.Validate(); err != nil {
		return nil, err
	}
	for _, w := range c.Decoder.Warps {
		if !(w >= frontend.MinWarp && w <= frontend.MaxWarp) {
			return nil, fmt.Errorf("rfstream: connected decoder warp %g (%g to %g)", w, frontend.MinWarp, frontend.MaxWarp)
		}
	}
	if len(m.Labels) == 0 || c.Input.StatesPerWord < 1 || c.Input.SilenceStates < 1 {
		return nil, fmt.Errorf("rfstream: connected model with %d words, %d states a word, %d silence states", len(m.Labels), c.Input.StatesPerWord, c.Input.SilenceStates)
	}
	c.classes = c.Input.Classes(len(m.Labels))
	c.filler = slices.Index(m.Labels, FillerLabel)
	c.forms = spokenForms(m.Labels)
	var err error
	if c.Map, err = m.FeatureMap(); err != nil {
		return nil, err
	}
	if c.Map.InDim() != c.Input.Audio.Dim() {
		return nil, fmt.Errorf("rfstream: connected model's map takes %d inputs, its frames have %d", c.Map.InDim(), c.Input.Audio.Dim())
	}
	switch c.Input.Classifier {
	case "softmax":
		w, okW := m.Blobs[BlobSoftmaxW]
		b, okB := m.Blobs[BlobSoftmaxB]
		if !okW || !okB || w.Rows != c.Map.OutDim() || w.Cols != c.classes || b.Rows != 1 || b.Cols != c.classes {
			return nil, fmt.Errorf("rfstream: connected model lacks a %d×%d softmax", c.Map.OutDim(), c.classes)
		}
		sm := &classifier.Softmax{Dim: w.Rows, Classes: w.Cols, W: w, B: b.Data[:b.Cols]}
		sm.PackWeights()
		c.post = sm
	case "rls":
		if m.RLS == nil || m.RLS.Dim != c.Map.OutDim() || m.RLS.Classes != c.classes || !(c.Input.Temperature > 0) {
			return nil, fmt.Errorf("rfstream: connected model lacks a %d×%d RLS read-out with a temperature", c.Map.OutDim(), c.classes)
		}
		c.post = classifier.NewPackedCalibratedRLS(m.RLS, c.Input.Temperature)
	default:
		return nil, fmt.Errorf("rfstream: connected model classifier %q (softmax, rls)", c.Input.Classifier)
	}
	lp, ok := m.Blobs[BlobLogPrior]
	if !ok || lp.Rows != 1 || lp.Cols != c.classes {
		return nil, fmt.Errorf("rfstream: connected model lacks its %d state priors", c.classes)
	}
	c.logPrior = make([]float32, c.classes)
	c.rawPrior = append([]float32(nil), lp.Data[:lp.Cols]...)
	for i, v := range lp.Data[:lp.Cols] {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%w: state prior %d is %v", ErrCorrupt, i, v)
		}
		c.logPrior[i] = float32(c.Decoder.PriorScale) * v
	}
	if c.words, c.sil, err = c.Input.Units(m.Labels, c.Decoder.SelfLoop); err != nil {
		return nil, err
	}
	if bg, ok := m.Blobs[blobBigram]; ok {
		n := len(m.Labels)
		if bg.Rows != n+1 || bg.Cols != n {
			return nil, fmt.Errorf("%w: unit bigram is %d×%d, want %d×%d", ErrCorrupt, bg.Rows, bg.Cols, n+1, n)
		}
		lm := decode.Bigram{Next: make([][]float64, n)}
		for i := 0; i <= n; i++ {
			row := make([]float64, n)
			for j := range row {
				row[j] = float64(bg.Data[i*bg.Stride+j])
			}
			if i < n {
				lm.Next[i] = row
			} else {
				lm.Start = row
			}
		}
		c.bigram = &lm
	}
	if c.graph, err = c.loop(c.Decoder); err != nil {
		return nil, err
	}
	return c, nil
}

// loop builds the decoding graph for decoder settings dc: a word loop, or
// a bigram loop when the model has a unit bigram.
func (c *Connected) loop(dc ConnectedDecoder) (*decode.Graph, error) {
	cfg := decode.LoopConfig{SilenceProb: dc.SilenceProb, WordPenalty: dc.WordPenalty, LMScale: dc.LMScale}
	if c.bigram != nil {
		return decode.BigramLoop(c.words, &c.sil, *c.bigram, cfg)
	}
	return decode.WordLoop(c.words, &c.sil, cfg)
}

// SetUnitBigram estimates a bigram over the model's labels from training
// transcripts (add-k smoothing) and stores it in the model, so its decoder
// uses a bigram loop; nil transcripts remove it.
func SetUnitBigram(m *Model, transcripts [][]string, k float64) error {
	if transcripts == nil {
		delete(m.Blobs, blobBigram)
		return nil
	}
	index := map[string]int{}
	for i, l := range m.Labels {
		index[l] = i
	}
	seqs := make([][]int, len(transcripts))
	for i, tr := range transcripts {
		for _, w := range tr {
			j, ok := index[w]
			if !ok {
				return fmt.Errorf("rfstream: transcript %d has %q, not a model label", i, w)
			}
			seqs[i] = append(seqs[i], j)
		}
	}
	n := len(m.Labels)
	lm, err := decode.EstimateBigram(seqs, n, k)
	if err != nil {
		return err
	}
	g := linalg.NewGeneral32(n+1, n)
	for i := 0; i <= n; i++ {
		row := lm.Start
		if i < n {
			row = lm.Next[i]
		}
		for j, v := range row {
			g.Data[i*g.Stride+j] = float32(v)
		}
	}
	if m.Blobs == nil {
		m.Blobs = map[string]blas32.General{}
	}
	m.Blobs[blobBigram] = g
	return nil
}

func strictJSON(b json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Units lays out the word and silence HMMs on the classes: word i's
// states first, in label order, then silence's.
func (in ConnectedInput) Units(words []string, selfLoop float64) ([]decode.Unit, decode.Unit, error) {
	ws, err := decode.Chains(words, in.StatesPerWord, selfLoop, 0)
	if err != nil {
		return nil, decode.Unit{}, err
	}
	sil, err := decode.SilenceUnit("<sil>", in.SilenceStates, selfLoop, len(words)*in.StatesPerWord)
	return ws, sil, err
}

// Frames runs the model's frontend over a recording at any rate and
// returns its spliced frames.
func (c *Connected) Frames(a *frontend.Audio) (blas32.General, error) {
	a, err := c.atModelRate(a)
	if err != nil {
		return blas32.General{}, err
	}
	return frontend.ExtractFrames(c.Input.Audio, a.Samples)
}

// atModelRate resamples a recording to the model's rate; an empty one is
// an error.
func (c *Connected) atModelRate(a *frontend.Audio) (*frontend.Audio, error) {
	if a.Rate != c.Input.Audio.SampleRate {
		var err error
		if a, err = frontend.Resample(a, c.Input.Audio.SampleRate); err != nil {
			return nil, err
		}
	}
	if len(a.Samples) == 0 {
		return nil, fmt.Errorf("rfstream: empty recording")
	}
	return a, nil
}

// scoreBlock is how many frames go through the map at a time.
const scoreBlock = 512

// LogLikelihoods maps spliced frames to the decoder's scaled
// log-likelihoods, log P(state | frame) − PriorScale·log P(state), block
// by block.
func (c *Connected) LogLikelihoods(x blas32.General) blas32.General {
	return c.biasFiller(frameLogLikelihoods(c.Map, c.post, c.logPrior, x), c.Decoder.FillerBias)
}

func frameLogLikelihoods(m features.Map, post posteriorModel, logPrior []float32, x blas32.General) blas32.General {
	out := linalg.NewGeneral32(x.Rows, len(logPrior))
	z := linalg.NewGeneral32(min(scoreBlock, x.Rows), m.OutDim())
	for b0 := 0; b0 < x.Rows; b0 += scoreBlock {
		b1 := min(b0+scoreBlock, x.Rows)
		zb := linalg.Rows32(z, 0, b1-b0)
		m.Apply(zb, linalg.Rows32(x, b0, b1))
		ob := linalg.Rows32(out, b0, b1)
		post.LogPosteriors(ob, zb)
		for i := 0; i < ob.Rows; i++ {
			row := linalg.Row32(ob, i)
			for j := range row {
				row[j] -= logPrior[j]
			}
		}
	}
	return out
}

func (c *Connected) options() decode.Options { return c.optionsFor(c.Decoder) }

func (c *Connected) optionsFor(dc ConnectedDecoder) decode.Options {
	return decode.Options{Hop: c.Input.Audio.HopMs / 1000, AcousticScale: dc.AcousticScale, Beam: dc.Beam,
		EndpointSilence: dc.EndpointSilenceMs / 1000}
}

// LogPosteriors maps spliced frames to log P(state | frame), with no prior
// divided out: what a search over the prior scale starts from.
func (c *Connected) LogPosteriors(x blas32.General) blas32.General {
	return frameLogLikelihoods(c.Map, c.post, make([]float32, len(c.logPrior)), x)
}

// LogPriors returns log P(state) of the training labels, unscaled.
func (c *Connected) LogPriors() []float32 { return append([]float32(nil), c.rawPrior...) }

// DecoderWith returns a decoder of scaled log-likelihoods that uses the
// decoder settings dc in place of the model's own, leaving c unchanged:
// what a search over those settings calls once per setting.
func (c *Connected) DecoderWith(dc ConnectedDecoder) (func(ll blas32.General) (*decode.Result, error), error) {
	g, err := c.loop(dc)
	if err != nil {
		return nil, err
	}
	opt := c.optionsFor(dc)
	return func(ll blas32.General) (*decode.Result, error) { return decode.Viterbi(g, ll, opt) }, nil
}

// DecodeFrames decodes scaled log-likelihoods with the word loop.
func (c *Connected) DecodeFrames(ll blas32.General) (*decode.Result, error) {
	return decode.Viterbi(c.graph, ll, c.options())
}

// Recognize turns a whole recording into its word string with word times
// and confidences (searching the decoder's Warps, when it has some).
func (c *Connected) Recognize(a *frontend.Audio) (Result, error) {
	r, _, err := c.recognizeWarped(a, c.Decoder.Warps)
	return r, err
}

// recognizeWarped decodes a recording under each of warps (none: the
// frontend as trained) and returns the words of the best-scoring path and
// the warp that gave it (0 for none).
func (c *Connected) recognizeWarped(a *frontend.Audio, warps []float64) (Result, float64, error) {
	a, err := c.atModelRate(a)
	if err != nil {
		return Result{}, 0, err
	}
	if len(warps) == 0 {
		warps = []float64{0}
	}
	var best *decode.Result
	bestWarp := 0.0
	for _, w := range warps {
		cfg := c.Input.Audio
		cfg.Warp = w
		x, err := frontend.ExtractFrames(cfg, a.Samples)
		if err != nil {
			return Result{}, 0, err
		}
		r, err := c.DecodeFrames(c.LogLikelihoods(x))
		if err != nil {
			return Result{}, 0, err
		}
		if best == nil || r.LogProb > best.LogProb {
			best, bestWarp = r, w
		}
	}
	return spokenResultOf(best.Words, true, c.forms), bestWarp, nil
}

// resultOf turns decoded words into a Result: a run of filler words
// becomes one rejected word (RejectedWord), left out of Text.
func resultOf(ws []decode.Word, final bool) Result { return spokenResultOf(ws, final, nil) }

// spokenResultOf is resultOf printing the labels that have a spoken form
// (forms: "oh" as 0) as their word, with the form in Word.Spoken.
func spokenResultOf(ws []decode.Word, final bool, forms map[string]spokenForm) Result {
	res := Result{Final: final, EOS: final, Words: []Word{}}
	for _, w := range ws {
		out := Word{Word: w.Label, Start: w.StartTime, End: w.EndTime, Conf: w.Confidence}
		if f, ok := forms[w.Label]; ok {
			out.Word, out.Spoken = f.word, f.spoken
		}
		if w.Label == FillerLabel {
			if n := len(res.Words); n > 0 && res.Words[n-1].Rejected {
				// One stretch of speech that is no word: one entry, its
				// confidence the frame-weighted mean of the parts'.
				last := &res.Words[n-1]
				d0, d1 := last.End-last.Start, out.End-out.Start
				if d0+d1 > 0 {
					last.Conf = (last.Conf*d0 + out.Conf*d1) / (d0 + d1)
				}
				last.End = out.End
				continue
			}
			out.Word, out.Rejected = RejectedWord, true
		}
		res.Words = append(res.Words, out)
	}
	res.Text = wordText(res.Words)
	return res
}

// BaseFrames is the frontend half of Frames for a pipeline that splits the
// work between processes: the frames before ±k splicing, 1/(2k+1) of the
// size to send. Splice(BaseFrames(a)) equals Frames(a) exactly, since
// splicing only copies (edges replicated, as the frontend does).
func (c *Connected) BaseFrames(a *frontend.Audio) (blas32.General, error) {
	cc := *c
	cc.Input.Audio.Splice = 0
	return cc.Frames(a)
}

// BaseDim is the length of a frame from BaseFrames.
func (c *Connected) BaseDim() int {
	in := c.Input.Audio
	in.Splice = 0
	return in.Dim()
}

// Splice turns frames from BaseFrames into the model's input frames.
func (c *Connected) Splice(base blas32.General) blas32.General {
	out := linalg.NewGeneral32(base.Rows, c.Input.Audio.Dim())
	frontend.Splice(out, base, 0, base.Rows, c.Input.Audio.Splice)
	return out
}

// DecodeWords decodes scaled log-likelihoods into words timed from the
// first frame.
func (c *Connected) DecodeWords(ll blas32.General) ([]Word, error) {
	r, err := c.DecodeFrames(ll)
	if err != nil {
		return nil, err
	}
	return spokenResultOf(r.Words, true, c.forms).Words, nil
}

// Classes is the number of HMM-state classes: the width of LogLikelihoods.
func (c *Connected) Classes() int { return c.classes }
