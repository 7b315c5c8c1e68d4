package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/train"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "phones", Summary: "phone recognition: 3-state phone HMMs trained by alignment, phone loop (PER on held-out voices)",
		Eval: evalPhones})
}

// scorePhones recognises every test utterance on all cores and scores the
// phone strings (folded by d.Fold), overall and per speaker.
func scorePhones(m *engine.Model, d *train.PhoneData) (train.PhoneScore, map[string]float64, []exampleLine, error) {
	rec, err := engine.NewConnected(m)
	if err != nil {
		return train.PhoneScore{}, nil, nil, err
	}
	paths := make([]string, len(d.Test))
	for i, u := range d.Test {
		paths[i] = u.Path
	}
	hyps, audio, elapsed, err := recognizeFiles(rec, paths)
	if err != nil {
		return train.PhoneScore{}, nil, nil, err
	}
	var all decode.ErrorCounts
	per := map[string]*decode.ErrorCounts{}
	var bad []exampleLine
	for i, u := range d.Test {
		ref, hyp := d.Fold.Fold(u.Phones), d.Fold.Fold(hyps[i])
		if e := all.Add(ref, hyp); e.Errors() > 0 && len(bad) < 3 {
			bad = append(bad, exampleLine{strings.Join(ref, " "), strings.Join(hyp, " ")})
		}
		// A synthetic speaker is "voice/speed/pitch": group by voice.
		spk, _, _ := strings.Cut(u.Speaker, "/")
		if per[spk] == nil {
			per[spk] = &decode.ErrorCounts{}
		}
		per[spk].Add(ref, hyp)
	}
	s := train.PhoneScore{Utterances: len(d.Test), Phones: all.Ref, PER: all.ErrorRate(), Sub: all.Sub, Ins: all.Ins, Del: all.Del,
		RTF: elapsed * float64(runtime.GOMAXPROCS(0)) / audio}
	perSpk := map[string]float64{}
	for k, c := range per {
		perSpk[k] = c.ErrorRate()
	}
	return s, perSpk, bad, nil
}

// losoHeldOut reads --loso-held-out: nil (every engine) when empty, an
// empty list for "none".
func losoHeldOut(s string) []string {
	switch s {
	case "":
		return nil
	case "none":
		return []string{}
	}
	return strings.Split(s, ",")
}

// phonesEval is eval phones' JSON report.
type phonesEval struct {
	Task        string              `json:"task"`
	Corpus      string              `json:"corpus"`
	PhoneSet    int                 `json:"phones"`
	TrainVoices []string            `json:"train_voices"`
	DevVoices   []string            `json:"dev_voices"`
	TestVoices  []string            `json:"test_voices"`
	Models      []train.PhoneResult `json:"models"`
	Real        []realPhoneScore    `json:"real,omitempty"`
	PeakRSSMB   float64             `json:"peak_rss_mb"`
}

func evalPhones(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval phones", "[flags]", stderr)
	o := train.DefaultPhoneOptions()
	cli.PhoneFlags(fs, &o)
	modelPath := fs.String("model", "", "score this phone model instead of training (no baseline)")
	baseline := fs.Bool("baseline", true, "also train the baseline: the same phone loop with RLS on raw spliced frames (no random map)")
	asJSON := fs.Bool("json", false, "end with one JSON object on the last line")
	loso := fs.String("loso", "", "leave one synthesiser out over these engines (e.g. espeak-ng,flite,festival): train the espeak-ng-only model and one model per engine on the others (with --engines' widening: --fsdd-per-digit, --augment, ...), score every model on every engine's test speakers")
	losoAll := fs.Bool("loso-all", true, "with --loso: also train on every engine")
	losoBase := fs.Bool("loso-baseline", true, "with --loso: also train the espeak-ng-only model (the previous default recipe)")
	saveAll := fs.String("save-all", "", "with --loso: write the all-voices model here")
	save := fs.String("save", "", "without --loso: write each trained random-map model as PREFIX-loop.rfm (plain phone loop) and PREFIX-bigram.rfm")
	real := fs.Bool("real", false, "also score every model on the held-out real speakers of --voices (development and test speakers of the registered split, never trained on) against the lexicon's pronunciations")
	voicesDir := fs.String("voices", defaults.RealVoicesDir(), "with --real: the real voices folder")
	wordCost := fs.Float64("word-cost", 0, "with --real: the cost of each word the word lookup finds in the phones (0: decode.PhoneWords' default)")
	heldOut := fs.String("loso-held-out", "", "with --loso: train the all-but-one models only for these engines (comma-separated; \"none\": none; empty: every engine)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *loso != "" {
		return evalPhonesLOSO(o, strings.Split(*loso, ","), losoHeldOut(*heldOut), *losoBase, *losoAll, *saveAll, *asJSON, stdout, stderr)
	}
	var held *realPhones
	if *real {
		var err error
		if held, err = loadRealPhones(*voicesDir, o.Voices.Lexicon, datasets.DefaultRealPhoneSpeakers, stderr); err != nil {
			return err
		}
		if *wordCost > 0 {
			held.finder.WordCost = *wordCost
		}
	}
	d, err := train.LoadPhones(o, stderr)
	if err != nil {
		return err
	}
	res := phonesEval{Task: "phones", Corpus: d.Source, PhoneSet: len(d.Phones), TrainVoices: d.TrainVoices, DevVoices: d.DevVoices, TestVoices: d.TestVoices}
	type scored struct {
		m *engine.Model
		r train.PhoneResult
	}
	var models []scored
	if *modelPath != "" {
		m, err := engine.LoadModel(*modelPath)
		if err != nil {
			return err
		}
		models = append(models, scored{m, train.PhoneResult{Name: *modelPath, Map: m.Map.Kind, Decoder: "as saved"}})
	} else {
		recipe, err := o.Map.Recipe(engine.DefaultConnectedInput().Audio.Dim())
		if err != nil {
			return err
		}
		specs := []train.PhoneModelSpec{{Name: "random map", Recipe: recipe, Classifier: o.Classifier}}
		if *baseline {
			specs = append(specs, train.PhoneModelSpec{Name: "raw spliced (baseline)", Recipe: features.Recipe{Kind: "identity", Seed: o.Map.Seed}, Classifier: "rls"})
		}
		for _, s := range specs {
			m, r, err := train.TrainPhoneModel(o, d, s, stderr)
			if err != nil {
				return err
			}
			// The same classifier decoded with the plain phone loop and,
			// unless --bigram=false, with the bigram (a copy of the model:
			// the decoder settings and bigram live in it).
			for _, bigram := range []bool{false, true} {
				if bigram && !o.Bigram {
					continue
				}
				mc := *m
				mc.Blobs = maps.Clone(m.Blobs)
				rr := r
				if err := train.SetPhoneDecoder(o, &mc, d, bigram, &rr, stderr); err != nil {
					return err
				}
				if *save != "" && s.Recipe.Kind != "identity" {
					path := *save + map[bool]string{false: "-loop.rfm", true: "-bigram.rfm"}[bigram]
					if err := engine.SaveModel(path, &mc); err != nil {
						return err
					}
					fmt.Fprintf(stderr, "phones: saved %s\n", path)
				}
				models = append(models, scored{&mc, rr})
			}
		}
	}
	var examples strings.Builder
	for i := range models {
		r := &models[i].r
		rec, err := engine.NewConnected(models[i].m)
		if err != nil {
			return err
		}
		r.M = rec.Map.OutDim()
		if r.Classifier == "" {
			r.Classifier = rec.Input.Classifier
		}
		var bad []exampleLine
		if r.PhoneScore, r.PerSpeaker, bad, err = scorePhones(models[i].m, d); err != nil {
			return err
		}
		for _, e := range bad {
			fmt.Fprintf(&examples, "  %s, %s:\n    ref %s\n    hyp %s\n", r.Name, r.Decoder, e.ref, e.hyp)
		}
		res.Models = append(res.Models, *r)
		if held != nil {
			rs, bad, err := held.score(models[i].m, r.Name, r.Decoder)
			if err != nil {
				return err
			}
			for _, e := range bad {
				fmt.Fprintf(&examples, "  %s, %s (real):\n    ref %s\n    hyp %s\n", r.Name, r.Decoder, e.ref, e.hyp)
			}
			res.Real = append(res.Real, rs)
		}
	}
	fmt.Fprintf(stdout, "phones: %s corpus, %d phones + silence; test voices never trained on: %s\n", d.Source, len(d.Phones), strings.Join(d.TestVoices, ", "))
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
	if held != nil {
		printRealPhones(stdout, held.split, res.Real)
	}
	if examples.Len() > 0 {
		fmt.Fprintf(stdout, "misrecognised examples:\n%s", examples.String())
	}
	res.PeakRSSMB = progress.PeakRSSMB()
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}
