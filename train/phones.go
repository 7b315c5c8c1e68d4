package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// PhoneOptions say how a phone model is trained (LoadPhones,
// TrainPhoneModel, SetPhoneDecoder): 3-state phone HMMs over a frame
// classifier, trained by alignment on a corpus, decoded by a phone loop.
type PhoneOptions struct {
	Map MapOptions
	// Corpus is a TIMIT-style corpus folder (audio + .PHN beside it,
	// train/ and test/ folders); empty: the espeak-ng corpus, built in
	// EspeakDir as Espeak says.
	Corpus    string
	EspeakDir string
	Espeak    datasets.PhoneCorpusOptions
	// PhoneMap folds phones before scoring (e.g. TIMIT 61→39), TrainMap
	// the corpus's labels before training (files; empty: none).
	PhoneMap, TrainMap string
	// Silence lists the corpus labels that are silence (trained as the
	// silence model, never scored), comma-separated.
	Silence string
	// DevFrac is the fraction of a corpus's training speakers held out of
	// the classifier, to tune the decoder.
	DevFrac    float64
	Classifier string  // "rls" or "softmax"
	Passes     int     // re-alignments after the flat start (or the corpus's phone times)
	Lambda     float64 // rls: the ridge parameter (0: chosen on held-out frames)
	// Bigram decodes with a phone bigram estimated on the training
	// transcripts; Tune chooses the phone insertion penalty, acoustic and
	// prior scales on the held-out training voices/speakers.
	Bigram, Tune bool
	Decoder      engine.ConnectedDecoder
	// Fixed, when set, is the search the trained model is given in place
	// of tuning (Tune is then ignored; training's alignment still uses
	// Decoder).
	Fixed *FixedPhoneDecoder
	// Voices, when used, train on several synthesisers' voices, FSDD's
	// digit words and augmented copies instead of the espeak-ng corpus
	// alone (LoadVoicePhones).
	Voices PhoneVoices
}

// DefaultPhoneOptions are the defaults of `rfstream train phones`.
func DefaultPhoneOptions() PhoneOptions {
	dec := engine.DefaultConnectedDecoder()
	dec.SelfLoop = 0.5
	return PhoneOptions{Map: DefaultMapOptions("maxout", 2000), Silence: "h#,pau,epi,sil", DevFrac: 0.1, Classifier: "rls",
		Passes: 2, Bigram: true, Tune: true, Espeak: datasets.DefaultPhoneCorpus(), Decoder: dec,
		Voices: PhoneVoices{Corpus: datasets.DefaultEnginePhones(), SkipMissing: true, AugmentRanges: SpeakerAugmentRanges(), FirstLabels: FirstLabelsEngine}}
}

// PhoneTest is one test utterance.
type PhoneTest struct {
	Path, Speaker string
	// Engine is the synthesiser that spoke it ("" for a corpus's speakers).
	Engine string
	Phones []string
}

// PhoneData is a corpus ready for training and scoring.
type PhoneData struct {
	Source string
	Phones []string // the units, in class order
	Train  []Utterance
	Dev    []DevUtterance
	Test   []PhoneTest
	Fold   decode.PhoneMap
	// TrainVoices, DevVoices, TestVoices name who speaks each split.
	TrainVoices, DevVoices, TestVoices []string
}

// ReadPhoneMap reads a phone map file (nil for no path).
func ReadPhoneMap(path string) (decode.PhoneMap, error) {
	if path == "" {
		return nil, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	m, err := decode.ParsePhoneMap(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadPhones reads the corpus o names (building the espeak-ng one when
// none is named), logging what it reads to log.
func LoadPhones(o PhoneOptions, log io.Writer) (*PhoneData, error) {
	fold, err := ReadPhoneMap(o.PhoneMap)
	if err != nil {
		return nil, err
	}
	var d *PhoneData
	switch {
	case o.Corpus == "" && o.Voices.Used():
		d, err = LoadVoicePhones(o, log)
	case o.Corpus == "":
		d, err = LoadEspeakPhones(o, log)
	default:
		d, err = loadCorpus(o, log)
	}
	if err != nil {
		return nil, err
	}
	d.Fold = fold
	return d, nil
}

// LoadEspeakPhones builds (once) and reads the espeak-ng corpus: training voices
// train the classifier, development voices are held out of it (they choose
// λ, the temperature and the decoder settings), test voices only score.
func LoadEspeakPhones(o PhoneOptions, log io.Writer) (*PhoneData, error) {
	dir := o.EspeakDir
	fmt.Fprintf(log, "phones: espeak-ng corpus in %s (%d/%d/%d sentences per train/dev/test voice)\n", dir, o.Espeak.TrainPerVoice, o.Espeak.DevPerVoice, o.Espeak.TestPerVoice)
	c, err := datasets.BuildPhoneCorpus(dir, o.Espeak)
	if err != nil {
		return nil, err
	}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	d := &PhoneData{Source: "espeak-ng", Phones: datasets.Phones, TrainVoices: o.Espeak.Voices.Train, DevVoices: o.Espeak.Voices.Dev, TestVoices: o.Espeak.Voices.Test}
	read := func(manifest string, held bool) ([]Utterance, []datasets.Utterance, error) {
		us, err := datasets.ReadTranscripts(manifest)
		if err != nil {
			return nil, nil, err
		}
		out := make([]Utterance, len(us))
		errs := make([]error, len(us))
		parallel.For(len(us), func(i int) {
			a, err := frontend.ReadAudio(us[i].Path, rate)
			if err != nil {
				errs[i] = err
				return
			}
			out[i] = Utterance{Samples: a.Samples, Words: us[i].Words, HeldOut: held}
		})
		return out, us, errors.Join(errs...)
	}
	trainUtts, _, err := read(c.Train, false)
	if err != nil {
		return nil, err
	}
	dev, devUs, err := read(c.Dev, true)
	if err != nil {
		return nil, err
	}
	d.Train = append(trainUtts, dev...)
	for i, u := range devUs {
		d.Dev = append(d.Dev, DevUtterance{Audio: &frontend.Audio{Rate: rate, Samples: dev[i].Samples}, Words: u.Words})
	}
	test, err := datasets.ReadTranscripts(c.Test)
	if err != nil {
		return nil, err
	}
	for _, u := range test {
		d.Test = append(d.Test, PhoneTest{Path: u.Path, Speaker: u.Speaker, Phones: u.Words})
	}
	return d, nil
}

// loadCorpus reads a TIMIT-style corpus: utterances under a train/ folder
// train (a seeded fraction of their speakers held out for tuning), those
// under test/ only score. The corpus's phone times give the first
// alignment instead of a flat start.
func loadCorpus(o PhoneOptions, log io.Writer) (*PhoneData, error) {
	us, err := datasets.TIMITCorpus(o.Corpus)
	if err != nil {
		return nil, err
	}
	trainMap, err := ReadPhoneMap(o.TrainMap)
	if err != nil {
		return nil, err
	}
	silence := map[string]bool{}
	for _, s := range strings.Split(o.Silence, ",") {
		silence[strings.TrimSpace(s)] = true
	}
	var trainSpk []string
	seen := map[string]bool{}
	nTest := 0
	for _, u := range us {
		switch u.Split {
		case "train":
			if !seen[u.Speaker] {
				seen[u.Speaker] = true
				trainSpk = append(trainSpk, u.Speaker)
			}
		case "test":
			nTest++
		}
	}
	if len(trainSpk) < 2 || nTest == 0 {
		return nil, fmt.Errorf("%s: need utterances of at least 2 speakers under a train/ folder and some under test/ (have %d speakers, %d test utterances)", o.Corpus, len(trainSpk), nTest)
	}
	sort.Strings(trainSpk)
	rng := rand.New(rand.NewPCG(o.Map.Seed, 0x64657673))
	rng.Shuffle(len(trainSpk), func(i, j int) { trainSpk[i], trainSpk[j] = trainSpk[j], trainSpk[i] })
	nDev := min(max(1, int(o.DevFrac*float64(len(trainSpk))+0.5)), len(trainSpk)-1)
	devSpk := map[string]bool{}
	for _, s := range trainSpk[:nDev] {
		devSpk[s] = true
	}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	d := &PhoneData{Source: o.Corpus}
	inventory := map[string]bool{}
	spk := map[string]map[string]bool{"train": {}, "dev": {}, "test": {}}
	for _, u := range us {
		if u.Split == "" {
			continue
		}
		a, err := frontend.ReadAudio(u.Audio, 0)
		if err != nil {
			return nil, err
		}
		var words []string
		var spans [][2]float64
		for _, p := range u.Phones {
			label := p.Phone
			if to, ok := trainMap[label]; ok {
				label = to
			}
			if label == "" || silence[label] {
				continue
			}
			if p.End > len(a.Samples) {
				return nil, fmt.Errorf("%s: phone %q ends at sample %d, after the audio's %d samples", u.Audio, p.Phone, p.End, len(a.Samples))
			}
			words = append(words, label)
			spans = append(spans, [2]float64{float64(p.Start) / float64(a.Rate), float64(p.End) / float64(a.Rate)})
		}
		if len(words) == 0 {
			return nil, fmt.Errorf("%s: no phones besides silence", u.Audio)
		}
		if a.Rate != rate {
			if a, err = frontend.Resample(a, rate); err != nil {
				return nil, fmt.Errorf("%s: %w", u.Audio, err)
			}
		}
		switch {
		case u.Split == "test":
			d.Test = append(d.Test, PhoneTest{Path: u.Audio, Speaker: u.Speaker, Phones: words})
			spk["test"][u.Speaker] = true
		case devSpk[u.Speaker]:
			d.Train = append(d.Train, Utterance{Samples: a.Samples, Words: words, Spans: spans, ExactSpans: true, HeldOut: true})
			d.Dev = append(d.Dev, DevUtterance{Audio: a, Words: words})
			spk["dev"][u.Speaker] = true
		default:
			d.Train = append(d.Train, Utterance{Samples: a.Samples, Words: words, Spans: spans, ExactSpans: true})
			for _, w := range words {
				inventory[w] = true
			}
			spk["train"][u.Speaker] = true
		}
	}
	for p := range inventory {
		d.Phones = append(d.Phones, p)
	}
	sort.Strings(d.Phones)
	// A phone only the held-out or test speakers say cannot be trained;
	// held-out utterances using one would fail to align, so refuse early.
	for _, u := range d.Train {
		for _, w := range u.Words {
			if !inventory[w] {
				return nil, fmt.Errorf("%s: phone %q occurs in held-out speech but never in training speech", o.Corpus, w)
			}
		}
	}
	names := func(m map[string]bool) []string {
		var out []string
		for s := range m {
			out = append(out, s)
		}
		sort.Strings(out)
		return out
	}
	d.TrainVoices, d.DevVoices, d.TestVoices = names(spk["train"]), names(spk["dev"]), names(spk["test"])
	fmt.Fprintf(log, "phones: corpus %s: %d phones; %d training utterances (%d speakers held out for tuning), %d test utterances\n",
		o.Corpus, len(d.Phones), len(d.Train), len(d.DevVoices), len(d.Test))
	return d, nil
}

// PhoneModelSpec is one phone model to train: its name in reports, its
// map and its frame classifier.
type PhoneModelSpec struct {
	Name       string
	Recipe     features.Recipe
	Classifier string
}

// PhoneResult is one model's training and, once scored, test scores.
type PhoneResult struct {
	Name       string       `json:"name"`
	Decoder    string       `json:"decoder"` // "phone loop" or "bigram"
	Map        string       `json:"map"`
	M          int          `json:"m"`
	Classifier string       `json:"classifier"`
	Passes     []PassReport `json:"passes"`
	TrainSec   float64      `json:"train_seconds"`
	Tuned      *TuneTrial   `json:"tuned,omitempty"`
	PhoneScore
	PerSpeaker map[string]float64 `json:"per_speaker_per"`
}

// PhoneScore is PER on a test set.
type PhoneScore struct {
	Utterances int     `json:"utterances"`
	Phones     int     `json:"phones"`
	PER        float64 `json:"per"`
	Sub        int     `json:"sub"`
	Ins        int     `json:"ins"`
	Del        int     `json:"del"`
	RTF        float64 `json:"rtf"`
}

// phoneGrid is the tuning grid: phone insertion penalties (positive ones
// favour more phones), acoustic and prior scales.
func phoneGrid(fold decode.PhoneMap) TuneGrid {
	return TuneGrid{WordPenalties: []float64{0, -2, -4, -8, -12, 2, 4}, AcousticScales: []float64{1, 0.5, 0.25},
		PriorScales: []float64{1, 0.5, 0.2}, Fold: fold}
}

// TrainPhoneModel trains one model by alignment on d (SetPhoneDecoder then
// gives it its decoder).
func TrainPhoneModel(o PhoneOptions, d *PhoneData, spec PhoneModelSpec, log io.Writer) (*engine.Model, PhoneResult, error) {
	res := PhoneResult{Name: spec.Name, Map: spec.Recipe.Kind, Classifier: spec.Classifier}
	in := engine.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = phoneStates, phoneSilenceStates, spec.Classifier
	spec.Recipe.In = in.Audio.Dim()
	m, rep, err := Connected(d.Train, ConnectedOptions{
		Task: engine.TaskPhones, Input: in, Decoder: o.Decoder, Map: spec.Recipe, Words: d.Phones, Passes: o.Passes,
		RLSLambda: o.Lambda, Seed: o.Map.Seed, Log: log,
	})
	if err != nil {
		return nil, res, err
	}
	res.Passes, res.TrainSec = rep.Passes, rep.Seconds
	return m, res, nil
}

// SetPhoneDecoder gives m the plain phone loop or a bigram loop (estimated
// on the transcripts of the classifier's training utterances) and, with
// o.Tune, chooses its settings on the held-out training utterances.
func SetPhoneDecoder(o PhoneOptions, m *engine.Model, d *PhoneData, bigram bool, res *PhoneResult, log io.Writer) error {
	res.Decoder = "phone loop"
	var transcripts [][]string
	if bigram {
		res.Decoder = "bigram"
		transcripts = [][]string{}
		for _, u := range d.Train {
			if !u.HeldOut {
				transcripts = append(transcripts, u.Words)
			}
		}
	}
	if err := engine.SetUnitBigram(m, transcripts, 0.5); err != nil {
		return err
	}
	if o.Fixed != nil {
		fmt.Fprintf(log, "phones: %s, %s: fixed decoder %s\n", res.Name, res.Decoder, o.Fixed)
		return o.Fixed.Apply(m)
	}
	if !o.Tune {
		return nil
	}
	trials, err := TuneConnected(m, d.Dev, phoneGrid(d.Fold))
	if err != nil {
		return err
	}
	best := BestTrial(trials)
	res.Tuned = &best
	fmt.Fprintf(log, "phones: %s, %s: tuned on %d held-out training utterances: phone penalty %g, acoustic scale %g, prior scale %g (dev PER %.2f%%; untuned %.2f%%)\n",
		res.Name, res.Decoder, len(d.Dev), best.WordPenalty, best.AcousticScale, best.PriorScale, 100*best.WER, 100*trials[0].WER)
	return nil
}

// PhoneModel is `rfstream train phones`: it loads the corpus o names,
// trains the random-map model, gives it its decoder (tuned when o.Tune)
// and records the training recipe in the model's meta.
func PhoneModel(o PhoneOptions, log io.Writer) (*engine.Model, *PhoneData, PhoneResult, error) {
	d, err := LoadPhones(o, log)
	if err != nil {
		return nil, nil, PhoneResult{}, err
	}
	recipe, err := o.Map.Recipe(engine.DefaultConnectedInput().Audio.Dim())
	if err != nil {
		return nil, nil, PhoneResult{}, err
	}
	m, res, err := TrainPhoneModel(o, d, PhoneModelSpec{Name: "model", Recipe: recipe, Classifier: o.Classifier}, log)
	if err != nil {
		return nil, nil, res, err
	}
	if err := SetPhoneDecoder(o, m, d, o.Bigram, &res, log); err != nil {
		return nil, nil, res, err
	}
	if m.Meta == nil {
		m.Meta = map[string]any{}
	}
	m.Meta["phone_corpus"] = d.Source
	if o.Corpus == "" && o.Voices.Used() {
		m.Meta["phone_voices"] = o.Voices.Describe()
	}
	return m, d, res, nil
}

// FixedPhoneDecoder is a phone model's search set by hand rather than
// tuned on the held-out training utterances.
type FixedPhoneDecoder struct {
	PhonePenalty, AcousticScale, PriorScale, LMScale, SilenceProb, SelfLoop float64
}

// WordsAloneDecoder is `train phones`' search since round 6 of
// experiments/journal/phones.md (R6d): chosen over 1944 settings on the
// real development speakers' words said alone, where the tuned setting
// (+2, 1, 1, 1, 0.5, 0.5: chosen mostly on synthetic sentences) inserted
// phones at the words' onsets and endings (real development PER 102.21 →
// 69.06 %, test 116.98 → 89.15 %).
var WordsAloneDecoder = FixedPhoneDecoder{PhonePenalty: -4, AcousticScale: 0.5, PriorScale: 0.5, LMScale: 1, SilenceProb: 0.5, SelfLoop: 0.7}

// String is the setting as --fixed-decoder takes it.
func (f FixedPhoneDecoder) String() string {
	return fmt.Sprintf("%g,%g,%g,%g,%g,%g", f.PhonePenalty, f.AcousticScale, f.PriorScale, f.LMScale, f.SilenceProb, f.SelfLoop)
}

// ParseFixedPhoneDecoder reads "penalty,acoustic,prior,lm,silence,selfloop".
func ParseFixedPhoneDecoder(s string) (FixedPhoneDecoder, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 6 {
		return FixedPhoneDecoder{}, fmt.Errorf("phones: fixed decoder %q: want 6 numbers: phone penalty, acoustic scale, prior scale, LM scale, silence probability, self-loop", s)
	}
	var v [6]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return FixedPhoneDecoder{}, fmt.Errorf("phones: fixed decoder %q: %q is not a number", s, p)
		}
		v[i] = f
	}
	f := FixedPhoneDecoder{v[0], v[1], v[2], v[3], v[4], v[5]}
	if !(f.AcousticScale > 0) || !(f.PriorScale >= 0) || !(f.LMScale > 0) || !(f.SilenceProb > 0 && f.SilenceProb < 1) || !(f.SelfLoop > 0 && f.SelfLoop < 1) {
		return FixedPhoneDecoder{}, fmt.Errorf("phones: fixed decoder %q: scales must be positive, probabilities within (0, 1)", s)
	}
	return f, nil
}

// Apply writes the setting into m's decoder configuration.
func (f FixedPhoneDecoder) Apply(m *engine.Model) error {
	var dc engine.ConnectedDecoder
	if err := json.Unmarshal(m.Decoder, &dc); err != nil {
		return fmt.Errorf("phones: the model's decoder: %w", err)
	}
	dc.WordPenalty, dc.AcousticScale, dc.PriorScale, dc.LMScale, dc.SilenceProb, dc.SelfLoop = f.PhonePenalty, f.AcousticScale, f.PriorScale, f.LMScale, f.SilenceProb, f.SelfLoop
	b, err := json.Marshal(dc)
	if err != nil {
		return err
	}
	m.Decoder = b
	return nil
}
