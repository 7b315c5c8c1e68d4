package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "tidigits", Summary: "TIDIGITS (LDC93S10) from its folder: connected digit strings, train set → test set (WER/SER per group), or --split for the isolated-digit splits",
		Eval: evalTIDIGITS})
}

// tidigitsScore is one group's scores ("all" for every group together).
// "oh" and "zero" are different words, as the transcripts say; the
// OhAsZero rates score them as one.
type tidigitsScore struct {
	Group       string  `json:"group"`
	Strings     int     `json:"strings"`
	Words       int     `json:"words"`
	WER         float64 `json:"wer"`
	SER         float64 `json:"ser"`
	Sub         int     `json:"sub"`
	Ins         int     `json:"ins"`
	Del         int     `json:"del"`
	WEROhAsZero float64 `json:"wer_oh_as_zero"`
	SEROhAsZero float64 `json:"ser_oh_as_zero"`
	// OhWords are the reference's "oh"s; OhAsOh of them were recognised
	// as "oh" and OhAsZero as "zero" (in the alignment that scores WER).
	OhWords  int `json:"oh_words"`
	OhAsOh   int `json:"oh_as_oh"`
	OhAsZero int `json:"oh_as_zero"`
}

// tidigitsFold is one isolated-digit split's division and test error.
type tidigitsFold struct {
	Name  string  `json:"name"`
	Train int     `json:"train"`
	Test  int     `json:"test"`
	Error float64 `json:"error"`
}

// tidigitsReport is eval tidigits' JSON line.
type tidigitsReport struct {
	Task string `json:"task"`
	// Mode is "strings" (connected strings, the default) or the isolated
	// split's name.
	Mode          string             `json:"mode"`
	Corpus        string             `json:"corpus"`
	Synthetic     bool               `json:"synthetic"` // written by --synthesize: not TIDIGITS
	Groups        []string           `json:"groups"`
	TrainFiles    int                `json:"train_files"`
	TestFiles     int                `json:"test_files"`
	TrainSpeakers int                `json:"train_speakers"`
	TestSpeakers  int                `json:"test_speakers"`
	Map           string             `json:"map"`
	M             int                `json:"m"`
	Classifier    string             `json:"classifier,omitempty"`
	Passes        []train.PassReport `json:"passes,omitempty"`
	Tuned         *train.TuneTrial   `json:"tuned,omitempty"`
	Scores        []tidigitsScore    `json:"scores,omitempty"`
	Folds         []tidigitsFold     `json:"folds,omitempty"`
	TrainSeconds  float64            `json:"train_seconds"`
	RTF           float64            `json:"rtf,omitempty"`
	PeakRSSMB     float64            `json:"peak_rss_mb"`
}

// tidigitsFlags are eval tidigits' settings.
type tidigitsFlags struct {
	corpus, groups, split string
	asJSON, tune          bool
	examples              int
	heldOut               float64
	o                     train.DigitStringOptions
	synth                 bool
	synthTrain, synthTest int
	synthStrings          int
	synthJoined           bool
	groupsGiven           bool
}

func (f *tidigitsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.corpus, "corpus", "", "the TIDIGITS folder: {train,test}/{man,woman,boy,girl}/SPEAKER/DIGITS{a,b}.wav (NIST SPHERE), at its top, under tidigits/, or under data/adults and data/children as on LDC's disc")
	fs.StringVar(&f.groups, "groups", strings.Join(datasets.TIDIGITSAdults, ","), "speaker groups to train and test on (man, woman, boy, girl); --split age uses all four unless given")
	fs.StringVar(&f.split, "split", "", "instead of connected strings, an isolated-digit split (single-word files, whole-word model): utterance (every speaker's takes a train, takes b test), speaker (training-set speakers → test-set speakers), gender (male → female and female → male), age (adults → children)")
	fs.BoolVar(&f.asJSON, "json", false, "end with one JSON object on the last line")
	fs.IntVar(&f.examples, "examples", 3, "print this many misrecognised strings per group")
	fs.BoolVar(&f.tune, "tune", true, "strings: choose the decoder's word penalty, acoustic and prior scales on the held-out training files")
	fs.Float64Var(&f.heldOut, "held-out", 0.1, "strings: fraction of training files held out of the classifier's training (λ, temperature, decoder tuning)")
	f.o = train.DefaultDigitStringOptions()
	cli.MapFlags(fs, &f.o.Map)
	fs.StringVar(&f.o.Classifier, "classifier", f.o.Classifier, "strings: frame classifier, rls or softmax")
	fs.IntVar(&f.o.Passes, "passes", f.o.Passes, "strings: re-alignments after the uniform bootstrap")
	fs.IntVar(&f.o.States, "states", f.o.States, "strings: HMM states per word")
	fs.IntVar(&f.o.SilStates, "sil-states", f.o.SilStates, "strings: HMM states of silence")
	fs.BoolVar(&f.synth, "synthesize", false, "first write a synthetic TIDIGITS-shaped corpus (espeak-ng voices, SPHERE at 20 kHz) into --corpus, which must be empty or absent")
	fs.IntVar(&f.synthTrain, "synth-train-speakers", 4, "--synthesize: training-set speakers per group")
	fs.IntVar(&f.synthTest, "synth-test-speakers", 2, "--synthesize: test-set speakers per group")
	fs.IntVar(&f.synthStrings, "synth-strings", 30, "--synthesize: connected strings per speaker besides the 22 isolated words")
	fs.BoolVar(&f.synthJoined, "synth-joined", false, "--synthesize: build strings from each speaker's words joined by pauses (one espeak-ng call per word: fast) instead of speaking each file")
}

// groupList is the groups the run uses.
func (f *tidigitsFlags) groupList() ([]string, error) {
	if f.split == "age" && !f.groupsGiven {
		return datasets.TIDIGITSGroups, nil
	}
	return datasets.ParseTIDIGITSGroups(f.groups)
}

func evalTIDIGITS(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval tidigits", "--corpus DIR [flags]", stderr)
	var f tidigitsFlags
	f.register(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) { f.groupsGiven = f.groupsGiven || fl.Name == "groups" })
	if f.corpus == "" {
		return errors.New("eval tidigits needs --corpus DIR (the TIDIGITS folder; --synthesize writes a synthetic one there)")
	}
	switch f.split {
	case "", "utterance", "speaker", "gender", "age":
	default:
		return fmt.Errorf("unknown --split %q (utterance, speaker, gender, age; none for connected strings)", f.split)
	}
	groups, err := f.groupList()
	if err != nil {
		return err
	}
	if f.synth {
		if err := synthesizeTIDIGITS(f, groups, stderr); err != nil {
			return err
		}
	}
	all, err := datasets.TIDIGITS(f.corpus)
	if err != nil {
		return err
	}
	rep := tidigitsReport{Task: "tidigits", Mode: "strings", Corpus: f.corpus, Synthetic: datasets.IsSyntheticTIDIGITS(f.corpus), Groups: groups}
	if rep.Synthetic {
		fmt.Fprintln(stdout, "tidigits: a synthetic TIDIGITS-shaped corpus (espeak-ng voices), not TIDIGITS itself")
	}
	if f.split != "" {
		rep.Mode = f.split
		err = evalTIDIGITSIsolated(f, all, groups, &rep, stdout, stderr)
	} else {
		err = evalTIDIGITSStrings(f, all, groups, &rep, stdout, stderr)
	}
	if err != nil {
		return err
	}
	rep.PeakRSSMB = progress.PeakRSSMB()
	if f.asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// synthesizeTIDIGITS writes the synthetic corpus --synthesize asks for,
// refusing to write into a folder that holds anything.
func synthesizeTIDIGITS(f tidigitsFlags, groups []string, stderr io.Writer) error {
	if ents, err := os.ReadDir(f.corpus); err == nil && len(ents) > 0 {
		return fmt.Errorf("--synthesize writes into an empty folder; %s holds files", f.corpus)
	}
	fmt.Fprintf(stderr, "tidigits: writing a synthetic corpus into %s (%d+%d speakers per group, %d strings each)\n", f.corpus, f.synthTrain, f.synthTest, f.synthStrings)
	n, err := datasets.WriteTIDIGITSShaped(f.corpus, datasets.TIDIGITSShape{Groups: groups, TrainSpeakers: f.synthTrain, TestSpeakers: f.synthTest,
		Strings: f.synthStrings, Seed: f.o.Map.Seed, Joined: f.synthJoined})
	if err == nil {
		fmt.Fprintf(stderr, "tidigits: wrote %d files\n", n)
	}
	return err
}

// speakersOf counts the distinct speakers of us.
func speakersOf(us []datasets.TIDIGITSUtterance) int {
	s := map[string]bool{}
	for _, u := range us {
		s[u.SpeakerID()] = true
	}
	return len(s)
}

// evalTIDIGITSStrings trains a connected model on the training set's
// files of the groups (strings and isolated words alike), tunes its
// decoder on held-out training files and scores the test set.
func evalTIDIGITSStrings(f tidigitsFlags, all []datasets.TIDIGITSUtterance, groups []string, rep *tidigitsReport, stdout, stderr io.Writer) error {
	trainSet := datasets.SelectTIDIGITS(all, "train", groups)
	testSet := datasets.SelectTIDIGITS(all, "test", groups)
	if len(trainSet) == 0 || len(testSet) == 0 {
		return fmt.Errorf("tidigits: %s has %d training and %d test files in groups %s", f.corpus, len(trainSet), len(testSet), strings.Join(groups, ","))
	}
	rep.TrainFiles, rep.TestFiles = len(trainSet), len(testSet)
	rep.TrainSpeakers, rep.TestSpeakers = speakersOf(trainSet), speakersOf(testSet)
	utts, err := readTIDIGITSTraining(trainSet, f.heldOut, f.o.Map.Seed)
	if err != nil {
		return err
	}
	o := f.o
	o.Log = stderr
	m, trep, err := train.DigitStringsFrom(o, utts, datasets.TIDIGITSWords)
	if err != nil {
		return err
	}
	rep.Passes, rep.TrainSeconds = trep.Passes, trep.Seconds
	if f.tune {
		if rep.Tuned, err = tuneOnHeldOut(m, utts); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "tidigits: tuned on %d held-out training files: word penalty %g, acoustic scale %g, prior scale %g (WER %.2f%%)\n",
			countHeld(utts), rep.Tuned.WordPenalty, rep.Tuned.AcousticScale, rep.Tuned.PriorScale, 100*rep.Tuned.WER)
	}
	rec, err := engine.NewConnected(m)
	if err != nil {
		return err
	}
	rep.Map, rep.M, rep.Classifier = m.Map.Kind, rec.Map.OutDim(), rec.Input.Classifier
	paths := make([]string, len(testSet))
	for i, u := range testSet {
		paths[i] = u.Path
	}
	hyps, audio, elapsed, err := recognizeFiles(rec, paths)
	if err != nil {
		return err
	}
	rep.RTF = elapsed * float64(runtime.GOMAXPROCS(0)) / audio
	var bad []string
	rep.Scores, bad = scoreTIDIGITS(testSet, hyps, groups, f.examples)
	printTIDIGITSScores(stdout, rep, bad)
	return nil
}

// readTIDIGITSTraining reads the training files at the connected model's
// rate, a seeded fraction of them marked held out (at least one).
func readTIDIGITSTraining(us []datasets.TIDIGITSUtterance, heldOut float64, seed uint64) ([]train.Utterance, error) {
	if !(heldOut > 0 && heldOut < 1) {
		return nil, fmt.Errorf("--held-out %g: want a fraction strictly between 0 and 1", heldOut)
	}
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	utts := make([]train.Utterance, len(us))
	err := parallel.ForErr(len(us), func(i int) error {
		a, err := frontend.ReadAudio(us[i].Path, rate)
		if err != nil {
			return err
		}
		utts[i] = train.Utterance{Samples: a.Samples, Words: us[i].Words}
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := max(1, int(math.Round(heldOut*float64(len(utts)))))
	if n >= len(utts) {
		return nil, fmt.Errorf("tidigits: %d training files are too few to hold %d out", len(utts), n)
	}
	for _, i := range rand.New(rand.NewPCG(seed, 0x68656c64)).Perm(len(utts))[:n] {
		utts[i].HeldOut = true
	}
	return utts, nil
}

func countHeld(utts []train.Utterance) int {
	n := 0
	for _, u := range utts {
		if u.HeldOut {
			n++
		}
	}
	return n
}

// tuneOnHeldOut chooses the decoder settings on the held-out training
// files (never test files), writes them into m and returns the best.
func tuneOnHeldOut(m *engine.Model, utts []train.Utterance) (*train.TuneTrial, error) {
	rate := engine.DefaultConnectedInput().Audio.SampleRate
	var dev []train.DevUtterance
	for _, u := range utts {
		if u.HeldOut {
			dev = append(dev, train.DevUtterance{Audio: &frontend.Audio{Rate: rate, Samples: u.Samples}, Words: u.Words})
		}
	}
	trials, err := train.TuneConnected(m, dev, train.DefaultTuneGrid())
	if err != nil {
		return nil, err
	}
	best := train.BestTrial(trials)
	return &best, nil
}

// ohAsZero folds "oh" onto "0".
func ohAsZero(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = datasets.DigitOf(w)
	}
	return out
}

// scoreTIDIGITS scores the hypotheses per group and overall, and lists up
// to examples misrecognised strings per group.
func scoreTIDIGITS(test []datasets.TIDIGITSUtterance, hyps [][]string, groups []string, examples int) ([]tidigitsScore, []string) {
	exact := map[string]*decode.ErrorCounts{"all": {}}
	folded := map[string]*decode.ErrorCounts{"all": {}}
	ohs := map[string]*[3]int{"all": {}} // "oh"s, as oh, as zero
	for _, g := range groups {
		exact[g], folded[g], ohs[g] = &decode.ErrorCounts{}, &decode.ErrorCounts{}, &[3]int{}
	}
	shown := map[string]int{}
	var bad []string
	for i, u := range test {
		for _, g := range []string{u.Group, "all"} {
			e := exact[g].Add(u.Words, hyps[i])
			folded[g].Add(ohAsZero(u.Words), ohAsZero(hyps[i]))
			countOhs(ohs[g], u.Words, hyps[i], e)
		}
		if e := decode.EditDistance(u.Words, hyps[i]); e.Errors() > 0 && shown[u.Group] < examples {
			shown[u.Group]++
			bad = append(bad, fmt.Sprintf("  %s %s: ref %s → hyp %s", u.Group, u.Speaker, showWords(u.Words), showWords(hyps[i])))
		}
	}
	var out []tidigitsScore
	for _, g := range append(groups, "all") {
		c, z := exact[g], folded[g]
		if c.Strings == 0 {
			continue
		}
		out = append(out, tidigitsScore{Group: g, Strings: c.Strings, Words: c.Ref, WER: c.ErrorRate(), SER: c.SER(), Sub: c.Sub, Ins: c.Ins, Del: c.Del,
			WEROhAsZero: z.ErrorRate(), SEROhAsZero: z.SER(), OhWords: ohs[g][0], OhAsOh: ohs[g][1], OhAsZero: ohs[g][2]})
	}
	return out, bad
}

// countOhs adds to n the reference's "oh"s, those the alignment e matched
// with an "oh" and those it substituted by a "zero".
func countOhs(n *[3]int, ref, hyp []string, e decode.Edit) {
	for _, op := range e.Ops {
		if op.Ref < 0 || ref[op.Ref] != datasets.OhWord {
			continue
		}
		n[0]++
		switch {
		case op.Kind == decode.Match:
			n[1]++
		case op.Kind == decode.Substitution && hyp[op.Hyp] == "0":
			n[2]++
		}
	}
}

// showWords prints words as digits ("oh" and "zero" both as 0), followed
// by the transcript in TIDIGITS' own letters (o for oh, z for zero), which
// tells the two apart.
func showWords(words []string) string {
	if len(words) == 0 {
		return "(nothing)"
	}
	name, err := datasets.TIDIGITSName(words, 'a')
	if err != nil {
		return strings.Join(words, " ")
	}
	return strings.Join(ohAsZero(words), " ") + " (" + strings.TrimSuffix(name, "a.wav") + ")"
}

func printTIDIGITSScores(w io.Writer, rep *tidigitsReport, bad []string) {
	fmt.Fprintf(w, "tidigits: connected strings, groups %s: %d training files of %d speakers → %d test files of %d speakers; %s m=%d %s\n",
		strings.Join(rep.Groups, ","), rep.TrainFiles, rep.TrainSpeakers, rep.TestFiles, rep.TestSpeakers, rep.Map, rep.M, rep.Classifier)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tstrings\twords\tWER %\tSER %\tsub\tins\tdel\tWER % (oh = zero)\tSER % (oh = zero)")
	for _, s := range rep.Scores {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%d\t%d\t%d\t%.2f\t%.2f\n", s.Group, s.Strings, s.Words, 100*s.WER, 100*s.SER, s.Sub, s.Ins, s.Del,
			100*s.WEROhAsZero, 100*s.SEROhAsZero)
	}
	tw.Flush()
	for _, s := range rep.Scores {
		if s.Group == "all" && s.OhWords > 0 {
			fmt.Fprintf(w, "\"oh\" in the test transcripts: %d; recognised as oh %d (%.1f%%), as zero %d\n", s.OhWords, s.OhAsOh, 100*float64(s.OhAsOh)/float64(s.OhWords), s.OhAsZero)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "misrecognised examples (0 is said \"zero\" (z) or \"oh\" (o); the letters are the transcript):\n%s\n", strings.Join(bad, "\n"))
	}
}
