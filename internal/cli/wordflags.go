package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

// WordSet locates recordings: FSDD by default, or manifests.
type WordSet struct {
	FSDD          string
	TrainManifest string
	TestManifest  string
	Exclude       string // comma-separated speakers left out of every split
}

// WordSetFlags registers the flags of w.
func WordSetFlags(fs *flag.FlagSet, w *WordSet) {
	fs.StringVar(&w.FSDD, "fsdd", defaults.FSDDDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	fs.StringVar(&w.TrainManifest, "train-manifest", "", "TSV of path, label, speaker for training (instead of FSDD)")
	fs.StringVar(&w.TestManifest, "test-manifest", "", "TSV of path, label, speaker for testing")
	fs.StringVar(&w.Exclude, "exclude-speakers", "", "comma-separated FSDD speakers to leave out entirely (for cross-validation inside the training speakers)")
}

// WordConfigFlags exposes the word representation's settings, with wc's
// values as defaults.
func WordConfigFlags(fs *flag.FlagSet, wc *frontend.WordConfig) {
	fs.IntVar(&wc.Frames, "frames", wc.Frames, "word vector: frames after time resampling")
	fs.IntVar(&wc.Audio.Mels, "mels", wc.Audio.Mels, "word vector: log-mel bands")
	fs.Float64Var(&wc.RangeDB, "range-db", wc.RangeDB, "word vector: clamp log-mel values this far below the peak (0: off)")
	fs.Float64Var(&wc.LevelLiftDB, "level-lift-db", wc.LevelLiftDB, "word vector: raise every frame toward the loudest frame's level by at most this many dB, so weak fricatives count beside loud vowels (0: off)")
	fs.BoolVar(&wc.BandMean, "band-mean", wc.BandMean, "word vector: remove each band's mean over the word")
	fs.IntVar(&wc.Lifter, "lifter", wc.Lifter, "word vector: smooth each frame's log-mel spectrum to its first N cepstral coefficients (0: off)")
	fs.Float64Var(&wc.MarginDB, "margin-db", wc.MarginDB, "speech detector: frames within this many dB of the loud level are speech")
	fs.Float64Var(&wc.FloorShare, "floor-share", wc.FloorShare, "speech detector: frames must also rise this share of the way from the noise floor (5th percentile of energy) to the loud level (0: the default 1/3; negative: rule off, --margin-db alone)")
	fs.Float64Var(&wc.MaxGapMs, "max-gap-ms", wc.MaxGapMs, "speech detector: keep only the speech around the loudest frame, bridging quiet stretches up to this many ms (0: first to last frame above the threshold)")
}

// voiceLists are the voice flags given as comma-separated lists, parsed
// into train.VoiceOptions once the flags are.
type voiceLists struct {
	speeds, onsetTrims, offsetTrims, trimLabels, engines string
}

// VoiceFlags registers the flags that widen the voices a word model trains
// on (o's values as defaults; synthetic voices are cached in the data
// cache). The returned check, called once the flags are parsed, reads the
// lists they give into o and refuses values out of range.
func VoiceFlags(fs *flag.FlagSet, o *train.VoiceOptions) (check func() error) {
	if o.SynthDir == "" {
		o.SynthDir = defaults.SynthDigitsDir()
	}
	var l voiceLists
	fs.IntVar(&o.SynthVoices, "synth-voices", o.SynthVoices, "add this many synthetic espeak-ng speakers (accent + voice variant + speed + pitch drawn by --synth-seed) saying the ten digits to every training set (0: none)")
	fs.IntVar(&o.SynthTakes, "synth-takes", o.SynthTakes, "--synth-voices: takes of each digit per synthetic speaker (speed and pitch jittered)")
	fs.Uint64Var(&o.SynthSeed, "synth-seed", o.SynthSeed, "--synth-voices: seed of the voices and takes (audio cached under $RFSTREAM_DATA/synth-digits)")
	fs.IntVar(&o.RealWeight, "real-weight", o.RealWeight, "weight of every real training recording (and its speed copies) against a synthetic one: each is used this many times")
	fs.StringVar(&l.speeds, "speed-perturb", "", "comma-separated speed factors (e.g. 0.9,1.1): add a copy of every real training recording played this much faster (pitch and tempo together, Kaldi-style), as a new speaker")
	fs.StringVar(&l.onsetTrims, "onset-trim-ms", "", "comma-separated trims in ms (e.g. 60,120): add a copy of every training recording (real and synthetic, not speed copies) whose word vector starts this much after the detected speech start (at most half the region cut), as if the recording had been cut after the word began; test rows are never trimmed")
	fs.StringVar(&l.offsetTrims, "offset-trim-ms", "", "comma-separated trims in ms (e.g. 50,100): add a copy of every training recording (real and synthetic, not speed copies) whose word vector ends this much before the detected speech end (at most half the region cut), as a word cut from a stream whose background hides its decay; test rows are never trimmed")
	fs.StringVar(&l.trimLabels, "onset-trim-labels", "", "comma-separated training labels (e.g. 6,7) whose recordings get the --onset-trim-ms copies; empty: every label")
	fs.StringVar(&l.engines, "engine-voices", strings.Join(o.Engines.Engines, ","), "comma-separated synthesisers besides espeak-ng (flite, festival; rfstream data voices builds them) whose speakers say the ten digits in every training set (empty: none)")
	fs.BoolVar(&o.Engines.Set.BalanceSexes, "engine-balance-sexes", o.Engines.Set.BalanceSexes, "--engine-voices: draw the engines' male and female voices alternately (half the speakers female where an engine has a female voice) instead of every voice in turn")
	fs.IntVar(&o.WaveAugment, "wave-augment", o.WaveAugment, "add this many copies of every real training recording, each with seeded pitch, tempo, vocal-tract, noise, room, telephone and level changes (train.SpeakerAugmentRanges)")
	fs.StringVar(&o.Real.Dir, "real-voices", o.Real.Dir, "also train on the real recorded voices' digits in this folder (../shared/voices), each a speaker of its own (empty: none)")
	fs.IntVar(&o.Real.Copies, "real-voice-copies", o.Real.Copies, "--real-voices: each real recording this many times, the copies after the first changed as --wave-augment's are")
	fs.Float64Var(&o.PadMs, "pad-copies-ms", o.PadMs, "add a copy of every training recording (real and synthetic, not speed copies) with this many ms of noise at its own background level before and after it, as the live segmenter pads a word cut from a stream (0: none)")
	return func() error { return l.check(o) }
}

func (l voiceLists) check(o *train.VoiceOptions) error {
	if o.SynthVoices < 0 {
		return fmt.Errorf("--synth-voices %d: want ≥ 0", o.SynthVoices)
	}
	if o.Engines.Dir == "" {
		o.Engines.Dir = defaults.VoicesDir()
	}
	o.Engines.Engines = nil
	for _, name := range strings.Split(l.engines, ",") {
		if name = strings.TrimSpace(name); name != "" {
			if _, err := datasets.EngineByName(name); err != nil {
				return fmt.Errorf("--engine-voices: %w", err)
			}
			o.Engines.Engines = append(o.Engines.Engines, name)
		}
	}
	if o.WaveAugment < 0 || o.WaveAugment > 10 {
		return fmt.Errorf("--wave-augment %d: want 0 to 10", o.WaveAugment)
	}
	if o.SynthTakes < 1 {
		return fmt.Errorf("--synth-takes %d: want ≥ 1", o.SynthTakes)
	}
	if o.RealWeight < 1 || o.RealWeight > 100 {
		return fmt.Errorf("--real-weight %d: want 1 to 100", o.RealWeight)
	}
	var err error
	if o.OnsetTrimMs, err = parseTrims("--onset-trim-ms", l.onsetTrims); err != nil {
		return err
	}
	if o.OffsetTrimMs, err = parseTrims("--offset-trim-ms", l.offsetTrims); err != nil {
		return err
	}
	if o.TrimLabels, err = parseTrimLabels(l.trimLabels); err != nil {
		return err
	}
	if math.IsNaN(o.PadMs) || o.PadMs < 0 || o.PadMs > maxPadCopiesMs {
		return fmt.Errorf("--pad-copies-ms %g: want 0 to %d", o.PadMs, maxPadCopiesMs)
	}
	if o.TrimLabels != nil && len(o.OnsetTrimMs) == 0 {
		return errors.New("--onset-trim-labels: no --onset-trim-ms to apply")
	}
	o.Speeds, err = ParseDistinct("--speed-perturb", l.speeds, func(part string) (float64, error) {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(v) || v < 0.5 || v > 2 || v == 1 {
			return 0, fmt.Errorf("--speed-perturb: %q is not a speed factor in [0.5, 2] other than 1", part)
		}
		return v, nil
	})
	return err
}

// ParseDistinct reads a comma-separated flag value: each part, trimmed of
// spaces, through parse, none twice. An empty value is nil.
func ParseDistinct[T comparable](flagName, s string, parse func(part string) (T, error)) ([]T, error) {
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
	return ParseDistinct(name, s, func(part string) (float64, error) {
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
	labels, err := ParseDistinct("--onset-trim-labels", s, func(part string) (string, error) {
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

// maxSelfTrainRounds bounds the --self-train list.
const maxSelfTrainRounds = 40

// ParseSelfTrain reads --self-train: the fraction of an unseen voice's
// recordings taken as pseudo-labelled training examples in each round.
func ParseSelfTrain(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("--self-train: %q is not a fraction in (0, 1]", f)
		}
		out = append(out, v)
	}
	// Each round is one more refit of the read-out; the bound only keeps a
	// mistyped list from running for hours.
	if len(out) > maxSelfTrainRounds {
		return nil, fmt.Errorf("--self-train: %d rounds (at most %d)", len(out), maxSelfTrainRounds)
	}
	return out, nil
}

// WarpOrbitFlags registers the flags of the orbit an invariant map of word
// vectors pools over (train.WarpOrbit).
func WarpOrbitFlags(fs *flag.FlagSet, o *train.WarpOrbit) {
	fs.Float64Var(&o.Cents, "cents", o.Cents, "invariant map: pitch shifts of the templates up to ±cents")
	fs.Float64Var(&o.Tempo, "tempo", o.Tempo, "invariant map: tempo factors of the templates in [1/tempo, tempo]")
	fs.Float64Var(&o.VTLN, "vtln", o.VTLN, "invariant map: vocal-tract warps of the templates by factors in [1/vtln, vtln] (formants move, pitch stays; 0 or 1: none)")
	fs.IntVar(&o.VTLNLifter, "vtln-lifter", o.VTLNLifter, "invariant map, --vtln: cosine coefficients of a frame's log-mel spectrum that make the envelope the warp moves (0: 12)")
	fs.BoolVar(&o.FillMin, "warp-fill-min", o.FillMin, "pitch warps bring in silence (the patch's minimum) past the band edges instead of repeating the edge band")
}
