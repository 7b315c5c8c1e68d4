package train

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/augment"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/progress"
)

// VoiceOptions widen the voices a word model trains on, for speakers it
// has never heard: synthetic speakers (espeak-ng voices saying the ten
// digits) and speed-perturbed copies of the real training voices, plus
// copies of every training recording cut or padded as a stream's segmenter
// may cut it. None looks at a test recording, so all keep
// leave-one-speaker-out clean.
type VoiceOptions struct {
	// SynthVoices synthetic speakers say the ten digits SynthTakes times
	// each (voices and takes drawn by SynthSeed); their audio is cached
	// in SynthDir.
	SynthVoices int
	SynthTakes  int
	SynthSeed   uint64
	SynthDir    string
	// RealWeight repeats every real training recording (and its speed
	// copies) this many times against one synthetic recording.
	RealWeight int
	// Speeds adds a copy of every real training recording played this
	// much faster, as a speaker of its own.
	Speeds []float64
	// OnsetTrimMs: copies whose word vector starts this much after the
	// detected speech start, as a recording cut after the word began.
	OnsetTrimMs []float64
	// OffsetTrimMs: copies whose word ends this much before the detected
	// speech end, as a stream segment whose decay the background hid.
	OffsetTrimMs []float64
	// TrimLabels, when set, limits the onset-trimmed copies to recordings
	// of these labels (e.g. the words that begin with /s/, the consonant
	// FSDD's trimming and an 8 kHz band lose first); nil: every label.
	TrimLabels map[string]bool
	// PadMs, when positive, adds a copy of every training recording with
	// this much background-level noise before and after it.
	PadMs float64
	// Engines adds other synthesisers' speakers (flite, festival, …:
	// datasets.BuildVoiceSet) saying the digits alone.
	Engines EngineVoices
	// WaveAugment adds this many copies of every real training recording,
	// each changed by its own seeded augment.Plan within AugmentRanges.
	WaveAugment   int
	AugmentRanges augment.Ranges
	// Real adds the real recorded voices' digits (datasets.RealVoiceDigits)
	// as speakers of their own, each recording Copies times: as recorded
	// and changed by AugmentCondition copies 1 … Copies-1.
	Real RealVoiceTraining
}

// DefaultVoiceOptions add nothing: the recordings alone, once each.
func DefaultVoiceOptions() VoiceOptions {
	return VoiceOptions{SynthTakes: 2, SynthSeed: 1, RealWeight: 1,
		Engines: EngineVoices{Set: datasets.DefaultVoiceSetOptions()}, AugmentRanges: SpeakerAugmentRanges()}
}

// SpeakerAugmentRanges are the augmentation ranges of a digit model's
// wave copies: what another adult's voice and room change (±150 cents,
// 0.87–1.15× tempo, vocal tract ±10 %, noise at 15–35 dB, a room or a
// telephone one time in five, ±6 dB), milder than augment.DefaultRanges:
// the feature-level ±400 cent copies of the first round blurred the classes.
func SpeakerAugmentRanges() augment.Ranges {
	return augment.Ranges{Cents: 150, MaxTempo: 1.15, Warp: 0.1, Noises: []string{"white", "pink", "background"},
		SNR: [2]float64{15, 35}, Reverb: 0.2, MaxRT60: 0.4, Phone: 0.2, Codecs: []string{"", "u-law", "gsm"}, LevelDB: 6}
}

// Used reports whether the options add any row to the recordings' own.
func (o VoiceOptions) Used() bool {
	return o.SynthVoices > 0 || len(o.Engines.Engines) > 0 || o.Real.Dir != "" || o.WaveAugment > 0 || o.RealWeight > 1 || len(o.Speeds) > 0 || len(o.OnsetTrimMs) > 0 || len(o.OffsetTrimMs) > 0 || o.PadMs > 0
}

// describe records in a model's meta what widened its training set, so
// the model file carries its recipe.
func (o VoiceOptions) describe(meta map[string]any) {
	if o.SynthVoices > 0 {
		meta["synth_voices"] = fmt.Sprintf("espeak-ng %d voices × %d takes, seed %d", o.SynthVoices, o.SynthTakes, o.SynthSeed)
	}
	if len(o.Engines.Engines) > 0 {
		s := o.Engines.Set
		meta["engine_voices"] = fmt.Sprintf("%s: %d speakers each, ±%g cents, tempo to %g×, %d takes, seed %d",
			strings.Join(o.Engines.Engines, ","), s.Speakers, s.Cents, s.MaxTempo, s.Takes, s.Seed)
	}
	if o.Real.Dir != "" {
		meta["real_voices"] = fmt.Sprintf("the voices folder's real voices but %v, ×%d", o.Real.Exclude, max(o.Real.Copies, 1))
	}
	if o.WaveAugment > 0 {
		meta["wave_augment"] = fmt.Sprintf("%d copies within %+v", o.WaveAugment, o.AugmentRanges)
	}
}

// Synth builds (or finds in SynthDir and Engines.Dir) the synthetic
// recordings at the given sample rate: espeak-ng's SynthVoices speakers,
// then every engine's digits; none without either.
func (o VoiceOptions) Synth(rate int) ([]datasets.Recording, error) {
	var out []datasets.Recording
	if err := (datasets.EspeakEngine{}).Available(); err != nil && o.SynthVoices > 0 && o.Engines.SkipMissing {
		fmt.Fprintf(orDiscard(o.Engines.Log), "espeak-ng: left out: %v\n", err)
		o.SynthVoices = 0
	}
	if o.SynthVoices > 0 {
		bar := progress.New(orDiscard(o.Engines.Log), "espeak-ng voices", int64(o.SynthVoices*o.SynthTakes*10), "files")
		recs, err := datasets.BuildSynthDigitsProgress(o.SynthDir,
			datasets.SynthDigitOptions{Voices: o.SynthVoices, Takes: o.SynthTakes, Seed: o.SynthSeed, Rate: rate},
			func(n int) { bar.Add(int64(n)) })
		bar.Finish()
		if err != nil {
			return nil, err
		}
		out = recs
	}
	if len(o.Engines.Engines) > 0 {
		ev := o.Engines
		ev.Set.Rate = rate
		sets, err := BuildEngineVoices(ev, ev.SkipMissing, ev.Log)
		if err != nil {
			return nil, err
		}
		for _, s := range sets {
			out = append(out, s.Digits...)
		}
	}
	real, err := o.Real.recordings()
	return append(out, real...), err
}

// WaveWarp transforms a recording before its word vector is computed.
type WaveWarp func(samples []float32, rate int) ([]float32, error)

// Condition is how a recording is heard when its word vector is computed:
// clean, or warped, trimmed or padded (training copies, test-time
// distortions of the mismatch evaluation).
type Condition struct {
	// Name tells conditions apart in a vector cache and in tables.
	Name string
	Warp WaveWarp
	// OnsetTrimMs moves the start of the detected speech region this much
	// later (frontend.WordVectorTrimmed; 0: the whole region).
	OnsetTrimMs float64
	// OffsetTrimMs moves its end this much earlier (0: the whole region).
	OffsetTrimMs float64
	// PadMs of noise at the recording's own background level go before
	// and after it (datasets.PadSilence), as a live segmenter's padding
	// around a word in a stream.
	PadMs float64
}

// Clean is the recordings as they are.
var Clean = Condition{Name: "clean"}

// WordVectors computes the word vectors of recs under condition c, on all
// cores, reporting progress to log.
func WordVectors(recs []datasets.Recording, wc frontend.WordConfig, c Condition, log io.Writer) (blas32.General, error) {
	x := linalg.NewGeneral32(len(recs), wc.Dim())
	bar := progress.New(orDiscard(log), "word vectors", int64(len(recs)), "files")
	defer bar.Finish()
	err := parallel.ForErr(len(recs), func(i int) error {
		v, err := wordVectorOfFile(recs[i].Path, wc, c)
		bar.Add(1)
		if err != nil {
			return err
		}
		copy(linalg.Row32(x, i), v)
		return nil
	})
	return x, err
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func wordVectorOfFile(path string, wc frontend.WordConfig, c Condition) ([]float32, error) {
	a, err := frontend.ReadAudio(path, 0) // WAV or SPHERE (TIDIGITS), told apart by the header
	if err != nil {
		return nil, err
	}
	if c.Warp != nil {
		if a.Samples, err = c.Warp(a.Samples, a.Rate); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if a.Rate != wc.Audio.SampleRate {
		if a, err = frontend.Resample(a, wc.Audio.SampleRate); err != nil {
			return nil, err
		}
	}
	if c.PadMs > 0 {
		a.Samples = PaddedCopy(path, a, c.PadMs)
	}
	return frontend.WordVectorTrimmed(wc, a.Samples, c.OnsetTrimMs, c.OffsetTrimMs)
}

// PaddedCopy returns the recording at path (its audio a) with padMs of
// noise at its background level before and after it. The noise is seeded
// by the file's name, so a copy is the same in every run and fold.
// (The command line bounds the padding.)
func PaddedCopy(path string, a *frontend.Audio, padMs float64) []float32 {
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(path)))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x70616473))
	return datasets.PadSilence(a.Samples, a.Rate, padMs/1000, padMs/1000, rng)
}

// VectorCache keeps word vectors by condition and file across the splits
// and seeds of an evaluation, so each is computed once.
type VectorCache map[string][]float32

// CachedWordVectors is WordVectors through cache: only the recordings it
// lacks under c are computed.
func CachedWordVectors(recs []datasets.Recording, wc frontend.WordConfig, cache VectorCache, c Condition, log io.Writer) (blas32.General, error) {
	key := func(r datasets.Recording) string { return c.Name + "\x00" + r.Path }
	var missing []datasets.Recording
	for _, r := range recs {
		if _, ok := cache[key(r)]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		x, err := WordVectors(missing, wc, c, log)
		if err != nil {
			return blas32.General{}, err
		}
		for i, r := range missing {
			cache[key(r)] = linalg.Row32(x, i)
		}
	}
	x := linalg.NewGeneral32(len(recs), wc.Dim())
	for i, r := range recs {
		copy(linalg.Row32(x, i), cache[key(r)])
	}
	return x, nil
}

// SpeedCondition plays a recording factor times faster: the samples are
// declared to be at rate·factor and resampled back to rate, which scales
// time by 1/factor and every frequency by factor, as a speaker with a
// shorter vocal tract talking faster would.
func SpeedCondition(factor float64) Condition {
	return Condition{Name: fmt.Sprintf("speed %gx", factor), Warp: func(x []float32, rate int) ([]float32, error) {
		from := int(math.Round(float64(rate) * factor))
		a, err := frontend.Resample(&frontend.Audio{Rate: from, Samples: x}, rate)
		if err != nil {
			return nil, err
		}
		return a.Samples, nil
	}}
}

// AugmentCondition is copy number k of a recording changed by a plan
// drawn within r from the recording's samples and k, so a copy is the
// same in every run and fold.
func AugmentCondition(r augment.Ranges, k int) Condition {
	name := fmt.Sprintf("augment %d %+v", k, r)
	return Condition{Name: name, Warp: func(x []float32, rate int) ([]float32, error) {
		h := fnv.New64a()
		var b [4]byte
		for _, v := range x {
			u := math.Float32bits(v)
			b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			h.Write(b[:])
		}
		a, err := augment.Draw(r, h.Sum64()+uint64(k)).Apply(&frontend.Audio{Rate: rate, Samples: x})
		if err != nil {
			return nil, err
		}
		return a.Samples, nil
	}}
}

// TrainingRows is a training set after widening: its word vectors, one
// recording per row (speed copies renamed to a speaker of their own, as a
// speaker normaliser must see them apart), and a group per row: the rows
// that come from one real recording (repeats, speed copies) share it, so
// holding a group out to choose λ leaves no copy of it behind. Groups is
// nil when every row is a recording of its own.
type TrainingRows struct {
	X      blas32.General
	Recs   []datasets.Recording
	Groups []int
}

// rowBlock is recordings heard under one condition, with a group per row:
// the row's source recording.
type rowBlock struct {
	recs   []datasets.Recording
	cond   Condition
	groups []int
}

// Rows returns the training rows of the real recordings and the synthetic
// ones (from Synth) as the options widen them; cache keeps word vectors
// across calls.
func (o VoiceOptions) Rows(real, synth []datasets.Recording, wc frontend.WordConfig, cache VectorCache, log io.Writer) (TrainingRows, error) {
	// numbered gives recordings the groups first, first+1, ….
	numbered := func(recs []datasets.Recording, first int) []int {
		g := make([]int, len(recs))
		for i := range g {
			g[i] = first + i
		}
		return g
	}
	realGroups, synthGroups := numbered(real, 0), numbered(synth, len(real))
	var blocks []rowBlock
	for k := 0; k < o.RealWeight; k++ {
		blocks = append(blocks, rowBlock{real, Clean, realGroups})
		for _, s := range o.Speeds {
			c := SpeedCondition(s)
			renamed := make([]datasets.Recording, len(real))
			for i, r := range real {
				r.Speaker = fmt.Sprintf("%s@%g", r.Speaker, s)
				renamed[i] = r
			}
			blocks = append(blocks, rowBlock{renamed, c, realGroups})
		}
	}
	if len(synth) > 0 {
		blocks = append(blocks, rowBlock{synth, Clean, synthGroups})
	}
	for k := 1; k <= o.WaveAugment; k++ {
		blocks = append(blocks, rowBlock{real, AugmentCondition(o.AugmentRanges, k), realGroups})
	}
	if voices, groups := o.realVoiceRows(synth, synthGroups); len(voices) > 0 {
		ranges := o.AugmentRanges
		if reflect.ValueOf(ranges).IsZero() {
			ranges = SpeakerAugmentRanges()
		}
		for k := 1; k < o.Real.Copies; k++ {
			blocks = append(blocks, rowBlock{voices, AugmentCondition(ranges, k), groups})
		}
	}
	copies, err := o.copyBlocks(real, realGroups, synth, synthGroups)
	if err != nil {
		return TrainingRows{}, err
	}
	return blockRows(append(blocks, copies...), wc, cache, log)
}

// realVoiceRows are the recordings among synth that are the real voices'
// (Synth adds them last), with their groups.
func (o VoiceOptions) realVoiceRows(synth []datasets.Recording, groups []int) ([]datasets.Recording, []int) {
	if o.Real.Dir == "" {
		return nil, nil
	}
	var recs []datasets.Recording
	var g []int
	root := filepath.Clean(o.Real.Dir) + string(filepath.Separator)
	for i, r := range synth {
		if strings.HasPrefix(filepath.Clean(r.Path), root) {
			recs = append(recs, r)
			g = append(g, groups[i])
		}
	}
	return recs, g
}

// copyBlocks are the onset-trimmed, offset-trimmed and padded copies of
// the real and synthetic recordings. Each keeps its source's speaker (the
// same voice and microphone, only cut later, as the unseen voices' clipped
// words are normalised with their own voice's statistics) and its group
// (so the λ hold-out never splits a recording from its copy).
func (o VoiceOptions) copyBlocks(real []datasets.Recording, realGroups []int, synth []datasets.Recording, synthGroups []int) ([]rowBlock, error) {
	trimmed := func(recs []datasets.Recording, groups []int) ([]datasets.Recording, []int) {
		if o.TrimLabels == nil {
			return recs, groups
		}
		var r []datasets.Recording
		var g []int
		for i, rec := range recs {
			if o.TrimLabels[rec.Label] {
				r = append(r, rec)
				g = append(g, groups[i])
			}
		}
		return r, g
	}
	for l := range o.TrimLabels {
		if !slices.ContainsFunc(real, func(r datasets.Recording) bool { return r.Label == l }) &&
			!slices.ContainsFunc(synth, func(r datasets.Recording) bool { return r.Label == l }) {
			return nil, fmt.Errorf("--onset-trim-labels: no training recording is labelled %q (labels are %v)", l, datasets.Labels(real, synth))
		}
	}
	var blocks []rowBlock
	// copies adds a block of real and one of synthetic recordings (those
	// that exist) under condition c.
	copies := func(c Condition, real []datasets.Recording, realGroups []int, synth []datasets.Recording, synthGroups []int) {
		if len(real) > 0 {
			blocks = append(blocks, rowBlock{real, c, realGroups})
		}
		if len(synth) > 0 {
			blocks = append(blocks, rowBlock{synth, c, synthGroups})
		}
	}
	trimReal, trimRealGroups := trimmed(real, realGroups)
	trimSynth, trimSynthGroups := trimmed(synth, synthGroups)
	for _, ms := range o.OnsetTrimMs {
		copies(Condition{Name: fmt.Sprintf("onset trim %gms", ms), OnsetTrimMs: ms}, trimReal, trimRealGroups, trimSynth, trimSynthGroups)
	}
	// Offset-trimmed copies are of every label.
	for _, ms := range o.OffsetTrimMs {
		copies(Condition{Name: fmt.Sprintf("offset trim %gms", ms), OffsetTrimMs: ms}, real, realGroups, synth, synthGroups)
	}
	if o.PadMs > 0 {
		copies(Condition{Name: fmt.Sprintf("padded %gms", o.PadMs), PadMs: o.PadMs}, real, realGroups, synth, synthGroups)
	}
	return blocks, nil
}

// blockRows computes the word vectors of every block and stacks them.
func blockRows(blocks []rowBlock, wc frontend.WordConfig, cache VectorCache, log io.Writer) (TrainingRows, error) {
	var out TrainingRows
	n := 0
	for _, b := range blocks {
		n += len(b.recs)
	}
	out.X = linalg.NewGeneral32(n, wc.Dim())
	at := 0
	for _, b := range blocks {
		x, err := CachedWordVectors(b.recs, wc, cache, b.cond, log)
		if err != nil {
			return out, err
		}
		copy(out.X.Data[at*wc.Dim():], x.Data)
		out.Recs = append(out.Recs, b.recs...)
		out.Groups = append(out.Groups, b.groups...)
		at += len(b.recs)
	}
	return out, nil
}

// GroupHoldOut lists the rows of a random frac of the groups, with every
// row of each chosen group, for choosing λ on recordings the fit has no
// copy of. rows may exceed len(groups) when copies follow in blocks of
// len(groups) (warped augmentation); row i then belongs to group
// groups[i % len(groups)].
func GroupHoldOut(groups []int, rows int, frac float64, seed uint64) ([]int, error) {
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
