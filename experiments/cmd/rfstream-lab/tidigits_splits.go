package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rfstream/rfstream/datasets"
)

// The isolated-digit splits of the group-invariant features paper, on
// TIDIGITS' single-word files (11 words: "oh" is one of them):
//   - utterance: the same speakers, new utterances: every speaker's take
//     a trains, take b tests (both sets' speakers);
//   - speaker: unseen speakers: the training set's speakers train, the
//     test set's test;
//   - gender: one gender trains (training set), the other tests (test
//     set), both ways;
//   - age: adults train (training set), children test (test set).

// isolatedRecordings are the single-word files of us as recordings
// labelled by their word, by speaker (group/name) and take (0 for a, 1
// for b).
func isolatedRecordings(us []datasets.TIDIGITSUtterance) []datasets.Recording {
	var out []datasets.Recording
	for _, u := range us {
		if u.Isolated() {
			out = append(out, datasets.Recording{Path: u.Path, Label: u.Words[0], Speaker: u.SpeakerID(), Take: int(u.Take - 'a')})
		}
	}
	return out
}

// tidigitsSplits divides the isolated files of the groups as split says.
func tidigitsSplits(all []datasets.TIDIGITSUtterance, split string, groups []string) ([]digitSplit, error) {
	iso := func(set string, gs []string) []datasets.Recording {
		return isolatedRecordings(datasets.SelectTIDIGITS(all, set, gs))
	}
	among := func(want ...string) []string {
		var out []string
		for _, g := range want {
			if slices.Contains(groups, g) {
				out = append(out, g)
			}
		}
		return out
	}
	var splits []digitSplit
	switch split {
	case "utterance":
		var a, b []datasets.Recording
		for _, r := range iso("", groups) {
			if r.Take == 0 {
				a = append(a, r)
			} else {
				b = append(b, r)
			}
		}
		splits = []digitSplit{{"utterance (takes a → takes b)", a, b}}
	case "speaker":
		splits = []digitSplit{{"speaker (training-set → test-set speakers)", iso("train", groups), iso("test", groups)}}
	case "gender":
		male, female := among("man", "boy"), among("woman", "girl")
		if len(male) == 0 || len(female) == 0 {
			return nil, fmt.Errorf("--split gender needs a male (man, boy) and a female (woman, girl) group in --groups %s", strings.Join(groups, ","))
		}
		splits = []digitSplit{
			{"gender (" + strings.Join(male, "+") + " → " + strings.Join(female, "+") + ")", iso("train", male), iso("test", female)},
			{"gender (" + strings.Join(female, "+") + " → " + strings.Join(male, "+") + ")", iso("train", female), iso("test", male)},
		}
	case "age":
		adults, children := among("man", "woman"), among("boy", "girl")
		if len(adults) == 0 || len(children) == 0 {
			return nil, fmt.Errorf("--split age needs an adult (man, woman) and a child (boy, girl) group in --groups %s", strings.Join(groups, ","))
		}
		splits = []digitSplit{{"age (" + strings.Join(adults, "+") + " → " + strings.Join(children, "+") + ")", iso("train", adults), iso("test", children)}}
	default:
		return nil, fmt.Errorf("unknown --split %q (utterance, speaker, gender, age)", split)
	}
	for _, s := range splits {
		if len(s.train) == 0 || len(s.test) == 0 {
			return nil, fmt.Errorf("tidigits: split %s has %d training and %d test files of single words", s.name, len(s.train), len(s.test))
		}
	}
	return splits, nil
}

// evalTIDIGITSIsolated runs eval digits' whole-word model (its defaults,
// with this command's map flags) on the split's folds.
func evalTIDIGITSIsolated(f tidigitsFlags, all []datasets.TIDIGITSUtterance, groups []string, rep *tidigitsReport, stdout, stderr io.Writer) error {
	splits, err := tidigitsSplits(all, f.split, groups)
	if err != nil {
		return err
	}
	e := &digitsEval{stdout: stdout, stderr: stderr}
	// The corpus's own speakers only, as the paper's splits train: not the
	// product recipe's synthetic voices. The map comes from this command.
	e.register(flag.NewFlagSet("digits defaults", flag.ContinueOnError), legacyDigitRecipe())
	e.mf, e.split, e.given = f.o.Map, "tidigits "+f.split, splits
	if err := e.check(); err != nil {
		return err
	}
	if _, err := e.prepare(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tidigits: isolated digits, %s split, groups %s (11 words: oh is a word of its own)\n", f.split, strings.Join(groups, ","))
	if err := e.runSplits(splits); err != nil {
		return err
	}
	rep.Map, rep.M, rep.TrainSeconds = e.res.Map, e.res.M, e.res.TrainSeconds
	trainSpk, testSpk := map[string]bool{}, map[string]bool{}
	for _, s := range splits {
		rep.Folds = append(rep.Folds, tidigitsFold{Name: s.name, Train: len(s.train), Test: len(s.test), Error: 1 - e.res.PerSplit[s.name]})
		rep.TrainFiles += len(s.train)
		rep.TestFiles += len(s.test)
		for _, r := range s.train {
			trainSpk[r.Speaker] = true
		}
		for _, r := range s.test {
			testSpk[r.Speaker] = true
		}
	}
	rep.TrainSpeakers, rep.TestSpeakers = len(trainSpk), len(testSpk)
	return nil
}
