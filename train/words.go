package train

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// WordOptions say how a word model is trained (Words): on FSDD (its
// official training takes, or every take with Split "all") or on a
// manifest.
type WordOptions struct {
	FSDD     string // the FSDD recordings folder
	Manifest string // a TSV of path, label, speaker to train on instead of FSDD
	Split    string // FSDD: "official" (takes 5-49) or "all"
	Exclude  string // comma-separated FSDD speakers left out
	// Voices widen the training set (synthetic voices, speed copies,
	// trimmed and padded copies); unused: the recordings alone.
	Voices VoiceOptions
	// VoiceNorm removes every training voice's mean log-mel spectrum;
	// Rounds make the model adaptable (engine.Adaptation).
	VoiceNorm bool
	Rounds    []float64
	// AloneCopies (with VoiceNorm) adds a copy of every training row
	// normalised as a voice's first recording is in a session
	// (engine.NormaliseAsFirst), so the model also knows voices as it
	// hears them before it has learnt them.
	AloneCopies bool
	Map         MapOptions
	// Orbit is the group an invariant map pools over (Map.Kind
	// "invariant" with no Map.Group of its own).
	Orbit WarpOrbit
	Word  frontend.WordConfig
	// Log receives progress and a summary line.
	Log io.Writer
}

// DefaultDigitOptions are how the default digit model is trained: maxout
// m=3000 on FSDD's official training takes, 50 espeak-ng voices and 24
// flite and festival speakers (rfstream data voices), with the speech
// detector's noise-floor rule off and gaps of at most 100 ms. The voices
// and the detector won issue 37's first any-voice round on synthesisers
// held out of training (experiments/journal/audio.md, "Any voice, round 1").
func DefaultDigitOptions() WordOptions {
	o := WordOptions{Split: "official", Voices: DefaultVoiceOptions(), Map: DefaultMapOptions("maxout", 3000),
		Word: frontend.DefaultWordConfig(), Orbit: DefaultWarpOrbit()}
	o.Voices.SynthVoices = 50
	o.Voices.Engines.Engines = []string{"flite", "festival"}
	o.Word.FloorShare, o.Word.MaxGapMs = -1, 100
	return o
}

// DefaultAdaptableDigitOptions are how the default adaptable digit model
// (rfstream recognize --adapt, the live commands' --adaptable) is trained:
// every FSDD recording plus 50 synthetic voices, speaker CMVN, the speech
// detector's noise-floor rule off with gaps of at most 100 ms, and ten
// self-training rounds. That is the setting most folds of the nested
// leave-one-speaker-out evaluation chose (experiments/journal/audio.md, ninth round:
// synthetic 50 + st10, 95.10 % on voices absent from training).
func DefaultAdaptableDigitOptions() WordOptions {
	o := DefaultDigitOptions()
	o.Split = "all"
	o.Voices.SynthVoices = 50
	o.Voices.Engines.Engines = nil // its nested choice was made without them
	o.VoiceNorm = true
	o.Rounds = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	o.Word.FloorShare, o.Word.MaxGapMs = -1, 100
	return o
}

// Words trains a word model. Its phases (WordRows, SpeakerNorm,
// MapOptions.Build, FitWords) are the ones eval digits runs on each split,
// so a model trained on a split's training recordings is the one that
// evaluation fitted (rows, λ hold-out, normalisation and seed alike).
func Words(o WordOptions) (*engine.Model, error) {
	recs, err := WordRecordings(o)
	if err != nil {
		return nil, err
	}
	wc := o.Word
	start := time.Now()
	labels := datasets.Labels(recs)
	if o.Voices.Engines.Log == nil {
		o.Voices.Engines.Log = o.Log
	}
	synth, err := o.Voices.Synth(wc.Audio.SampleRate)
	if err != nil {
		return nil, err
	}
	rows, err := WordRows(recs, synth, o.Voices, wc, VectorCache{}, o.Log)
	if err != nil {
		return nil, err
	}
	y, err := Indices(rows.Recs, LabelIndex(labels))
	if err != nil {
		return nil, err
	}
	x, groups := rows.X, rows.Groups
	var voiceMean []float32
	if o.VoiceNorm {
		x, y, groups, voiceMean = voiceNormalised(rows, y, wc.Audio.Mels, o.AloneCopies)
	}
	if o.Map.Group == nil {
		spec := o.Orbit.Spec(wc)
		o.Map.Group = &spec
	}
	mp, sel, err := o.Map.Build(x, y, len(labels), o.Log)
	if err != nil {
		return nil, err
	}
	// Copies of a recording (synthetic takes aside, every row is one
	// recording unless the voice options add copies) are held out together.
	rls, rep, err := FitWords(mp, x, y, len(labels), rows.Recs, groups, x.Rows, WordFit{LambdaBy: "random", Seed: o.Map.Seed, Progress: o.Log})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(orDiscard(o.Log), "trained a word model on %d recordings (%d rows, %d labels, %s, λ=%.3g) in %.1fs\n",
		len(recs), x.Rows, len(labels), o.Map.Label(mp), rep.Lambda, time.Since(start).Seconds())
	model := engine.NewWordModel(wc, mp, rls, labels)
	model.Meta = map[string]any{"recordings": len(recs), "rows": x.Rows, "source": firstNonEmpty(o.Manifest, o.FSDD), "split": o.Split}
	o.Voices.describe(model.Meta)
	if o.Exclude != "" {
		model.Meta["excluded_speakers"] = o.Exclude
	}
	if o.AloneCopies {
		model.Meta["alone_copies"] = true
	}
	if sel != nil {
		model.Meta["selection"] = sel
	}
	if o.VoiceNorm || len(o.Rounds) > 0 {
		a := engine.Adaptation{VoiceNorm: o.VoiceNorm, VoiceMean: voiceMean, Rounds: o.Rounds, Seed: o.Map.Seed, Lambda: rep.Lambda}
		if err := model.SetAdaptation(a, x, y); err != nil {
			return nil, err
		}
	}
	return model, nil
}

// WordRecordings are the recordings o trains on.
func WordRecordings(o WordOptions) ([]datasets.Recording, error) {
	if o.Manifest != "" {
		return datasets.ReadManifest(o.Manifest)
	}
	recs, err := datasets.FSDD(o.FSDD)
	if err == nil {
		recs, err = ExcludeSpeakers(recs, o.Exclude)
	}
	if err == nil && o.Split != "all" {
		recs, _ = datasets.OfficialSplit(recs)
	}
	return recs, err
}

// WordRows is the rows phase: the word vectors of the training recordings
// recs, widened as voices say (synth are the synthetic recordings,
// voices.Synth's), through cache.
func WordRows(recs, synth []datasets.Recording, voices VoiceOptions, wc frontend.WordConfig, cache VectorCache, log io.Writer) (TrainingRows, error) {
	if !voices.Used() {
		x, err := CachedWordVectors(recs, wc, cache, Clean, log)
		return TrainingRows{X: x, Recs: recs}, err
	}
	labels := datasets.Labels(recs)
	rows, err := voices.Rows(recs, synth, wc, cache, log)
	if err != nil {
		return rows, err
	}
	if got := datasets.Labels(rows.Recs); len(got) != len(labels) {
		return rows, fmt.Errorf("synthetic voices say the digits 0-9, the training set's labels are %v", labels)
	}
	return rows, nil
}

// voiceNormalised is Words' normalisation phase: every training voice's
// mean spectrum removed from its rows, and with aloneCopies a copy of
// every row normalised as a voice's first recording is (held out with its
// original when λ is chosen). It returns the rows, labels and groups to
// fit, and the training voices' average mean spectrum.
func voiceNormalised(rows TrainingRows, y []int, mels int, aloneCopies bool) (blas32.General, []int, []int, []float32) {
	x, groups := rows.X, rows.Groups
	norm := NewSpeakerNorm(x, rows.Recs, mels, false)
	voiceMean := norm.AverageMean()
	var copies blas32.General
	var all []int
	if aloneCopies { // made from the rows before normalisation
		all = identity(x.Rows)
		copies = linalg.AppendRows32(blas32.General{Cols: x.Cols}, x, all)
		for i := range copies.Rows {
			engine.NormaliseAsFirst(linalg.Row32(copies, i), voiceMean, engine.DefaultVoicePrior)
		}
	}
	norm.Apply(x, rows.Recs)
	if !aloneCopies {
		return x, y, groups, voiceMean
	}
	x = linalg.AppendRows32(x, copies, all)
	y = append(slices.Clone(y), y...)
	// A recording's copy is held out with it when λ is chosen.
	if groups == nil {
		groups = all
	}
	groups = append(slices.Clone(groups), groups...)
	return x, y, groups, voiceMean
}

// WordFit says how FitWords chooses λ.
type WordFit struct {
	Lambda   float64 // the ridge parameter; 0 chooses it on held-out rows
	LambdaBy string  // hold out "random" recordings (a tenth) or a "speaker"
	Seed     uint64
	Progress io.Writer
}

// FitWords is the fit phase: the RLS read-out on map mp of the rows x
// (labels y), whose first recordings rows are the training recordings recs
// grouped by groups (LambdaRows) and any further rows copies of them in
// blocks.
func FitWords(mp features.Map, x blas32.General, y []int, classes int, recs []datasets.Recording, groups []int, recordings int, f WordFit) (*classifier.RLS, classifier.FitReport, error) {
	opt := classifier.FitOptions{Lambda: f.Lambda, Seed: f.Seed, Progress: f.Progress}
	if f.Lambda == 0 {
		var bySpeaker bool
		var err error
		if opt.HeldOutRows, bySpeaker, err = LambdaRows(f.LambdaBy, recs, groups, recordings, x.Rows, f.Seed); err != nil {
			return nil, classifier.FitReport{}, err
		}
		if bySpeaker {
			// New voices may want far more smoothing than new takes.
			opt.Grid = []float64{1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1}
		}
	}
	return classifier.FitRLS(mp, x, y, classes, opt)
}

// LabelIndex maps every label to its class.
func LabelIndex(labels []string) map[string]int {
	m := make(map[string]int, len(labels))
	for i, l := range labels {
		m[l] = i
	}
	return m
}

// Indices are the classes of the recordings' labels.
func Indices(recs []datasets.Recording, idx map[string]int) ([]int, error) {
	out := make([]int, len(recs))
	for i, r := range recs {
		j, ok := idx[r.Label]
		if !ok {
			return nil, fmt.Errorf("%s: label %q does not occur in the training set", r.Path, r.Label)
		}
		out[i] = j
	}
	return out, nil
}

// ExcludeSpeakers drops the recordings of the comma-separated speakers
// (none when the list is empty), keeping the order of the rest.
func ExcludeSpeakers(recs []datasets.Recording, list string) ([]datasets.Recording, error) {
	if list == "" {
		return recs, nil
	}
	drop := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		drop[strings.TrimSpace(s)] = true
	}
	kept := recs[:0:0]
	for _, r := range recs {
		if !drop[r.Speaker] {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(recs) {
		return nil, fmt.Errorf("--exclude-speakers %q names no FSDD speaker (%v)", list, datasets.Speakers(recs))
	}
	return kept, nil
}

// WordGroup is the group an invariant map of word vectors pools over:
// pitch shifts up to ±cents and tempo factors in [1/tempo, tempo] of the
// log-mel templates.
func WordGroup(wc frontend.WordConfig, cents, tempo float64, fillMin bool) transforms.Spec {
	return WarpOrbit{Cents: cents, Tempo: tempo, FillMin: fillMin}.Spec(wc)
}

// WarpOrbit is the local subset of the voice's groups that the invariant
// map of word vectors transforms its templates by: pitch shifts within
// ±Cents, tempo factors within [1/Tempo, Tempo] and, when VTLN > 1,
// vocal-tract warps within [1/VTLN, VTLN] (formants move, harmonics stay;
// VTLNLifter cosine coefficients make the envelope, 0: 12).
type WarpOrbit struct {
	Cents      float64 `json:"cents"`
	Tempo      float64 `json:"tempo"`
	VTLN       float64 `json:"vtln,omitempty"`
	VTLNLifter int     `json:"vtln_lifter,omitempty"`
	FillMin    bool    `json:"fill_min,omitempty"`
}

// DefaultWarpOrbit is the paper's TIDIGITS orbit, ±400 cents and 0.5–2×
// speed, without vocal-tract warps (the orbit every invariant word map had
// before they existed; WarpOrbit.VTLN adds them).
func DefaultWarpOrbit() WarpOrbit { return WarpOrbit{Cents: 400, Tempo: 2} }

// Spec is the group for word vectors of wc: the spectro-warp group alone
// without VTLN (the spec every earlier model recorded), else its product
// with the spectro-vtln group (vocal tract warped first, then pitch and
// tempo).
func (o WarpOrbit) Spec(wc frontend.WordConfig) transforms.Spec {
	warp := transforms.Spec{Kind: transforms.SpectroKind, Params: transforms.MarshalParams(transforms.SpectroParams{Frames: wc.Frames, Mels: wc.Audio.Mels,
		LowHz: wc.Audio.LowHz, HighHz: float64(wc.Audio.SampleRate) / 2, Cents: o.Cents, Tempo: o.Tempo, FillMin: o.FillMin})}
	if o.VTLN <= 1 {
		return warp
	}
	lifter := o.VTLNLifter
	if lifter == 0 {
		lifter = 12
	}
	vtln := transforms.Spec{Kind: transforms.SpectroVTLNKind, Params: transforms.MarshalParams(transforms.SpectroVTLNParams{Frames: wc.Frames, Mels: wc.Audio.Mels,
		LowHz: wc.Audio.LowHz, HighHz: float64(wc.Audio.SampleRate) / 2, Alpha: o.VTLN, Lifter: lifter})}
	return transforms.Spec{Kind: transforms.ProductKind, Params: transforms.MarshalParams(transforms.ProductParams{Factors: []transforms.Spec{warp, vtln}})}
}

// identity is 0, 1, …, n-1.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
