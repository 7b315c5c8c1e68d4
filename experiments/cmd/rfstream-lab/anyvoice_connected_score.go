package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/train"
)

// connScore is one set of strings' word error counts and rates.
type connScore struct {
	Strings int     `json:"strings"`
	Words   int     `json:"words"`
	Sub     int     `json:"sub"`
	Ins     int     `json:"ins"`
	Del     int     `json:"del"`
	WER     float64 `json:"wer"`
	SER     float64 `json:"ser"`
}

func scoreOfCounts(c decode.ErrorCounts) connScore {
	return connScore{Strings: c.Strings, Words: c.Ref, Sub: c.Sub, Ins: c.Ins, Del: c.Del, WER: c.ErrorRate(), SER: c.SER()}
}

// connConditions are one voice's (or a pool's) scores clean and in each
// noise, with each noise's WER over the clean one (the goal: at most 2;
// absent when the clean WER is 0).
type connConditions struct {
	Clean          connScore            `json:"clean"`
	Noisy          map[string]connScore `json:"noisy"`
	NoisyOverClean map[string]float64   `json:"noisy_over_clean,omitempty"`
}

// connFoldResult is one held-out voice group's scores.
type connFoldResult struct {
	HeldOut         string                    `json:"held_out"`
	Kind            string                    `json:"kind"`
	Train           string                    `json:"train"`
	TrainRecordings int                       `json:"train_recordings"`
	TrainSeconds    float64                   `json:"train_seconds"`
	Tuned           *train.TuneTrial          `json:"tuned,omitempty"`
	All             connConditions            `json:"all"`
	PerVoice        map[string]connConditions `json:"per_voice"`
}

// anyVoiceConnectedResult is eval any-voice connected's JSON.
type anyVoiceConnectedResult struct {
	Task              string           `json:"task"`
	Args              []string         `json:"args"`
	Noise             []string         `json:"noise"`
	SNR               float64          `json:"snr_db"`
	BabbleTalkers     int              `json:"babble_talkers"`
	StringsPerSpeaker int              `json:"strings_per_fsdd_speaker"`
	Seed              uint64           `json:"string_seed"`
	TrainEngines      bool             `json:"train_engines"`
	Folds             []connFoldResult `json:"folds"`
	Real              connConditions   `json:"real"`
	Synthetic         connConditions   `json:"synthetic"`
	Overall           connConditions   `json:"overall"`
}

// connTally accumulates error counts clean and per noise kind.
type connTally struct {
	clean decode.ErrorCounts
	noisy map[string]*decode.ErrorCounts
}

func newConnTally() *connTally { return &connTally{noisy: map[string]*decode.ErrorCounts{}} }

func addCounts(dst *decode.ErrorCounts, c decode.ErrorCounts) {
	dst.Sub += c.Sub
	dst.Ins += c.Ins
	dst.Del += c.Del
	dst.Ref += c.Ref
	dst.Strings += c.Strings
	dst.StringError += c.StringError
}

// counts is the tally of a condition: "" clean, else a noise kind.
func (t *connTally) counts(kind string) *decode.ErrorCounts {
	if kind == "" {
		return &t.clean
	}
	if t.noisy[kind] == nil {
		t.noisy[kind] = &decode.ErrorCounts{}
	}
	return t.noisy[kind]
}

func (t *connTally) add(o *connTally) {
	addCounts(&t.clean, o.clean)
	for k, c := range o.noisy {
		addCounts(t.counts(k), *c)
	}
}

func (t *connTally) result() connConditions {
	r := connConditions{Clean: scoreOfCounts(t.clean), Noisy: map[string]connScore{}, NoisyOverClean: map[string]float64{}}
	for k, c := range t.noisy {
		r.Noisy[k] = scoreOfCounts(*c)
		if r.Clean.WER > 0 {
			r.NoisyOverClean[k] = r.Noisy[k].WER / r.Clean.WER
		}
	}
	return r
}

// tallyStrings recognises every test string clean and in each noise (on
// all cores) and tallies the errors per voice.
func tallyStrings(recognize func(*frontend.Audio) ([]string, error), test []heldString, noise testNoise, pool [][]float32) (map[string]*connTally, error) {
	conds := append([]string{""}, noise.kinds...)
	hyps := make([][][]string, len(test))
	errs := make([]error, len(test))
	parallel.For(len(test), func(i int) {
		hyps[i] = make([][]string, len(conds))
		for c, kind := range conds {
			a := test[i].audio
			if kind != "" {
				if a, errs[i] = noise.noisy(i, kind, a, pool); errs[i] != nil {
					return
				}
			}
			if hyps[i][c], errs[i] = recognize(a); errs[i] != nil {
				return
			}
		}
	})
	perVoice := map[string]*connTally{}
	for i, s := range test {
		if errs[i] != nil {
			return nil, fmt.Errorf("test string %d (%s): %w", i, s.voice, errs[i])
		}
		if perVoice[s.voice] == nil {
			perVoice[s.voice] = newConnTally()
		}
		for c, kind := range conds {
			perVoice[s.voice].counts(kind).Add(s.words, hyps[i][c])
		}
	}
	return perVoice, nil
}

// writeConnectedTable prints every fold's voices and the pools.
func writeConnectedTable(w io.Writer, res anyVoiceConnectedResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "held out\tvoice\tstrings\twords\tclean WER %"
	for _, k := range res.Noise {
		head += fmt.Sprintf("\t%s %g dB WER %%\t×clean", k, res.SNR)
	}
	fmt.Fprintln(tw, head)
	row := func(fold, voice string, c connConditions) {
		line := fmt.Sprintf("%s\t%s\t%d\t%d\t%.2f", fold, voice, c.Clean.Strings, c.Clean.Words, 100*c.Clean.WER)
		for _, k := range res.Noise {
			ratio := "-"
			if r, ok := c.NoisyOverClean[k]; ok {
				ratio = fmt.Sprintf("%.2f", r)
			}
			line += fmt.Sprintf("\t%.2f\t%s", 100*c.Noisy[k].WER, ratio)
		}
		fmt.Fprintln(tw, line)
	}
	for _, f := range res.Folds {
		voices := make([]string, 0, len(f.PerVoice))
		for v := range f.PerVoice {
			voices = append(voices, v)
		}
		slices.Sort(voices)
		if len(voices) > 1 {
			for _, v := range voices {
				row(f.HeldOut, v, f.PerVoice[v])
			}
		}
		row(f.HeldOut, "(all)", f.All)
	}
	for _, p := range []struct {
		name string
		c    connConditions
	}{{"real voices", res.Real}, {"synthetic voices", res.Synthetic}, {"all", res.Overall}} {
		if p.c.Clean.Strings > 0 {
			row(strings.ToUpper(p.name[:1])+p.name[1:], "(pooled)", p.c)
		}
	}
	tw.Flush()
}
