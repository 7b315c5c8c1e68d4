package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/train"
)

// eval real-digits is issue 51's point 1 for the second default speech
// model, the adaptable digit model (recognize --adapt and --session, the
// Go API's VoiceSession): its recipe, with or without the real voices,
// leaves one voice out and hears that voice's digits one recording at a
// time, untaught and unadapted, through the recogniser `recognize --model`
// uses.

func init() {
	cli.RegisterTask(&cli.Task{Name: "real-digits", Summary: "the adaptable digit model's recipe, with or without the real voices: leave one voice out, its digits one recording at a time",
		Eval: evalRealDigits})
}

// realDigitsResult is eval real-digits' JSON line.
type realDigitsResult struct {
	RealVoiceCopies int                `json:"real_voice_copies"`
	PerVoice        map[string]float64 `json:"per_voice"`
	N               map[string]int     `json:"n"`
	// RealMean is the mean over the held-out real voices (not FSDD's).
	RealMean   float64 `json:"real_mean"`
	FemaleMean float64 `json:"female_mean"`
	Args       []string
}

func evalRealDigits(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval real-digits", "[flags]", stderr)
	o := recipes.AdaptableOptions("")
	check := cli.VoiceFlags(fs, &o.Voices)
	fs.StringVar(&o.FSDD, "fsdd", o.FSDD, "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	fs.IntVar(&o.Map.M, "m", o.Map.M, "random features")
	dir := fs.String("voices", defaults.RealVoicesDir(), "the real voices folder the held-out real voices are read from ($RFSTREAM_VOICES)")
	only := fs.String("hold-out", "george,wycherley,rich,warzone,saytime,captcha", "voices to hold out one at a time, comma-separated (FSDD speakers and real voices)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	o.Log = stderr
	fsdd, err := datasets.FSDD(o.FSDD)
	if err != nil {
		return err
	}
	realRecs, err := datasets.RealVoiceDigits(*dir)
	if err != nil {
		return err
	}
	sex := map[string]string{}
	for _, sp := range datasets.Speakers(fsdd) {
		sex[sp] = datasets.FSDDSex
	}
	for _, v := range datasets.RealVoices() {
		sex[v.Name] = v.Sex
	}
	held := strings.Split(*only, ",")
	for _, v := range held {
		if sex[v] == "" {
			return fmt.Errorf("eval real-digits: --hold-out %q is neither an FSDD speaker nor a real voice", v)
		}
	}
	tmp, err := os.MkdirTemp("", "rfstream-real-digits-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	res := realDigitsResult{RealVoiceCopies: o.Voices.Real.Copies, PerVoice: map[string]float64{}, N: map[string]int{}, Args: args}
	if o.Voices.Real.Dir == "" {
		res.RealVoiceCopies = 0
	}
	// A recipe without the real voices never hears any of them: one model
	// serves every real voice's fold.
	var unheard engine.Recognizer
	for _, v := range held {
		fold := o
		var test []datasets.Recording
		if sex[v] == datasets.FSDDSex && slices.Contains(datasets.Speakers(fsdd), v) {
			fold.Exclude = v
			test = speakerRecs(fsdd, v)
		} else {
			var digits []datasets.Recording
			for _, r := range speakerRecs(realRecs, v) {
				if r.Label != engine.OhLabel {
					digits = append(digits, r)
				}
			}
			copies, err := augmentedCopies(digits, filepath.Join(tmp, v))
			if err != nil {
				return err
			}
			test = append(digits, copies...)
		}
		if fold.Voices.Real.Dir != "" {
			fold.Voices.Real.Exclude = []string{v}
		}
		rec := unheard
		if rec == nil || fold.Exclude != "" || fold.Voices.Real.Dir != "" {
			fmt.Fprintf(stderr, "real-digits: training without %s\n", v)
			m, err := train.Words(fold)
			if err != nil {
				return err
			}
			if rec, err = engine.NewRecognizer(m); err != nil {
				return err
			}
			if fold.Exclude == "" && fold.Voices.Real.Dir == "" {
				unheard = rec
			}
		}
		right := 0
		for _, r := range test {
			a, err := frontend.ReadAudio(r.Path, 0)
			if err != nil {
				return err
			}
			got, err := rec.Recognize(a.Samples, a.Rate)
			if err != nil {
				return fmt.Errorf("%s: %w", r.Path, err)
			}
			if got.Text == r.Label {
				right++
			}
		}
		res.PerVoice[v], res.N[v] = 100*float64(right)/float64(len(test)), len(test)
		fmt.Fprintf(stderr, "real-digits: %s %d/%d right\n", v, right, len(test))
	}
	var real, female []float64
	for _, v := range held {
		if sex[v] == datasets.Female {
			female = append(female, res.PerVoice[v])
		}
		if !slices.Contains(datasets.Speakers(fsdd), v) {
			real = append(real, res.PerVoice[v])
		}
	}
	res.RealMean, res.FemaleMean = mean(real), mean(female)

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "eval real-digits: the adaptable digit model's recipe%s, one voice held out at a time, its digits alone (real voices: the ten and four pitch/tempo-shifted copies of each)\n", realNote(o.Voices.Real))
	fmt.Fprintln(tw, "voice\tsex\trecordings\tright")
	for _, v := range held {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f %%\n", v, sex[v], res.N[v], res.PerVoice[v])
	}
	fmt.Fprintf(tw, "real voices' mean\t\t\t%.1f %%\n", res.RealMean)
	fmt.Fprintf(tw, "women's mean\t\t\t%.1f %%\n", res.FemaleMean)
	if err := tw.Flush(); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	return nil
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
