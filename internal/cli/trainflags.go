package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

// ImageFlags registers the flags that locate an IDX data set and choose
// a training subset and the invariant map's group, with o's values as
// defaults.
func ImageFlags(fs *flag.FlagSet, o *train.ImageOptions) {
	fs.StringVar(&o.TrainImages, "train-images", o.TrainImages, "training images, IDX (default: MNIST from the data cache)")
	fs.StringVar(&o.TrainLabels, "train-labels", o.TrainLabels, "training labels, IDX")
	fs.StringVar(&o.TestImages, "test-images", o.TestImages, "test images, IDX")
	fs.StringVar(&o.TestLabels, "test-labels", o.TestLabels, "test labels, IDX")
	fs.IntVar(&o.PerClass, "per-class", o.PerClass, "train on this many examples per class (0: all)")
	fs.Uint64Var(&o.SubsetSeed, "subset-seed", o.SubsetSeed, "seed choosing the --per-class subset")
	fs.Float64Var(&o.Degrees, "degrees", o.Degrees, "invariant map: templates rotated within ±degrees")
	fs.Float64Var(&o.Shift, "shift", o.Shift, "invariant map: templates shifted within ±shift pixels (sub-pixel)")
	fs.IntVar(&o.RotationSteps, "rotation-steps", o.RotationSteps, "invariant map: rotate templates by the 2·steps+1 evenly spaced angles in ±degrees only (0: any angle)")
	fs.BoolVar(&o.IntegerShifts, "integer-shifts", o.IntegerShifts, "invariant map: shift templates by whole pixels only; with --rotation-steps the group is finite and --g 0 uses all of it")
	fs.BoolVar(&o.Deskew, "deskew", o.Deskew, "shear every image upright (zero slant, centre of mass centred) before normalising: training, test and template rows alike")
	fs.StringVar(&o.Normalize, "normalize", o.Normalize, "rows after pixels are scaled to [0, 1]: unit (length 1) or none")
}

// ThreadsFlag adds --blas-threads, for the commands that fit through
// train.ImageOptions.FitImages.
func ThreadsFlag(fs *flag.FlagSet, o *train.ImageOptions) {
	fs.IntVar(&o.BLASThreads, "blas-threads", o.BLASThreads, "BLAS threads per call while fitting; 0: one for a maxout map of m ≤ 2·q·(input length) on images that are mostly zeros (the map multiplies their nonzeros itself, and a second BLAS thread spends the fit spinning on the core it needs; larger m, whose Gram dominates, keep the BLAS's count: experiments/journal/results.md, \"Speed against NumPy\"), else the BLAS's own count")
}

// DigitStringFlags registers the training flags of connected digit
// strings, shared by train and eval connected, with o's values as defaults.
func DigitStringFlags(fs *flag.FlagSet, o *train.DigitStringOptions) {
	MapFlags(fs, &o.Map)
	fs.StringVar(&o.FSDD, "fsdd", defaults.FSDDDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD); training uses takes 5-49")
	fs.StringVar(&o.Classifier, "classifier", o.Classifier, "frame classifier: rls (scores → posteriors by a fitted temperature) or softmax")
	fs.IntVar(&o.Passes, "passes", o.Passes, "re-alignments after the uniform bootstrap")
	fs.IntVar(&o.States, "states", o.States, "HMM states per digit")
	fs.IntVar(&o.SilStates, "sil-states", o.SilStates, "HMM states of silence")
	fs.IntVar(&o.SoftmaxFrames, "softmax-frames", o.SoftmaxFrames, "softmax: training frames subsampled (features are held in memory)")
	fs.StringVar(&o.Optimizer, "optimizer", o.Optimizer, "softmax: adam or lbfgs")
	fs.Float64Var(&o.SoftmaxLambda, "softmax-lambda", o.SoftmaxLambda, "softmax: L2 weight on standardised features")
	fs.IntVar(&o.SoftmaxIter, "softmax-iter", o.SoftmaxIter, "softmax: L-BFGS iterations or Adam epochs (0: the optimiser's default)")
	fs.Float64Var(&o.RLSLambda, "lambda", o.RLSLambda, "rls: ridge parameter (0: choose on held-out frames)")
	fs.Float64Var(&o.PadMin, "pad-min", o.PadMin, "training: least background-level silence added before and after each recording, s")
	fs.Float64Var(&o.PadMax, "pad-max", o.PadMax, "training: most silence added, s")
	fs.IntVar(&o.TrainStrings, "train-strings", o.TrainStrings, "also train on this many strings joined from training recordings (word times known from their construction)")
	fs.BoolVar(&o.Tune, "tune", o.Tune, "choose the word penalty, acoustic and prior scales on strings of held-out training recordings (takes 5-9)")
	fs.IntVar(&o.DevStrings, "dev-strings", o.DevStrings, "strings built for tuning")
	fs.Float64Var(&o.TunePriorScale, "tune-prior-scale", o.TunePriorScale, "tuning: hold the prior scale at this value and choose only the word penalty and acoustic scale (0: choose the prior scale too)")
	fs.IntVar(&o.DevVoiceSpeakers, "dev-voice-speakers", o.DevVoiceSpeakers, "tuning, with --engine-voices: also tune on the whole spoken strings (10 each) of this many new speakers of each of those engines, never trained on (0: FSDD's dev strings alone)")
	fs.BoolVar(&o.WideTune, "wide-tune-grid", o.WideTune, "tuning: also try word bonuses (+5, +10, +20) and acoustic scales 1.5 and 2")
	fs.IntVar(&o.RecordingCopies, "recording-copies", o.RecordingCopies, "train on FSDD's recordings this many times, each copy padded afresh, to weigh them against --engine-voices (0 or 1: once)")
	fs.IntVar(&o.NoisyCopies, "noisy-copies", o.NoisyCopies, "also train on this many copies of FSDD's recordings, each mixed with seeded white, pink or background noise at an SNR within --noisy-snr")
	fs.Func("noisy-snr", "--noisy-copies: SNR range in dB against the recording, LO,HI (default 5,25)", func(v string) error {
		var lo, hi float64
		if _, err := fmt.Sscanf(v, "%g,%g", &lo, &hi); err != nil || !(lo <= hi) {
			return fmt.Errorf("want LO,HI in dB with LO ≤ HI, as 5,25")
		}
		o.NoisySNR = [2]float64{lo, hi}
		return nil
	})
	dec := &o.Decoder
	fs.Float64Var(&dec.SelfLoop, "self-loop", dec.SelfLoop, "decoder: HMM self-loop probability")
	fs.Float64Var(&dec.WordPenalty, "word-penalty", dec.WordPenalty, "decoder: log-domain cost of each word")
	fs.Float64Var(&dec.AcousticScale, "acoustic-scale", dec.AcousticScale, "decoder: weight of the scaled log-likelihoods")
	fs.Float64Var(&dec.PriorScale, "prior-scale", dec.PriorScale, "decoder: power of the state priors divided out")
	fs.Float64Var(&dec.Beam, "beam", dec.Beam, "decoder: beam (0: exact search)")
	if o.Filler.SynthDir == "" {
		o.Filler.SynthDir = defaults.SynthDigitsDir()
	}
	fs.IntVar(&o.Filler.Voices, "filler-voices", o.Filler.Voices, "train a filler unit that rejects words that are not digits on this many espeak-ng voices saying non-digit words (and the digits); 0: none, nothing is rejected")
	fs.StringVar(&o.Filler.RealWords, "filler-real-words", o.Filler.RealWords, "--filler-voices: also train the filler on three quarters of the real non-digit words in this voices folder (gcompris-en/words; the fourth quarter is held out for measuring; empty: none)")
	fs.BoolFunc("filler-phrases", "--filler-voices: also train the filler on the real phrases of six hedgewars voice packs (Debian main's hedgewars-data, GFDL-1.3, fetched into the data cache with apt-get download; four more packs are held out for measuring)", func(v string) error {
		on, err := strconv.ParseBool(v)
		o.Filler.Phrases = ""
		if on {
			o.Filler.Phrases = defaults.HedgewarsVoicesDir()
		}
		return err
	})
	fs.IntVar(&o.Oh.Takes, "oh-takes", o.Oh.Takes, "train an \"oh\" unit (0 said \"oh\", printed 0) on this many takes of \"oh\" by each filler voice; 0: no \"oh\"")
	fs.IntVar(&o.Oh.Strings, "oh-strings", o.Oh.Strings, "strings joined from the filler voices' digits and \"oh\"s, trained on with the \"oh\" unit")
	fs.Float64Var(&dec.FillerBias, "filler-bias", dec.FillerBias, "decoder: added to the filler's log-likelihoods at every frame (larger rejects more)")
	connectedVoiceFlags(fs, &o.Voices)
}

// connectedVoiceFlags registers the flags of train.ConnectedVoices: the
// synthesisers' voices and fluent strings a connected model trains on.
func connectedVoiceFlags(fs *flag.FlagSet, v *train.ConnectedVoices) {
	if v.Engines.Dir == "" {
		v.Engines.Dir = defaults.VoicesDir()
	}
	def := "none by default"
	if len(v.Engines.Engines) > 0 {
		def = "default " + strings.Join(v.Engines.Engines, ",") + "; empty: none"
	}
	fs.Func("engine-voices", "comma-separated synthesisers (espeak-ng, flite, festival; rfstream data voices builds them) whose speakers' digits are trained on as FSDD's recordings are ("+def+")", func(s string) error {
		v.Engines.Engines = nil
		for _, name := range strings.Split(s, ",") {
			if name = strings.TrimSpace(name); name != "" {
				if _, err := datasets.EngineByName(name); err != nil {
					return err
				}
				v.Engines.Engines = append(v.Engines.Engines, name)
			}
		}
		return nil
	})
	fs.BoolVar(&v.EngineStrings, "engine-strings", v.EngineStrings, "--engine-voices: also train on their whole spoken digit strings (words run together; placed by alignment)")
	fs.IntVar(&v.FluentStrings, "fluent-strings", v.FluentStrings, "also train on this many strings joined from the training recordings with 0 to --fluent-max-gap s between words")
	fs.Float64Var(&v.FluentMaxGap, "fluent-max-gap", v.FluentMaxGap, "--fluent-strings: longest pause between words, s (0: 0.05)")
	fs.Float64Var(&v.FluentMaxOverlap, "fluent-max-overlap", v.FluentMaxOverlap, "--fluent-strings: cut each word to its speech and overlap neighbours by up to this many s (0 with --fluent-max-tempo 1: short gaps instead)")
	fs.Float64Var(&v.FluentMaxTempo, "fluent-max-tempo", v.FluentMaxTempo, "--fluent-strings: play each cut string at a seeded tempo within 1/T to T (1: as rendered)")
	fs.StringVar(&v.Real.Dir, "real-voices", v.Real.Dir, "train also on the real recorded voices' digits in this folder (../shared/voices; empty: none)")
	fs.IntVar(&v.Real.Copies, "real-voice-copies", v.Real.Copies, "--real-voices: train on each real recording this many times, every copy after the first changed by its own seeded pitch/tempo/tract/noise/room plan")
}

// PhoneFlags registers the flags shared by train phones and eval phones,
// with o's values as defaults; the espeak-ng corpus is built in the data
// cache.
func PhoneFlags(fs *flag.FlagSet, o *train.PhoneOptions) {
	if o.EspeakDir == "" {
		o.EspeakDir = defaults.PhonesDir()
	}
	MapFlags(fs, &o.Map)
	fs.StringVar(&o.Corpus, "corpus", o.Corpus, "TIMIT-style corpus folder (audio + .PHN beside it, train/ and test/ folders); empty: the espeak-ng corpus in the data cache")
	fs.StringVar(&o.PhoneMap, "phone-map", o.PhoneMap, "phone map file folding phones before scoring (e.g. TIMIT 61→39: phone [48-set] 39-set per line)")
	fs.StringVar(&o.TrainMap, "train-map", o.TrainMap, "phone map file folding the corpus's labels before training (default: train on its phones as they are)")
	fs.StringVar(&o.Silence, "silence", o.Silence, "corpus labels that are silence (trained as the silence model, never scored)")
	fs.Float64Var(&o.DevFrac, "dev-speakers", o.DevFrac, "corpus: fraction of training speakers held out of the classifier, to tune the decoder")
	fs.StringVar(&o.Classifier, "classifier", o.Classifier, "frame classifier: rls or softmax")
	fs.IntVar(&o.Passes, "passes", o.Passes, "re-alignments after the flat start (or the corpus's phone times)")
	fs.Float64Var(&o.Lambda, "lambda", o.Lambda, "rls: ridge parameter (0: choose on held-out frames)")
	fs.BoolVar(&o.Bigram, "bigram", o.Bigram, "decode with a phone bigram estimated on the training transcripts (eval phones reports the plain phone loop too)")
	fs.BoolVar(&o.Tune, "tune", o.Tune, "choose the phone insertion penalty, acoustic and prior scales on the held-out training voices/speakers")
	fixed := "none"
	if o.Fixed != nil {
		fixed = o.Fixed.String()
	}
	fs.Func("fixed-decoder", fmt.Sprintf("the trained model's search instead of --tune: phone penalty,acoustic scale,prior scale,LM scale,silence probability,self-loop (none: tune; default %s)", fixed), func(s string) error {
		if s == "none" {
			o.Fixed = nil
			return nil
		}
		f, err := train.ParseFixedPhoneDecoder(s)
		o.Fixed = &f
		return err
	})
	e := &o.Espeak
	fs.IntVar(&e.TrainPerVoice, "train-per-voice", e.TrainPerVoice, "espeak corpus: sentences per training voice")
	fs.IntVar(&e.DevPerVoice, "dev-per-voice", e.DevPerVoice, "espeak corpus: sentences per development voice")
	fs.IntVar(&e.TestPerVoice, "test-per-voice", e.TestPerVoice, "espeak corpus: sentences per test voice")
	fs.Uint64Var(&e.Seed, "corpus-seed", e.Seed, "espeak corpus: seed of sentences, speeds and pitches")
	phoneVoiceFlags(fs, &o.Voices)
	dec := &o.Decoder
	fs.Float64Var(&dec.SelfLoop, "self-loop", dec.SelfLoop, "decoder: HMM self-loop probability (0.5: 2 frames a state on average)")
	fs.Float64Var(&dec.WordPenalty, "phone-penalty", dec.WordPenalty, "decoder: log-domain cost of each phone (replaced by tuning)")
	fs.Float64Var(&dec.Beam, "beam", dec.Beam, "decoder: beam (0: exact search)")
}

// phoneVoiceFlags registers the flags of train.PhoneVoices.
func phoneVoiceFlags(fs *flag.FlagSet, v *train.PhoneVoices) {
	if v.Dir == "" {
		v.Dir = defaults.PhoneVoicesDir()
	}
	if v.FSDD == "" {
		v.FSDD = defaults.FSDDDir()
	}
	list := func(name string, to *[]string, usage string) {
		fs.Func(name, usage+fmt.Sprintf(" (default %q)", strings.Join(*to, ",")), func(s string) error {
			*to = nil
			for _, e := range strings.Split(s, ",") {
				if e = strings.TrimSpace(e); e != "" {
					*to = append(*to, e)
				}
			}
			return nil
		})
	}
	list("engines", &v.Engines, "synthesisers whose voices train the phone model (espeak-ng,flite,festival; empty: the espeak-ng corpus alone)")
	list("score-engines", &v.Score, "synthesisers whose test speakers are scored (empty: those of --engines)")
	c := &v.Corpus
	fs.IntVar(&c.Speakers, "engine-speakers", c.Speakers, "flite/festival phone corpora: speakers per engine (its voices in turn; the last one per voice are test speakers, the one before a development speaker)")
	fs.IntVar(&c.PerSpeaker, "engine-sentences", c.PerSpeaker, "flite/festival phone corpora: sentences per speaker")
	fs.IntVar(&v.EspeakPerVoice, "espeak-per-voice", v.EspeakPerVoice, "with --engines: espeak-ng sentences per training voice (0: all)")
	fs.IntVar(&v.FSDDPerDigit, "fsdd-per-digit", v.FSDDPerDigit, "with --engines: FSDD recordings per digit and speaker, labelled with the digit word's phones (0: none)")
	fs.Float64Var(&v.Augment, "augment", v.Augment, "with --engines: fraction of training utterances given one augmented copy (pitch, tempo, vocal tract, noise, room, telephone, level)")
	fs.StringVar(&v.FirstLabels, "first-labels", v.FirstLabels, "with --engines: first labels of the flite, festival and FSDD utterances: engine (the engine's phone times; FSDD flat), flat (every one flat), aligned (forced alignment of each one's phones by --align-model)")
	fs.StringVar(&v.Real, "real-speech", v.Real, "with --engines: also train on the real recordings of this voices folder (e.g. ../shared/voices) by its registered training speakers, labelled with the lexicon's phones (empty: none)")
	fs.IntVar(&v.RealCopies, "real-copies", v.RealCopies, "with --real-speech: augmented copies of each real training recording, beside --augment's")
	fs.StringVar(&v.Lexicon, "lexicon", v.Lexicon, "the pronouncing dictionary of the real speech's words (empty: "+datasets.DefaultLexiconPath+", Debian's pocketsphinx-en-us)")
	fs.BoolVar(&v.LexiconLabels, "lexicon-labels", v.LexiconLabels, "with --engines: label every engine's sentences (and FSDD's digits) with the lexicon's phones of their words instead of the engines' own phones (first labels then flat, or --first-labels aligned)")
	fs.StringVar(&v.AlignModel, "align-model", v.AlignModel, "with --first-labels aligned: the phone model that aligns (empty: train the espeak-ng-only model first)")
}

// ShowImageExamples prints the first n test predictions of run beside the
// truth.
func ShowImageExamples(w io.Writer, run *train.ImageRun, n int) {
	if run.Pred == nil {
		return
	}
	fmt.Fprint(w, "examples (true→predicted):")
	for i := 0; i < n && i < len(run.Pred); i++ {
		mark := ""
		if run.Pred[i] != run.Test.Labels[i] {
			mark = "✗"
		}
		fmt.Fprintf(w, " %d→%d%s", run.Test.Labels[i], run.Pred[i], mark)
	}
	fmt.Fprintln(w)
}
