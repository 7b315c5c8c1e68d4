package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// trainVoiceFlags widen the voices a word model trains on, for speakers it
// has never heard: synthetic speakers (espeak-ng voices saying the ten
// digits) and speed-perturbed copies of the real training voices. Neither
// looks at a test recording, so both keep leave-one-speaker-out clean.
type trainVoiceFlags struct {
	synthVoices int
	synthTakes  int
	synthSeed   uint64
	realWeight  int
	speeds      string
	speedList   []float64
	onsetTrims  string
	onsetTrimMs []float64
	// offsetTrimMs: copies whose word ends this much before the detected
	// speech end, as a stream segment whose decay the background hid.
	offsetTrims  string
	offsetTrimMs []float64
	// trimLabels, when set, limits the onset-trimmed copies to recordings
	// of these labels (e.g. the words that begin with /s/, the consonant
	// FSDD's trimming and an 8 kHz band lose first); empty: every label.
	trimLabelList string
	trimLabels    map[string]bool
	// padMs, when positive, adds a copy of every training recording with
	// this much background-level noise before and after it.
	padMs float64
}

func (f *trainVoiceFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.synthVoices, "synth-voices", 0, "add this many synthetic espeak-ng speakers (accent + voice variant + speed + pitch drawn by --synth-seed) saying the ten digits to every training set (0: none)")
	fs.IntVar(&f.synthTakes, "synth-takes", 2, "--synth-voices: takes of each digit per synthetic speaker (speed and pitch jittered)")
	fs.Uint64Var(&f.synthSeed, "synth-seed", 1, "--synth-voices: seed of the voices and takes (audio cached under $RFSTREAM_DATA/synth-digits)")
	fs.IntVar(&f.realWeight, "real-weight", 1, "weight of every real training recording (and its speed copies) against a synthetic one: each is used this many times")
	fs.StringVar(&f.speeds, "speed-perturb", "", "comma-separated speed factors (e.g. 0.9,1.1): add a copy of every real training recording played this much faster (pitch and tempo together, Kaldi-style), as a new speaker")
	fs.StringVar(&f.onsetTrims, "onset-trim-ms", "", "comma-separated trims in ms (e.g. 60,120): add a copy of every training recording (real and synthetic, not speed copies) whose word vector starts this much after the detected speech start (at most half the region cut), as if the recording had been cut after the word began; test rows are never trimmed")
	fs.StringVar(&f.offsetTrims, "offset-trim-ms", "", "comma-separated trims in ms (e.g. 50,100): add a copy of every training recording (real and synthetic, not speed copies) whose word vector ends this much before the detected speech end (at most half the region cut), as a word cut from a stream whose background hides its decay; test rows are never trimmed")
	fs.StringVar(&f.trimLabelList, "onset-trim-labels", "", "comma-separated training labels (e.g. 6,7) whose recordings get the --onset-trim-ms copies; empty: every label")
	fs.Float64Var(&f.padMs, "pad-copies-ms", 0, "add a copy of every training recording (real and synthetic, not speed copies) with this many ms of noise at its own background level before and after it, as the live segmenter pads a word cut from a stream (0: none)")
}

func (f *trainVoiceFlags) validate() error {
	if f.synthVoices < 0 {
		return fmt.Errorf("--synth-voices %d: want ≥ 0", f.synthVoices)
	}
	if f.synthTakes < 1 {
		return fmt.Errorf("--synth-takes %d: want ≥ 1", f.synthTakes)
	}
	if f.realWeight < 1 || f.realWeight > 100 {
		return fmt.Errorf("--real-weight %d: want 1 to 100", f.realWeight)
	}
	var err error
	if f.onsetTrimMs, err = parseTrims("--onset-trim-ms", f.onsetTrims); err != nil {
		return err
	}
	if f.offsetTrimMs, err = parseTrims("--offset-trim-ms", f.offsetTrims); err != nil {
		return err
	}
	if f.trimLabels, err = parseTrimLabels(f.trimLabelList); err != nil {
		return err
	}
	if math.IsNaN(f.padMs) || f.padMs < 0 || f.padMs > maxPadCopiesMs {
		return fmt.Errorf("--pad-copies-ms %g: want 0 to %d", f.padMs, maxPadCopiesMs)
	}
	if f.trimLabels != nil && len(f.onsetTrimMs) == 0 {
		return errors.New("--onset-trim-labels: no --onset-trim-ms to apply")
	}
	f.speedList, err = parseDistinct("--speed-perturb", f.speeds, func(part string) (float64, error) {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(v) || v < 0.5 || v > 2 || v == 1 {
			return 0, fmt.Errorf("--speed-perturb: %q is not a speed factor in [0.5, 2] other than 1", part)
		}
		return v, nil
	})
	return err
}

// parseDistinct reads a comma-separated flag value: each part, trimmed of
// spaces, through parse, none twice. An empty value is nil.
func parseDistinct[T comparable](flagName, s string, parse func(part string) (T, error)) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []T
	for _, part := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%s: %v given twice", flagName, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// maxPadCopiesMs bounds --pad-copies-ms: a second of padding is already
// more than any segmenter adds around a word.
const maxPadCopiesMs = 1000

// maxTrimMs bounds --onset-trim-ms and --offset-trim-ms: FSDD's words last
// 150-800 ms, and TrimOnset and TrimOffset keep half of any region anyway.
const maxTrimMs = 500

// parseTrims reads --onset-trim-ms or --offset-trim-ms (name): distinct
// trims in (0, 500] ms.
//
// Why milliseconds and not a share of the region: what FSDD's cut took
// from some recordings is one consonant, an /s/ of roughly 60-150 ms,
// whose length does not grow with the word's; a share of the region would
// cut a long "seven" by much more than a short "six", and a short word by
// almost nothing. TrimOnset keeps at least the region's second half, so a
// short word is not reduced to its tail.
func parseTrims(name, s string) ([]float64, error) {
	return parseDistinct(name, s, func(part string) (float64, error) {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(v) || v <= 0 || v > maxTrimMs {
			return 0, fmt.Errorf("%s: %q is not a trim in (0, %d] ms", name, part, maxTrimMs)
		}
		return v, nil
	})
}

// parseTrimLabels reads --onset-trim-labels: distinct non-empty labels, or
// nil for every label.
func parseTrimLabels(s string) (map[string]bool, error) {
	labels, err := parseDistinct("--onset-trim-labels", s, func(part string) (string, error) {
		if part == "" {
			return "", fmt.Errorf("--onset-trim-labels %q: an empty label", s)
		}
		return part, nil
	})
	if err != nil || labels == nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range labels {
		out[l] = true
	}
	return out, nil
}

func (f *trainVoiceFlags) used() bool {
	return f.synthVoices > 0 || f.realWeight > 1 || len(f.speedList) > 0 || len(f.onsetTrimMs) > 0 || len(f.offsetTrimMs) > 0 || f.padMs > 0
}

// synth builds (or finds in the data cache) the synthetic recordings.
func (f *trainVoiceFlags) synth(rate int) ([]datasets.Recording, error) {
	if f.synthVoices == 0 {
		return nil, nil
	}
	return datasets.BuildSynthDigits(filepath.Join(dataDir(), "synth-digits"),
		datasets.SynthDigitOptions{Voices: f.synthVoices, Takes: f.synthTakes, Seed: f.synthSeed, Rate: rate})
}

// speedCondition plays a recording factor times faster: the samples are
// declared to be at rate·factor and resampled back to rate, which scales
// time by 1/factor and every frequency by factor, as a speaker with a
// shorter vocal tract talking faster would.
func speedCondition(factor float64) condition {
	return condition{name: fmt.Sprintf("speed %gx", factor), warp: func(x []float32, rate int) ([]float32, error) {
		from := int(math.Round(float64(rate) * factor))
		a, err := frontend.Resample(&frontend.Audio{Rate: from, Samples: x}, rate)
		if err != nil {
			return nil, err
		}
		return a.Samples, nil
	}}
}

// trainingRows is a training set after widening: its word vectors, one
// recording per row (speed copies renamed to a speaker of their own, as a
// speaker normaliser must see them apart), and a group per row: the rows
// that come from one real recording (repeats, speed copies) share it, so
// holding a group out to choose λ leaves no copy of it behind.
type trainingRows struct {
	x      blas32.General
	recs   []datasets.Recording
	groups []int
}

func (f *trainVoiceFlags) rows(real, synth []datasets.Recording, wc frontend.WordConfig, cache map[string][]float32) (trainingRows, error) {
	type block struct {
		recs   []datasets.Recording
		cond   condition
		groups []int // one per row: the row's source recording
	}
	// numbered gives recordings the groups first, first+1, ….
	numbered := func(recs []datasets.Recording, first int) []int {
		g := make([]int, len(recs))
		for i := range g {
			g[i] = first + i
		}
		return g
	}
	realGroups, synthGroups := numbered(real, 0), numbered(synth, len(real))
	var blocks []block
	for k := 0; k < f.realWeight; k++ {
		blocks = append(blocks, block{real, condition{name: "clean"}, realGroups})
		for _, s := range f.speedList {
			c := speedCondition(s)
			renamed := make([]datasets.Recording, len(real))
			for i, r := range real {
				r.Speaker = fmt.Sprintf("%s@%g", r.Speaker, s)
				renamed[i] = r
			}
			blocks = append(blocks, block{renamed, c, realGroups})
		}
	}
	if len(synth) > 0 {
		blocks = append(blocks, block{synth, condition{name: "clean"}, synthGroups})
	}
	// Onset-trimmed copies: each keeps its source's speaker (the same voice
	// and microphone, only cut later, as the unseen voices' clipped words
	// are normalised with their own voice's statistics) and its group (so
	// the λ hold-out never splits a recording from its trimmed copy).
	trimmed := func(recs []datasets.Recording, groups []int) ([]datasets.Recording, []int) {
		if f.trimLabels == nil {
			return recs, groups
		}
		var r []datasets.Recording
		var g []int
		for i, rec := range recs {
			if f.trimLabels[rec.Label] {
				r = append(r, rec)
				g = append(g, groups[i])
			}
		}
		return r, g
	}
	for l := range f.trimLabels {
		if !slices.ContainsFunc(real, func(r datasets.Recording) bool { return r.Label == l }) &&
			!slices.ContainsFunc(synth, func(r datasets.Recording) bool { return r.Label == l }) {
			return trainingRows{}, fmt.Errorf("--onset-trim-labels: no training recording is labelled %q (labels are %v)", l, datasets.Labels(real, synth))
		}
	}
	// copies adds a block of real and one of synthetic recordings (those
	// that exist) under condition c, each row keeping its source's speaker
	// and group.
	copies := func(c condition, real []datasets.Recording, realGroups []int, synth []datasets.Recording, synthGroups []int) {
		if len(real) > 0 {
			blocks = append(blocks, block{real, c, realGroups})
		}
		if len(synth) > 0 {
			blocks = append(blocks, block{synth, c, synthGroups})
		}
	}
	trimReal, trimRealGroups := trimmed(real, realGroups)
	trimSynth, trimSynthGroups := trimmed(synth, synthGroups)
	for _, ms := range f.onsetTrimMs {
		copies(condition{name: fmt.Sprintf("onset trim %gms", ms), onsetTrimMs: ms}, trimReal, trimRealGroups, trimSynth, trimSynthGroups)
	}
	// Offset-trimmed copies are of every label.
	for _, ms := range f.offsetTrimMs {
		copies(condition{name: fmt.Sprintf("offset trim %gms", ms), offsetTrimMs: ms}, real, realGroups, synth, synthGroups)
	}
	if f.padMs > 0 {
		copies(condition{name: fmt.Sprintf("padded %gms", f.padMs), padMs: f.padMs}, real, realGroups, synth, synthGroups)
	}
	var out trainingRows
	n := 0
	for _, b := range blocks {
		n += len(b.recs)
	}
	out.x = linalg.NewGeneral32(n, wc.Dim())
	at := 0
	for _, b := range blocks {
		x, err := cachedWordVectorsWarped(b.recs, wc, cache, b.cond)
		if err != nil {
			return out, err
		}
		copy(out.x.Data[at*wc.Dim():], x.Data)
		out.recs = append(out.recs, b.recs...)
		out.groups = append(out.groups, b.groups...)
		at += len(b.recs)
	}
	return out, nil
}

// groupHoldOut lists the rows of a random frac of the groups, with every
// row of each chosen group, for choosing λ on recordings the fit has no
// copy of. rows may exceed len(groups) when copies follow in blocks of
// len(groups) (warped augmentation); row i then belongs to group
// groups[i % len(groups)].
func groupHoldOut(groups []int, rows int, frac float64, seed uint64) ([]int, error) {
	if len(groups) == 0 || rows%len(groups) != 0 {
		return nil, errors.New("λ hold-out: rows are not whole copies of the training set")
	}
	distinct := map[int]bool{}
	for _, g := range groups {
		distinct[g] = true
	}
	ids := make([]int, 0, len(distinct))
	for g := range distinct {
		ids = append(ids, g)
	}
	sort.Ints(ids)
	rng := rand.New(rand.NewPCG(seed, 0x67726f75))
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	k := int(math.Round(frac * float64(len(ids))))
	if k < 1 || k >= len(ids) {
		return nil, fmt.Errorf("λ hold-out: cannot hold out %d of %d recordings", k, len(ids))
	}
	held := map[int]bool{}
	for _, g := range ids[:k] {
		held[g] = true
	}
	var out []int
	for i := 0; i < rows; i++ {
		if held[groups[i%len(groups)]] {
			out = append(out, i)
		}
	}
	return out, nil
}
