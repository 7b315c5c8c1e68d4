package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "any-voice", Summary: "digits for voices never heard: FSDD speaker split, gender split (male → female and back) and leave-one-synthesiser-out, per voice",
		Eval: evalAnyVoice})
}

// voiceScore is one evaluation's accuracy overall and per test voice.
type voiceScore struct {
	Train    string             `json:"train"`
	Test     string             `json:"test"`
	Accuracy float64            `json:"accuracy"`
	N        int                `json:"n"`
	PerVoice map[string]float64 `json:"per_voice"`
}

// anyVoiceResult is eval any-voice's JSON.
type anyVoiceResult struct {
	Task           string                `json:"task"`
	Args           []string              `json:"args"`
	Engines        []string              `json:"engines"`
	Voices         map[string]string     `json:"voice_sex"`
	SpeakerSplit   voiceScore            `json:"speaker_split"`
	MaleToFemale   voiceScore            `json:"gender_male_to_female"`
	FemaleToMale   voiceScore            `json:"gender_female_to_male"`
	LeaveEngineOut map[string]voiceScore `json:"leave_one_synthesiser_out"`
}

// evalAnyVoice runs the issue-37 evaluations with one recipe: (a) FSDD
// leave-one-speaker-out (the recipe as given, its synthetic voices
// included); (b) the gender split on FSDD and every installed
// synthesiser's speakers (rfstream data voices): train on the male voices,
// test on the female ones, and the reverse; (c) leave-one-synthesiser-out:
// train on FSDD and the other engines, test on one. (b) and (c) train on
// exactly the voices they name, so the recipe's own synthetic voices are
// switched off there.
func evalAnyVoice(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "figure3" { // the invariance paper's Figure 3 (anyvoice_figure3.go)
		return evalAnyVoiceFigure3(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "connected" { // (d): anyvoice_connected.go
		return evalAnyVoiceConnected(args[1:], stdout, stderr)
	}
	fs := cli.NewFlagSet("eval any-voice", "[flags] [-- eval digits flags for every run]", stderr)
	fsdd := fs.String("fsdd", defaults.FSDDDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	skipSpeaker := fs.Bool("skip-speaker-split", false, "leave out (a), the six-fold FSDD speaker split (the slowest part)")
	set := datasets.DefaultVoiceSetOptions()
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	recipe := fs.Args()
	fsddRecs, err := datasets.FSDD(*fsdd)
	if err != nil {
		return err
	}
	sets, err := train.BuildEngineVoices(train.EngineVoices{Engines: strings.Split(train.EngineNames(), ","), Set: set, Dir: defaults.VoicesDir()}, true, stderr)
	if err != nil {
		return err
	}
	if len(sets) < 2 {
		return fmt.Errorf("eval any-voice needs at least two installed synthesisers, found %d", len(sets))
	}
	tmp, err := os.MkdirTemp("", "rfstream-any-voice-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	res := anyVoiceResult{Task: "any-voice", Args: recipe, Voices: map[string]string{}, LeaveEngineOut: map[string]voiceScore{}}
	for _, r := range fsddRecs {
		res.Voices[r.Speaker] = datasets.Male // FSDD's six speakers are adult men
	}
	var male, female []datasets.Recording
	male = append(male, fsddRecs...)
	for _, s := range sets {
		res.Engines = append(res.Engines, s.Engine)
		sex := s.SpeakerSex()
		for _, r := range s.Digits {
			res.Voices[r.Speaker] = sex[r.Speaker]
			if sex[r.Speaker] == datasets.Female {
				female = append(female, r)
			} else {
				male = append(male, r)
			}
		}
	}
	run := func(name string, extra []string, trainRecs, testRecs []datasets.Recording) (voiceScore, error) {
		fmt.Fprintf(stderr, "any-voice: %s\n", name)
		return anyVoiceRun(tmp, name, append(slices.Clone(extra), recipe...), *fsdd, trainRecs, testRecs)
	}
	noSynth := []string{"--synth-voices", "0", "--engine-voices", ""}
	if !*skipSpeaker {
		if res.SpeakerSplit, err = run("speaker", nil, nil, nil); err != nil {
			return err
		}
	}
	if res.MaleToFemale, err = run("male-to-female", noSynth, male, female); err != nil {
		return err
	}
	res.MaleToFemale.Train, res.MaleToFemale.Test = "FSDD + male synthetic voices", "female synthetic voices"
	if res.FemaleToMale, err = run("female-to-male", noSynth, female, male); err != nil {
		return err
	}
	res.FemaleToMale.Train, res.FemaleToMale.Test = "female synthetic voices", "FSDD + male synthetic voices"
	for _, held := range sets {
		trainRecs := slices.Clone(fsddRecs)
		for _, s := range sets {
			if s.Engine != held.Engine {
				trainRecs = append(trainRecs, s.Digits...)
			}
		}
		sc, err := run("without-"+held.Engine, noSynth, trainRecs, held.Digits)
		if err != nil {
			return err
		}
		sc.Train, sc.Test = "FSDD + the other synthesisers", held.Engine
		res.LeaveEngineOut[held.Engine] = sc
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// anyVoiceRun is one eval digits run, FSDD's speaker split when trainRecs
// is nil and the two recording lists (as manifests) otherwise, scored per
// test voice from its predictions.
func anyVoiceRun(tmp, name string, flags []string, fsdd string, trainRecs, testRecs []datasets.Recording) (voiceScore, error) {
	preds := filepath.Join(tmp, name+".predictions.tsv")
	a := append(slices.Clone(flags), "--predictions", preds, "--json", "--fsdd", fsdd)
	if trainRecs == nil {
		a = append(a, "--split", "speaker")
	} else {
		trainPath, testPath := filepath.Join(tmp, name+".train.tsv"), filepath.Join(tmp, name+".test.tsv")
		if err := writeRecordings(trainPath, trainRecs); err != nil {
			return voiceScore{}, err
		}
		if err := writeRecordings(testPath, testRecs); err != nil {
			return voiceScore{}, err
		}
		a = append(a, "--train-manifest", trainPath, "--test-manifest", testPath)
	}
	var out, errb bytes.Buffer
	if err := evalDigits(a, &out, &errb); err != nil {
		return voiceScore{}, fmt.Errorf("%s: %w: %s", name, err, lastLine(errb.String()))
	}
	return scoreByVoice(preds)
}

func writeRecordings(path string, recs []datasets.Recording) error {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", r.Path, r.Label, r.Speaker)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// scoreByVoice reads a --predictions file and scores it overall and per
// speaker.
func scoreByVoice(path string) (voiceScore, error) {
	f, err := os.Open(path)
	if err != nil {
		return voiceScore{}, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.FieldsPerRecord = 6
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		return voiceScore{}, fmt.Errorf("%s: no predictions (%v)", path, err)
	}
	right, total := map[string]int{}, map[string]int{}
	var sc voiceScore
	for _, row := range rows[1:] {
		total[row[2]]++
		sc.N++
		if row[3] == row[4] {
			right[row[2]]++
			sc.Accuracy++
		}
	}
	sc.Accuracy /= float64(sc.N)
	sc.PerVoice = map[string]float64{}
	for v, n := range total {
		sc.PerVoice[v] = float64(right[v]) / float64(n)
	}
	return sc, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
