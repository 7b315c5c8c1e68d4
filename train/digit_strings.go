package train

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// DigitStringOptions say how a connected digit-string model is trained
// (DigitStrings): a frame classifier over HMM states, trained by alignment
// on FSDD's training takes, each padded with silence, and on strings joined
// from them.
type DigitStringOptions struct {
	Map  MapOptions
	FSDD string // the FSDD recordings folder; training uses takes 5-49
	// Classifier is the frame classifier: "rls" (scores → posteriors by a
	// fitted temperature) or "softmax".
	Classifier string
	Passes     int // re-alignments after the uniform bootstrap
	States     int // HMM states per digit
	SilStates  int // HMM states of silence
	// SoftmaxFrames caps the frames the softmax trains on (features are
	// held in memory); Optimizer ("adam" or "lbfgs"), SoftmaxLambda (L2
	// weight on standardised features) and SoftmaxIter (0: the optimiser's
	// default) set its fit.
	SoftmaxFrames int
	Optimizer     string
	SoftmaxLambda float64
	SoftmaxIter   int
	RLSLambda     float64 // rls: the ridge parameter (0: chosen on held-out frames)
	// PadMin and PadMax bound the background-level silence added before
	// and after each recording, in seconds.
	PadMin, PadMax float64
	// Tune chooses the word penalty, acoustic scale and prior scale on
	// DevStrings strings of held-out training recordings (takes 5-9).
	Tune       bool
	DevStrings int
	// TunePriorScale, when positive, holds the prior scale at this value
	// while tuning chooses the word penalty and acoustic scale: the dev
	// strings are padded, and a tuning free to lower the prior scale can
	// pick one that loses words recorded tight to their edges (the "oh"
	// model of experiments/journal/oh.md, rounds 1 and 3). 0: the prior
	// scale is chosen from the grid too.
	TunePriorScale float64
	// DevVoiceSpeakers, with Tune and engine voices (Voices.Engines),
	// adds to the dev strings the whole spoken strings of this many new
	// speakers of each training engine (a voice set of the next seed,
	// never trained on), so the decoder is tuned on fluent strings of
	// unheard voices too (0: FSDD's dev strings alone).
	DevVoiceSpeakers int
	// WideTune searches WideTuneGrid instead of DefaultTuneGrid.
	WideTune bool
	// RecordingCopies trains on the given recordings (FSDD's) this many
	// times, each copy padded afresh, weighing them against the engines'
	// voices (0 or 1: once). Held-out takes are never copied.
	RecordingCopies int
	// NoisyCopies adds this many more copies of the given recordings (not
	// held out), each padded afresh and mixed with its own seeded noise at
	// an SNR within NoisySNR (noisyCopies). Empty in the JSON when unused,
	// so recipes without it keep their fingerprints.
	NoisyCopies int        `json:",omitempty"`
	NoisySNR    [2]float64 `json:",omitzero"`
	// TrainStrings strings joined from training recordings (word times
	// known from their construction) are trained on too.
	TrainStrings int
	// Filler trains a filler unit that rejects words that are not digits
	// (Voices 0: none).
	Filler FillerOptions
	// Oh trains an "oh" unit (a 0 said "oh") from the filler's voices
	// (Takes 0, or no filler: none). Off in the defaults: the model of
	// round 1 (DefaultOhOptions) tuned its decoder to a prior scale that
	// loses FSDD's tight clips, and with the prior scale held at 1
	// (TunePriorScale) it still gets fewer FSDD words right than the model
	// without "oh" (experiments/journal/oh.md, round 3).
	Oh OhOptions
	// Voices add synthesisers' speakers and fluent strings (none in the
	// defaults; experiments/journal/anyvoice.md round K).
	Voices  ConnectedVoices
	Decoder engine.ConnectedDecoder
	Log     io.Writer
}

// DefaultDigitStringOptions are how the data cache's connected model is
// trained: the defaults of `rfstream train connected`.
func DefaultDigitStringOptions() DigitStringOptions {
	return DigitStringOptions{Map: DefaultMapOptions("maxout", 2000), Classifier: "rls", Passes: 4, States: 8, SilStates: 3,
		SoftmaxFrames: 60000, Optimizer: "adam", SoftmaxLambda: 1e-3, PadMin: 0.1, PadMax: 0.4, TrainStrings: 400,
		Tune: true, DevStrings: 100, Filler: DefaultFillerOptions(), Oh: OhOptions{Strings: DefaultOhOptions().Strings}, Decoder: defaultDigitStringDecoder()}
}

// defaultFillerBias is the default speech model's filler weight, chosen on
// the dev half of the non-digit words and voices by
// experiments/probes/reject: the largest of its grid with at most 2 % of
// dev digits (synthetic voices, FSDD takes 5-9) rejected
// (experiments/journal/reject.md). Decoder tuning (TuneConnected) decodes
// without it, as the model it was chosen on was tuned.
const defaultFillerBias = 0.25

func defaultDigitStringDecoder() engine.ConnectedDecoder {
	d := engine.DefaultConnectedDecoder()
	d.FillerBias = defaultFillerBias
	return d
}

// HeldOutTake: takes 5-9 of the training split are held out of the
// classifier's training, to choose λ and the temperature, measure held-out
// frame accuracy and tune the decoder; the test split (takes 0-4) is never
// used for any choice.
func HeldOutTake(r datasets.Recording) bool { return r.Take >= 5 && r.Take <= 9 }

// DigitStrings reads the FSDD training split, pads every recording with
// silence and trains a connected model by alignment, then tunes its
// decoder when o.Tune.
func DigitStrings(o DigitStringOptions) (*engine.Model, ConnectedReport, error) {
	var rep ConnectedReport
	if err := o.Map.RefuseSelect("connected digits"); err != nil {
		return nil, rep, err
	}
	recs, err := datasets.FSDD(o.FSDD)
	if err != nil {
		return nil, rep, err
	}
	trainRecs, _ := datasets.OfficialSplit(recs)
	m, rep, err := DigitStringsOn(o, trainRecs, HeldOutTake)
	if err != nil || !o.Tune {
		return m, rep, err
	}
	rep.Tuning, err = TuneDigitStrings(o, m, trainRecs)
	return m, rep, err
}

// DigitStringsOn trains a connected model on the given recordings (each
// padded with silence, plus joined strings when TrainStrings > 0); heldOut
// marks the recordings kept out of the classifier's training (nil: a
// seeded tenth). It does not tune the decoder.
func DigitStringsOn(o DigitStringOptions, trainRecs []datasets.Recording, heldOut func(datasets.Recording) bool) (*engine.Model, ConnectedReport, error) {
	var rep ConnectedReport
	held := func(r datasets.Recording) bool { return heldOut != nil && heldOut(r) }
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	copies, err := o.recordingCopies(trainRecs, held, rate)
	if err != nil {
		return nil, rep, err
	}
	noisy, err := o.noisyCopies(trainRecs, held, rate)
	if err != nil {
		return nil, rep, err
	}
	copies = append(copies, noisy...)
	trainRecs, voiceUtts, voices, err := o.withVoices(trainRecs, held, rate)
	if err != nil {
		return nil, rep, err
	}
	utts, err := o.paddedRecordings(trainRecs, held, rate, 0, nil)
	if err != nil {
		return nil, rep, err
	}
	utts = append(utts, copies...)
	utts = append(utts, voiceUtts...)
	if o.TrainStrings > 0 {
		strs, err := o.joinedStrings(trainRecs, held, rate)
		if err != nil {
			return nil, rep, err
		}
		utts = append(utts, strs...)
	}
	words := datasets.Labels(trainRecs)
	if o.Oh.Takes > 0 && o.Filler.Voices > 0 {
		ohs, err := o.Oh.utterances(o.Filler, rate, o.PadMin, o.PadMax)
		if err != nil {
			return nil, rep, err
		}
		utts = append(utts, ohs...)
		words = append(words, engine.OhLabel)
	}
	if o.Filler.Voices > 0 {
		filler, err := o.Filler.utterances(rate, o.PadMin, o.PadMax)
		if err != nil {
			return nil, rep, err
		}
		utts = append(utts, filler...)
		words = append(words, engine.FillerLabel)
	}
	m, rep, err := DigitStringsFrom(o, utts, words)
	if err == nil && o.TrainStrings > 0 {
		// The model learns the joined strings' pauses: say how they were
		// rendered, so a cached model from another rendering is retrained.
		m.Meta[engine.PausesMeta] = datasets.PauseRendering
	}
	if err == nil {
		// Recorded either way: a model trained without a filler on purpose
		// is not one that predates it.
		m.Meta[OhMeta] = o.Oh.describe(o.Filler)
		m.Meta[engine.FillerMeta] = "none"
		m.Meta[EngineVoicesMeta] = voices
		if o.Filler.Voices > 0 {
			m.Meta[engine.FillerMeta] = fmt.Sprintf("%d voices of seed %d", o.Filler.Voices, o.Filler.Seed)
		}
	}
	return m, rep, err
}

// DigitStringsFrom trains a connected model with o's classifier, states,
// map and decoder on utterances already read at the model's sample rate
// (a corpus's own strings and words: TIDIGITS); words is the vocabulary in
// class order. o's FSDD, padding and string settings are not used, and
// the decoder is not tuned.
func DigitStringsFrom(o DigitStringOptions, utts []Utterance, words []string) (*engine.Model, ConnectedReport, error) {
	in := engine.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = o.States, o.SilStates, o.Classifier
	recipe, err := o.Map.Recipe(in.Audio.Dim())
	if err != nil {
		return nil, ConnectedReport{}, err
	}
	seed := o.Map.Seed
	return Connected(utts, ConnectedOptions{
		Input: in, Decoder: o.Decoder, Map: recipe, Words: words, Passes: o.Passes,
		SoftmaxFrames: o.SoftmaxFrames, RLSLambda: o.RLSLambda, Seed: seed, Log: o.Log,
		Softmax: classifier.SoftmaxOptions{Optimizer: o.Optimizer, Lambda: o.SoftmaxLambda, MaxIter: o.SoftmaxIter, Seed: seed},
	})
}

// recordingCopies are the RecordingCopies-1 extra copies of the training
// recordings not held out, each copy padded with its own seeded silence.
func (o DigitStringOptions) recordingCopies(trainRecs []datasets.Recording, held func(datasets.Recording) bool, rate int) ([]Utterance, error) {
	if o.RecordingCopies < 0 || o.RecordingCopies > 10 {
		return nil, fmt.Errorf("train: %d copies of the recordings (0 to 10)", o.RecordingCopies)
	}
	pool := notHeld(trainRecs, held)
	var out []Utterance
	for c := 1; c < o.RecordingCopies; c++ {
		utts, err := o.paddedRecordings(pool, held, rate, uint64(c), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, utts...)
	}
	return out, nil
}

// paddedRecordings reads the training recordings at rate, each padded
// with seeded background-level silence (copy 0 is the recipe's own
// padding; another copy draws other silences) and then, when mix is not
// nil, changed by mix (given the recording as read and the same seeded
// source).
func (o DigitStringOptions) paddedRecordings(trainRecs []datasets.Recording, held func(datasets.Recording) bool, rate int, copyIndex uint64, mix func(rec *frontend.Audio, padded []float32, rng *rand.Rand) ([]float32, error)) ([]Utterance, error) {
	utts := make([]Utterance, len(trainRecs))
	errs := make([]error, len(trainRecs))
	parallel.For(len(trainRecs), func(i int) {
		a, err := frontend.ReadAudio(trainRecs[i].Path, rate)
		if err != nil {
			errs[i] = err
			return
		}
		rng := rand.New(rand.NewPCG(o.Map.Seed+copyIndex<<40, uint64(i)))
		lead := o.PadMin + (o.PadMax-o.PadMin)*rng.Float64()
		trail := o.PadMin + (o.PadMax-o.PadMin)*rng.Float64()
		padded := datasets.PadSilence(a.Samples, a.Rate, lead, trail, rng)
		if mix != nil {
			if padded, err = mix(a, padded, rng); err != nil {
				errs[i] = fmt.Errorf("%s: %w", trainRecs[i].Path, err)
				return
			}
		}
		utts[i] = Utterance{Samples: padded, Words: []string{trainRecs[i].Label}, HeldOut: held(trainRecs[i])}
	})
	return utts, errors.Join(errs...)
}

// joinedStrings renders TrainStrings strings joined from the recordings
// not held out, with the words' times known from their construction.
func (o DigitStringOptions) joinedStrings(trainRecs []datasets.Recording, held func(datasets.Recording) bool, rate int) ([]Utterance, error) {
	pool := notHeld(trainRecs, held)
	plans, err := datasets.PlanStrings(pool, datasets.StringOptions{Count: o.TrainStrings, Seed: o.Map.Seed + 2000})
	if err != nil {
		return nil, err
	}
	return renderPlans(plans, rate, func(i int) uint64 { return o.Map.Seed + uint64(i)<<20 })
}

// renderPlans renders string plans in parallel, each with the noise seed
// seedOf gives it, keeping each word's span from the string's construction.
func renderPlans(plans []datasets.StringPlan, rate int, seedOf func(i int) uint64) ([]Utterance, error) {
	out := make([]Utterance, len(plans))
	errs := make([]error, len(plans))
	parallel.For(len(plans), func(i int) {
		a, spans, err := datasets.RenderString(plans[i], rate, datasets.Noise{}, seedOf(i))
		if err != nil {
			errs[i] = err
			return
		}
		u := Utterance{Samples: a.Samples, Words: plans[i].Words()}
		for _, sp := range spans {
			u.Spans = append(u.Spans, [2]float64{sp.Start, sp.End})
		}
		out[i] = u
	})
	return out, errors.Join(errs...)
}

// TuneDigitStrings chooses the decoder settings on strings of the held-out
// training recordings (DigitStringDev) over o's grid (TuneGrid) and writes
// them into m.
func TuneDigitStrings(o DigitStringOptions, m *engine.Model, trainRecs []datasets.Recording) ([]TuneTrial, error) {
	dev, err := DigitStringDev(o, trainRecs)
	if err != nil {
		return nil, err
	}
	trials, err := TuneConnected(m, dev, o.TuneGrid())
	if err != nil {
		return nil, err
	}
	best := BestTrial(trials)
	fmt.Fprintf(orDiscard(o.Log), "connected: tuned on %d strings of held-out training recordings: word penalty %g, acoustic scale %g, prior scale %g (dev WER %.2f%%; untuned %.2f%%)\n",
		len(dev), best.WordPenalty, best.AcousticScale, best.PriorScale, 100*best.WER, 100*trials[0].WER)
	for _, g := range slices.Sorted(maps.Keys(best.GroupWER)) {
		fmt.Fprintf(orDiscard(o.Log), "connected: tuned setting's dev WER on %s: %.2f%%\n", g, 100*best.GroupWER[g])
	}
	return trials, nil
}

// TuneGrid is the grid TuneDigitStrings searches: DefaultTuneGrid
// (WideTuneGrid when WideTune), its prior scales replaced by
// TunePriorScale when that is set.
func (o DigitStringOptions) TuneGrid() TuneGrid {
	g := DefaultTuneGrid()
	if o.WideTune {
		g = WideTuneGrid()
	}
	if o.TunePriorScale > 0 {
		g.PriorScales = []float64{o.TunePriorScale}
	}
	return g
}

// DigitStringDev renders the DevStrings strings the decoder is tuned on,
// joined from the held-out training takes (HeldOutTake) of trainRecs
// (group FSDDDevGroup), and adds the unheard engine speakers' strings of
// DevVoiceSpeakers.
func DigitStringDev(o DigitStringOptions, trainRecs []datasets.Recording) ([]DevUtterance, error) {
	dev, err := fsddDevStrings(o, trainRecs)
	if err != nil {
		return nil, err
	}
	voices, err := o.devVoiceStrings(engine.DefaultConnectedInput().Audio.SampleRate)
	return append(dev, voices...), err
}

// fsddDevStrings are the DevStrings strings joined from the held-out
// training takes.
func fsddDevStrings(o DigitStringOptions, trainRecs []datasets.Recording) ([]DevUtterance, error) {
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	var held []datasets.Recording
	for _, r := range trainRecs {
		if HeldOutTake(r) {
			held = append(held, r)
		}
	}
	plans, err := datasets.PlanStrings(held, datasets.StringOptions{Count: o.DevStrings, Seed: o.Map.Seed + 1000})
	if err != nil {
		return nil, err
	}
	dev := make([]DevUtterance, len(plans))
	errs := make([]error, len(plans))
	parallel.For(len(plans), func(i int) {
		a, _, err := datasets.RenderString(plans[i], rate, datasets.Noise{}, uint64(i))
		dev[i], errs[i] = DevUtterance{Audio: a, Words: plans[i].Words(), Group: FSDDDevGroup}, err
	})
	return dev, errors.Join(errs...)
}
