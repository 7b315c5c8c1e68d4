package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

// hmmFlags configure the HMM isolated-word recogniser of eval digits: the
// connected-digit system (frame classifier over HMM states + Viterbi)
// trained on the split's training recordings and used with one-word
// grammars, alone or with its scores combined with the whole-word model's.
type hmmFlags struct {
	recognizer string
	weight     float64
	// teacherOnly: with combo and self-training, the combined scores pick
	// the pseudo-labels but the refitted whole-word model decides alone.
	teacherOnly bool
	weights     string
	pad         float64
	cf          train.DigitStringOptions
}

func (h *hmmFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.recognizer, "recognizer", "words", "words (whole-word map + RLS), hmm (HMM states + one-word Viterbi, trained on the split's training recordings) or combo (both, scores combined)")
	fs.Float64Var(&h.weight, "hmm-weight", 1, "combo: weight of the HMM's standardised scores against the whole-word model's")
	fs.BoolVar(&h.teacherOnly, "hmm-teacher-only", false, "combo with --self-train: the combined scores pick the pseudo-labels, the refitted whole-word model alone decides")
	fs.StringVar(&h.weights, "hmm-weights", "", "also report combo accuracy at each of these comma-separated weights (for choosing --hmm-weight on dev)")
	// The connected trainer's own options (its defaults, without joined
	// strings), a few set by flags prefixed so they do not clash.
	h.cf = train.DefaultDigitStringOptions()
	h.cf.TrainStrings = 0
	h.cf.Filler.Voices = 0 // one digit a recording: nothing to reject
	fs.IntVar(&h.cf.Map.M, "hmm-m", h.cf.Map.M, "hmm: maxout units of the frame classifier")
	fs.IntVar(&h.cf.Passes, "hmm-passes", h.cf.Passes, "hmm: re-alignments after the uniform bootstrap")
	fs.IntVar(&h.cf.States, "hmm-states", h.cf.States, "hmm: states per digit")
	fs.Float64Var(&h.pad, "hmm-pad", 0.25, "hmm: seconds of background-level silence added before and after each test recording (training pads 0.1-0.4 s)")
	fs.IntVar(&h.cf.TrainStrings, "hmm-strings", h.cf.TrainStrings, "hmm: also train on this many strings joined from training recordings")
}

func (h *hmmFlags) validate() error {
	switch h.recognizer {
	case "words", "hmm", "combo":
	default:
		return fmt.Errorf("unknown --recognizer %q (words, hmm, combo)", h.recognizer)
	}
	if h.teacherOnly && h.recognizer != "combo" {
		return errors.New("--hmm-teacher-only needs --recognizer combo")
	}
	return nil
}

func (h *hmmFlags) used() bool { return h.recognizer != "words" }

// decisionScores are the scores the chosen recogniser decides by: the
// word model's, the HMM's, or their combination with the HMM weighted.
// Self-training picks its pseudo-labels from these, so with combo the
// whole-word read-out is taught what the combination hears (also with
// --hmm-teacher-only, where the HMM then takes no part in the decision).
func (h *hmmFlags) decisionScores(words, hmm blas32.General) blas32.General {
	switch h.recognizer {
	case "hmm":
		return hmm
	case "combo":
		return combineScores(words, hmm, h.weight)
	}
	return words
}

// predict is the decision of the chosen recogniser: with
// --hmm-teacher-only the whole-word model's own.
func (h *hmmFlags) predict(words, hmm blas32.General) []int {
	if h.teacherOnly {
		return classifier.Argmax(words)
	}
	return classifier.Argmax(h.decisionScores(words, hmm))
}

func (h *hmmFlags) comboWeights() ([]float64, error) {
	if h.weights == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(h.weights, ",") {
		w, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || w < 0 {
			return nil, fmt.Errorf("--hmm-weights: %q is not a weight ≥ 0", f)
		}
		out = append(out, w)
	}
	return out, nil
}

// model trains (or loads from the data cache, keyed by the training
// recordings and every setting) the HMM model of one split and seed.
func (h *hmmFlags) model(trainRecs []datasets.Recording, fsdd string, seed uint64, log io.Writer) (*engine.Connected, error) {
	cf := h.cf
	cf.FSDD, cf.Map.Seed, cf.Log = fsdd, seed, log
	path := filepath.Join(defaults.DataDir(), "models", "isolated", h.cacheKey(trainRecs, seed)+".rfm")
	m, err := engine.LoadModel(path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(log, "hmm: training on %d recordings (seed %d) → %s\n", len(trainRecs), seed, path)
		start := time.Now()
		if m, _, err = train.DigitStringsOn(cf, trainRecs, nil); err != nil {
			return nil, err
		}
		// Wall-clock time, for planning how many HMMs a run can afford.
		fmt.Fprintf(log, "hmm: trained in %.0f s (m=%d, %d re-alignments)\n", time.Since(start).Seconds(), cf.Map.M, cf.Passes)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		err = engine.SaveModel(path, m)
	}
	if err != nil {
		return nil, err
	}
	return engine.NewConnected(m)
}

// cacheKey names the cached model of a training set and seed: every
// setting, then each recording's file name and label in the order given.
// The splits list recordings in FSDD's sorted order, so the inner fold
// without speakers S and T is the same set in the same order whichever of
// the two was excluded first, and both share one model.
func (h *hmmFlags) cacheKey(train []datasets.Recording, seed uint64) string {
	cf := h.cf
	key := sha256.New()
	fmt.Fprintf(key, "isolated v1 m=%d q=%d seed=%d passes=%d states=%d sil=%d strings=%d pad=%g-%g cls=%s\n",
		cf.Map.M, cf.Map.Q, seed, cf.Passes, cf.States, cf.SilStates, cf.TrainStrings, cf.PadMin, cf.PadMax, cf.Classifier)
	for _, r := range train {
		fmt.Fprintf(key, "%s\t%s\n", filepath.Base(r.Path), r.Label)
	}
	return hex.EncodeToString(key.Sum(nil))[:16]
}

// hmmScores scores every test recording against every word (per-frame
// log probabilities), rows in labels' order. Each recording is padded with
// pad seconds of its own background-level silence on both sides, as the
// training recordings were: the frontend's per-utterance CMVN then sees
// the same mix of speech and silence in training and test.
func hmmScores(c *engine.Connected, test []datasets.Recording, labels []string, pad float64) (blas32.General, error) {
	idx := train.LabelIndex(c.Model.Labels)
	perm := make([]int, len(labels))
	for i, l := range labels {
		j, ok := idx[l]
		if !ok {
			return blas32.General{}, fmt.Errorf("hmm model has no word %q", l)
		}
		perm[i] = j
	}
	out := linalg.NewGeneral32(len(test), len(labels))
	errs := make([]error, len(test))
	parallel.For(len(test), func(i int) {
		a, err := frontend.ReadAudio(test[i].Path, engine.DefaultConnectedInput().Audio.SampleRate)
		if err != nil {
			errs[i] = err
			return
		}
		if pad > 0 {
			rng := rand.New(rand.NewPCG(uint64(i), 0x706164))
			a.Samples = datasets.PadSilence(a.Samples, a.Rate, pad, pad, rng)
		}
		x, err := c.Frames(a)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", test[i].Path, err)
			return
		}
		s, err := c.OneWordScores(c.LogLikelihoods(x))
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", test[i].Path, err)
			return
		}
		row := linalg.Row32(out, i)
		for k, j := range perm {
			row[k] = float32(s[j])
		}
	})
	return out, errors.Join(errs...)
}

// combineScores adds the standardised rows of a and w times those of b:
// each recogniser's scores of one recording are shifted to mean 0 and
// scaled to unit standard deviation over the words, so the weight does not
// depend on either recogniser's score scale. A word with −Inf (no path)
// gets the row's lowest finite score.
func combineScores(a, b blas32.General, w float64) blas32.General {
	out := linalg.NewGeneral32(a.Rows, a.Cols)
	for i := 0; i < a.Rows; i++ {
		za, zb := standardised(linalg.Row32(a, i)), standardised(linalg.Row32(b, i))
		row := linalg.Row32(out, i)
		for k := range row {
			row[k] = float32(za[k] + w*zb[k])
		}
	}
	return out
}

func standardised(v []float32) []float64 {
	lo := math.Inf(1)
	for _, x := range v {
		if !math.IsInf(float64(x), 0) {
			lo = math.Min(lo, float64(x))
		}
	}
	out := make([]float64, len(v))
	var mean float64
	for k, x := range v {
		out[k] = float64(x)
		if math.IsInf(out[k], 0) || math.IsNaN(out[k]) {
			out[k] = lo
		}
		mean += out[k]
	}
	mean /= float64(len(v))
	var ss float64
	for k := range out {
		out[k] -= mean
		ss += out[k] * out[k]
	}
	if sd := math.Sqrt(ss / float64(len(v))); sd > 0 {
		for k := range out {
			out[k] /= sd
		}
	}
	return out
}

// addScaled adds the standardised rows of s into sum.
func addScaled(sum, s blas32.General) {
	for i := 0; i < s.Rows; i++ {
		row := linalg.Row32(sum, i)
		for k, v := range standardised(linalg.Row32(s, i)) {
			row[k] += float32(v)
		}
	}
}
