package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

func init() {
	registerTask(&task{name: "phones", summary: "phone recognition: 3-state phone HMMs trained by alignment, phone loop (PER on held-out voices)",
		eval: evalPhones, train: trainPhones})
}

// defaultPhoneModel is where train phones writes its model.
func defaultPhoneModel() string { return filepath.Join(dataDir(), "models", "phones.rfm") }

// phoneFlags are the flags shared by train phones and eval phones.
type phoneFlags struct {
	mf         mapFlags
	corpus     string
	phoneMap   string
	trainMap   string
	silence    string
	devFrac    float64
	classifier string
	passes     int
	lambda     float64
	tune       bool
	bigram     bool
	espeak     datasets.PhoneCorpusOptions
	dec        rfstream.ConnectedDecoder
}

func (f *phoneFlags) register(fs *flag.FlagSet) {
	f.mf.register(fs, "maxout", 2000)
	fs.StringVar(&f.corpus, "corpus", "", "TIMIT-style corpus folder (audio + .PHN beside it, train/ and test/ folders); empty: the espeak-ng corpus in the data cache")
	fs.StringVar(&f.phoneMap, "phone-map", "", "phone map file folding phones before scoring (e.g. TIMIT 61→39: phone [48-set] 39-set per line)")
	fs.StringVar(&f.trainMap, "train-map", "", "phone map file folding the corpus's labels before training (default: train on its phones as they are)")
	fs.StringVar(&f.silence, "silence", "h#,pau,epi,sil", "corpus labels that are silence (trained as the silence model, never scored)")
	fs.Float64Var(&f.devFrac, "dev-speakers", 0.1, "corpus: fraction of training speakers held out of the classifier, to tune the decoder")
	fs.StringVar(&f.classifier, "classifier", "rls", "frame classifier: rls or softmax")
	fs.IntVar(&f.passes, "passes", 2, "re-alignments after the flat start (or the corpus's phone times)")
	fs.Float64Var(&f.lambda, "lambda", 0, "rls: ridge parameter (0: choose on held-out frames)")
	fs.BoolVar(&f.bigram, "bigram", true, "decode with a phone bigram estimated on the training transcripts (eval phones reports the plain phone loop too)")
	fs.BoolVar(&f.tune, "tune", true, "choose the phone insertion penalty, acoustic and prior scales on the held-out training voices/speakers")
	f.espeak = datasets.DefaultPhoneCorpus()
	fs.IntVar(&f.espeak.TrainPerVoice, "train-per-voice", f.espeak.TrainPerVoice, "espeak corpus: sentences per training voice")
	fs.IntVar(&f.espeak.DevPerVoice, "dev-per-voice", f.espeak.DevPerVoice, "espeak corpus: sentences per development voice")
	fs.IntVar(&f.espeak.TestPerVoice, "test-per-voice", f.espeak.TestPerVoice, "espeak corpus: sentences per test voice")
	fs.Uint64Var(&f.espeak.Seed, "corpus-seed", f.espeak.Seed, "espeak corpus: seed of sentences, speeds and pitches")
	f.dec = rfstream.DefaultConnectedDecoder()
	f.dec.SelfLoop = 0.5
	fs.Float64Var(&f.dec.SelfLoop, "self-loop", f.dec.SelfLoop, "decoder: HMM self-loop probability (0.5: 2 frames a state on average)")
	fs.Float64Var(&f.dec.WordPenalty, "phone-penalty", f.dec.WordPenalty, "decoder: log-domain cost of each phone (replaced by tuning)")
	fs.Float64Var(&f.dec.Beam, "beam", f.dec.Beam, "decoder: beam (0: exact search)")
}

// phoneTest is one test utterance.
type phoneTest struct {
	path, speaker string
	phones        []string
}

// phoneData is a corpus ready for training and scoring.
type phoneData struct {
	source string
	phones []string // the units, in class order
	train  []train.Utterance
	dev    []train.DevUtterance
	test   []phoneTest
	fold   decode.PhoneMap
	// trainVoices, devVoices, testVoices name who speaks each split.
	trainVoices, devVoices, testVoices []string
}

func readPhoneMap(path string) (decode.PhoneMap, error) {
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

func (f *phoneFlags) load(log io.Writer) (*phoneData, error) {
	fold, err := readPhoneMap(f.phoneMap)
	if err != nil {
		return nil, err
	}
	var d *phoneData
	if f.corpus == "" {
		d, err = f.loadEspeak(log)
	} else {
		d, err = f.loadCorpus(log)
	}
	if err != nil {
		return nil, err
	}
	d.fold = fold
	return d, nil
}

// loadEspeak builds (once) and reads the espeak-ng corpus: training voices
// train the classifier, development voices are held out of it (they choose
// λ, the temperature and the decoder settings), test voices only score.
func (f *phoneFlags) loadEspeak(log io.Writer) (*phoneData, error) {
	dir := filepath.Join(dataDir(), "phones")
	fmt.Fprintf(log, "phones: espeak-ng corpus in %s (%d/%d/%d sentences per train/dev/test voice)\n", dir, f.espeak.TrainPerVoice, f.espeak.DevPerVoice, f.espeak.TestPerVoice)
	c, err := datasets.BuildPhoneCorpus(dir, f.espeak)
	if err != nil {
		return nil, err
	}
	rate := rfstream.DefaultConnectedInput().Audio.SampleRate
	d := &phoneData{source: "espeak-ng", phones: datasets.Phones, trainVoices: f.espeak.Voices.Train, devVoices: f.espeak.Voices.Dev, testVoices: f.espeak.Voices.Test}
	read := func(manifest string, held bool) ([]train.Utterance, []datasets.Utterance, error) {
		us, err := datasets.ReadTranscripts(manifest)
		if err != nil {
			return nil, nil, err
		}
		out := make([]train.Utterance, len(us))
		errs := make([]error, len(us))
		parallel.For(len(us), func(i int) {
			a, err := frontend.ReadAudio(us[i].Path, rate)
			if err != nil {
				errs[i] = err
				return
			}
			out[i] = train.Utterance{Samples: a.Samples, Words: us[i].Words, HeldOut: held}
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
	d.train = append(trainUtts, dev...)
	for i, u := range devUs {
		d.dev = append(d.dev, train.DevUtterance{Audio: &frontend.Audio{Rate: rate, Samples: dev[i].Samples}, Words: u.Words})
	}
	test, err := datasets.ReadTranscripts(c.Test)
	if err != nil {
		return nil, err
	}
	for _, u := range test {
		d.test = append(d.test, phoneTest{path: u.Path, speaker: u.Speaker, phones: u.Words})
	}
	return d, nil
}

// loadCorpus reads a TIMIT-style corpus: utterances under a train/ folder
// train (a seeded fraction of their speakers held out for tuning), those
// under test/ only score. The corpus's phone times give the first
// alignment instead of a flat start.
func (f *phoneFlags) loadCorpus(log io.Writer) (*phoneData, error) {
	us, err := datasets.TIMITCorpus(f.corpus)
	if err != nil {
		return nil, err
	}
	trainMap, err := readPhoneMap(f.trainMap)
	if err != nil {
		return nil, err
	}
	silence := map[string]bool{}
	for _, s := range strings.Split(f.silence, ",") {
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
		return nil, fmt.Errorf("%s: need utterances of at least 2 speakers under a train/ folder and some under test/ (have %d speakers, %d test utterances)", f.corpus, len(trainSpk), nTest)
	}
	sort.Strings(trainSpk)
	rng := rand.New(rand.NewPCG(f.mf.seed, 0x64657673))
	rng.Shuffle(len(trainSpk), func(i, j int) { trainSpk[i], trainSpk[j] = trainSpk[j], trainSpk[i] })
	nDev := min(max(1, int(f.devFrac*float64(len(trainSpk))+0.5)), len(trainSpk)-1)
	devSpk := map[string]bool{}
	for _, s := range trainSpk[:nDev] {
		devSpk[s] = true
	}
	rate := rfstream.DefaultConnectedInput().Audio.SampleRate
	d := &phoneData{source: f.corpus}
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
			d.test = append(d.test, phoneTest{path: u.Audio, speaker: u.Speaker, phones: words})
			spk["test"][u.Speaker] = true
		case devSpk[u.Speaker]:
			d.train = append(d.train, train.Utterance{Samples: a.Samples, Words: words, Spans: spans, ExactSpans: true, HeldOut: true})
			d.dev = append(d.dev, train.DevUtterance{Audio: a, Words: words})
			spk["dev"][u.Speaker] = true
		default:
			d.train = append(d.train, train.Utterance{Samples: a.Samples, Words: words, Spans: spans, ExactSpans: true})
			for _, w := range words {
				inventory[w] = true
			}
			spk["train"][u.Speaker] = true
		}
	}
	for p := range inventory {
		d.phones = append(d.phones, p)
	}
	sort.Strings(d.phones)
	// A phone only the held-out or test speakers say cannot be trained;
	// held-out utterances using one would fail to align, so refuse early.
	for _, u := range d.train {
		for _, w := range u.Words {
			if !inventory[w] {
				return nil, fmt.Errorf("%s: phone %q occurs in held-out speech but never in training speech", f.corpus, w)
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
	d.trainVoices, d.devVoices, d.testVoices = names(spk["train"]), names(spk["dev"]), names(spk["test"])
	fmt.Fprintf(log, "phones: corpus %s: %d phones; %d training utterances (%d speakers held out for tuning), %d test utterances\n",
		f.corpus, len(d.phones), len(d.train), len(d.devVoices), len(d.test))
	return d, nil
}

// phoneModelSpec is one model of the comparison.
type phoneModelSpec struct {
	name       string
	recipe     features.Recipe
	classifier string
}

// phoneModelResult is one model's training and test scores.
type phoneModelResult struct {
	Name       string             `json:"name"`
	Decoder    string             `json:"decoder"` // "phone loop" or "bigram"
	Map        string             `json:"map"`
	M          int                `json:"m"`
	Classifier string             `json:"classifier"`
	Passes     []train.PassReport `json:"passes"`
	TrainSec   float64            `json:"train_seconds"`
	Tuned      *train.TuneTrial   `json:"tuned,omitempty"`
	phoneScore
	PerSpeaker map[string]float64 `json:"per_speaker_per"`
}

// phoneScore is PER on a test set.
type phoneScore struct {
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
func phoneGrid(fold decode.PhoneMap) train.TuneGrid {
	return train.TuneGrid{WordPenalties: []float64{0, -2, -4, -8, -12, 2, 4}, AcousticScales: []float64{1, 0.5, 0.25},
		PriorScales: []float64{1, 0.5, 0.2}, Fold: fold}
}

// trainPhoneModel trains one model by alignment on d and tunes its decoder
// on d's held-out training voices.
func (f *phoneFlags) trainPhoneModel(d *phoneData, spec phoneModelSpec, log io.Writer) (*rfstream.Model, phoneModelResult, error) {
	res := phoneModelResult{Name: spec.name, Map: spec.recipe.Kind, Classifier: spec.classifier}
	in := rfstream.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = 3, 3, spec.classifier
	spec.recipe.In = in.Audio.Dim()
	m, rep, err := train.Connected(d.train, train.ConnectedOptions{
		Task: rfstream.TaskPhones, Input: in, Decoder: f.dec, Map: spec.recipe, Words: d.phones, Passes: f.passes,
		RLSLambda: f.lambda, Seed: f.mf.seed, Log: log,
	})
	if err != nil {
		return nil, res, err
	}
	res.Passes, res.TrainSec = rep.Passes, rep.Seconds
	return m, res, nil
}

// setDecoder gives m the plain phone loop or a bigram loop (estimated on
// the transcripts of the classifier's training utterances) and, with
// --tune, chooses its settings on the held-out training utterances.
func (f *phoneFlags) setDecoder(m *rfstream.Model, d *phoneData, bigram bool, res *phoneModelResult, log io.Writer) error {
	res.Decoder = "phone loop"
	var transcripts [][]string
	if bigram {
		res.Decoder = "bigram"
		transcripts = [][]string{}
		for _, u := range d.train {
			if !u.HeldOut {
				transcripts = append(transcripts, u.Words)
			}
		}
	}
	if err := rfstream.SetUnitBigram(m, transcripts, 0.5); err != nil {
		return err
	}
	if !f.tune {
		return nil
	}
	trials, err := train.TuneConnected(m, d.dev, phoneGrid(d.fold))
	if err != nil {
		return err
	}
	best := trials[0]
	for _, t := range trials {
		if t.WER < best.WER {
			best = t
		}
	}
	res.Tuned = &best
	fmt.Fprintf(log, "phones: %s, %s: tuned on %d held-out training utterances: phone penalty %g, acoustic scale %g, prior scale %g (dev PER %.2f%%; untuned %.2f%%)\n",
		res.Name, res.Decoder, len(d.dev), best.WordPenalty, best.AcousticScale, best.PriorScale, 100*best.WER, 100*trials[0].WER)
	return nil
}

// scorePhones recognises every test utterance on all cores and scores the
// phone strings (folded by d.fold), overall and per speaker.
func scorePhones(m *rfstream.Model, d *phoneData) (phoneScore, map[string]float64, []exampleLine, error) {
	rec, err := rfstream.NewConnected(m)
	if err != nil {
		return phoneScore{}, nil, nil, err
	}
	hyps := make([][]string, len(d.test))
	durs := make([]float64, len(d.test))
	errs := make([]error, len(d.test))
	start := time.Now()
	parallel.For(len(d.test), func(i int) {
		a, err := frontend.ReadAudio(d.test[i].path, 0)
		if err != nil {
			errs[i] = err
			return
		}
		durs[i] = a.Duration()
		r, err := rec.Recognize(a)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", d.test[i].path, err)
			return
		}
		for _, w := range r.Words {
			hyps[i] = append(hyps[i], w.Word)
		}
	})
	elapsed := time.Since(start).Seconds()
	if err := errors.Join(errs...); err != nil {
		return phoneScore{}, nil, nil, err
	}
	var all decode.ErrorCounts
	per := map[string]*decode.ErrorCounts{}
	var bad []exampleLine
	var audio float64
	for i, u := range d.test {
		ref, hyp := d.fold.Fold(u.phones), d.fold.Fold(hyps[i])
		if e := all.Add(ref, hyp); e.Errors() > 0 && len(bad) < 3 {
			bad = append(bad, exampleLine{strings.Join(ref, " "), strings.Join(hyp, " ")})
		}
		// A synthetic speaker is "voice/speed/pitch": group by voice.
		spk, _, _ := strings.Cut(u.speaker, "/")
		if per[spk] == nil {
			per[spk] = &decode.ErrorCounts{}
		}
		per[spk].Add(ref, hyp)
		audio += durs[i]
	}
	s := phoneScore{Utterances: len(d.test), Phones: all.Ref, PER: all.ErrorRate(), Sub: all.Sub, Ins: all.Ins, Del: all.Del,
		RTF: elapsed * float64(runtime.GOMAXPROCS(0)) / audio}
	perSpk := map[string]float64{}
	for k, c := range per {
		perSpk[k] = c.ErrorRate()
	}
	return s, perSpk, bad, nil
}

func trainPhones(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train phones", "[flags]", stderr)
	var pf phoneFlags
	pf.register(fs)
	out := fs.String("out", defaultPhoneModel(), "model file to write")
	asJSON := fs.Bool("json", false, "end with one JSON object (passes, tuning)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := pf.load(stderr)
	if err != nil {
		return err
	}
	recipe, err := pf.mf.recipe(rfstream.DefaultConnectedInput().Audio.Dim())
	if err != nil {
		return err
	}
	m, res, err := pf.trainPhoneModel(d, phoneModelSpec{name: "model", recipe: recipe, classifier: pf.classifier}, stderr)
	if err != nil {
		return err
	}
	if err := pf.setDecoder(m, d, pf.bigram, &res, stderr); err != nil {
		return err
	}
	if err := rfstream.SaveModel(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained a %d-phone model in %.1f s; saved %s\n", len(d.phones), res.TrainSec, *out)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	return nil
}

// phonesEval is eval phones' JSON report.
type phonesEval struct {
	Task        string             `json:"task"`
	Corpus      string             `json:"corpus"`
	PhoneSet    int                `json:"phones"`
	TrainVoices []string           `json:"train_voices"`
	DevVoices   []string           `json:"dev_voices"`
	TestVoices  []string           `json:"test_voices"`
	Models      []phoneModelResult `json:"models"`
	PeakRSSMB   float64            `json:"peak_rss_mb"`
}

func evalPhones(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval phones", "[flags]", stderr)
	var pf phoneFlags
	pf.register(fs)
	modelPath := fs.String("model", "", "score this phone model instead of training (no baseline)")
	baseline := fs.Bool("baseline", true, "also train the baseline: the same phone loop with RLS on raw spliced frames (no random map)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := pf.load(stderr)
	if err != nil {
		return err
	}
	res := phonesEval{Task: "phones", Corpus: d.source, PhoneSet: len(d.phones), TrainVoices: d.trainVoices, DevVoices: d.devVoices, TestVoices: d.testVoices}
	type scored struct {
		m *rfstream.Model
		r phoneModelResult
	}
	var models []scored
	if *modelPath != "" {
		m, err := rfstream.LoadModel(*modelPath)
		if err != nil {
			return err
		}
		models = append(models, scored{m, phoneModelResult{Name: *modelPath, Map: m.Map.Kind, Decoder: "as saved"}})
	} else {
		recipe, err := pf.mf.recipe(rfstream.DefaultConnectedInput().Audio.Dim())
		if err != nil {
			return err
		}
		specs := []phoneModelSpec{{name: "random map", recipe: recipe, classifier: pf.classifier}}
		if *baseline {
			specs = append(specs, phoneModelSpec{name: "raw spliced (baseline)", recipe: features.Recipe{Kind: "identity", Seed: pf.mf.seed}, classifier: "rls"})
		}
		for _, s := range specs {
			m, r, err := pf.trainPhoneModel(d, s, stderr)
			if err != nil {
				return err
			}
			// The same classifier decoded with the plain phone loop and,
			// unless --bigram=false, with the bigram (a copy of the model:
			// the decoder settings and bigram live in it).
			for _, bigram := range []bool{false, true} {
				if bigram && !pf.bigram {
					continue
				}
				mc := *m
				mc.Blobs = maps.Clone(m.Blobs)
				rr := r
				if err := pf.setDecoder(&mc, d, bigram, &rr, stderr); err != nil {
					return err
				}
				models = append(models, scored{&mc, rr})
			}
		}
	}
	var examples strings.Builder
	for i := range models {
		r := &models[i].r
		rec, err := rfstream.NewConnected(models[i].m)
		if err != nil {
			return err
		}
		r.M = rec.Map.OutDim()
		if r.Classifier == "" {
			r.Classifier = rec.Input.Classifier
		}
		var bad []exampleLine
		if r.phoneScore, r.PerSpeaker, bad, err = scorePhones(models[i].m, d); err != nil {
			return err
		}
		for _, e := range bad {
			fmt.Fprintf(&examples, "  %s, %s:\n    ref %s\n    hyp %s\n", r.Name, r.Decoder, e.ref, e.hyp)
		}
		res.Models = append(res.Models, *r)
	}
	fmt.Fprintf(stdout, "phones: %s corpus, %d phones + silence; test voices never trained on: %s\n", d.source, len(d.phones), strings.Join(d.testVoices, ", "))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tdecoder\tmap\tm\tclassifier\tframe acc per pass (train/held-out %)\tdev PER %\ttest PER %\tsub\tins\tdel\tphones\tRTF")
	for _, r := range res.Models {
		var acc []string
		for _, p := range r.Passes {
			acc = append(acc, fmt.Sprintf("%d: %.1f/%.1f", p.Pass, 100*p.TrainFrameAcc, 100*p.HeldOutFrameAcc))
		}
		dev := "-"
		if r.Tuned != nil {
			dev = fmt.Sprintf("%.2f", 100*r.Tuned.WER)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%.2f\t%d\t%d\t%d\t%d\t%.4f\n", r.Name, r.Decoder, r.Map, r.M, r.Classifier, strings.Join(acc, "  "), dev,
			100*r.PER, r.Sub, r.Ins, r.Del, r.Phones, r.RTF)
	}
	tw.Flush()
	var voices []string
	for v := range res.Models[0].PerSpeaker {
		voices = append(voices, v)
	}
	sort.Strings(voices)
	if len(voices) <= 12 { // a table per TIMIT test speaker would be unreadable
		fmt.Fprintln(stdout, "test PER % per voice:")
		tw = tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "model\tdecoder\t%s\n", strings.Join(voices, "\t"))
		for _, r := range res.Models {
			row := r.Name + "\t" + r.Decoder
			for _, v := range voices {
				row += fmt.Sprintf("\t%.2f", 100*r.PerSpeaker[v])
			}
			fmt.Fprintln(tw, row)
		}
		tw.Flush()
	}
	if examples.Len() > 0 {
		fmt.Fprintf(stdout, "misrecognised examples:\n%s", examples.String())
	}
	res.PeakRSSMB = peakRSSMB()
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}
