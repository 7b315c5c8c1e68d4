package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/progress"
	"github.com/rfstream/rfstream/train"
)

// losoModel is one model of eval phones --loso: what it trained on and
// its PER on every engine's test speakers.
type losoModel struct {
	Name     string   `json:"name"`
	Trained  []string `json:"trained_on"`
	HeldOut  string   `json:"held_out,omitempty"`
	Recipe   string   `json:"recipe"`
	TrainSec float64  `json:"train_seconds"`
	// DevPER is the tuned decoder's PER on the development speakers of
	// the training engines (the only figure a choice may use).
	DevPER    float64                     `json:"dev_per"`
	PerEngine map[string]train.PhoneScore `json:"per_engine"`
	PerVoice  map[string]float64          `json:"per_voice_per"`
}

// phonesLOSO is eval phones --loso's JSON report.
type phonesLOSO struct {
	Task    string      `json:"task"`
	Engines []string    `json:"engines"`
	Models  []losoModel `json:"models"`
	// HeldOutPER is, per engine, the PER of the model that never heard it
	// next to the espeak-ng-only model's.
	HeldOutPER map[string]map[string]float64 `json:"held_out_per"`
	PeakRSSMB  float64                       `json:"peak_rss_mb"`
}

// losoPlan lists the models of a leave-one-synthesiser-out round: today's
// espeak-ng-only recipe (with baseline), one model per engine of heldOut
// (nil: every engine) trained on all the others (with o.Voices'
// widening), and, with all, one on every engine. A round cut short for
// time trains the models its decision needs first and the rest in another
// process.
func losoPlan(o train.PhoneOptions, engines, heldOut []string, baseline, all bool) []losoModel {
	var plan []losoModel
	if baseline {
		plan = append(plan, losoModel{Name: "espeak-ng only (the previous default)", Trained: []string{"espeak-ng"}})
	}
	for _, e := range engines {
		if heldOut != nil && !slices.Contains(heldOut, e) {
			continue
		}
		var rest []string
		for _, x := range engines {
			if x != e {
				rest = append(rest, x)
			}
		}
		plan = append(plan, losoModel{Name: "all but " + e, Trained: rest, HeldOut: e})
	}
	if all {
		plan = append(plan, losoModel{Name: "all voices", Trained: slices.Clone(engines)})
	}
	return plan
}

// losoOptions are o for one planned model: the espeak-ng-only model keeps
// today's recipe (no FSDD, no augmentation, every espeak-ng sentence).
func losoOptions(o train.PhoneOptions, m losoModel, engines []string) train.PhoneOptions {
	o.Voices.Engines, o.Voices.Score = m.Trained, engines
	if m.HeldOut == "" && len(m.Trained) == 1 && m.Trained[0] == "espeak-ng" {
		o.Voices.FSDDPerDigit, o.Voices.Augment, o.Voices.EspeakPerVoice = 0, 0, 0
	}
	return o
}

// evalPhonesLOSO trains the models of losoPlan in turn and scores each on
// every engine's test speakers; save, when set, receives the all-voices
// model.
func evalPhonesLOSO(o train.PhoneOptions, engines, heldOut []string, baseline, all bool, save string, asJSON bool, stdout, stderr io.Writer) error {
	for _, e := range heldOut {
		if !slices.Contains(engines, e) {
			return fmt.Errorf("phones --loso-held-out: %q is not one of --loso's engines %v", e, engines)
		}
	}
	plan := losoPlan(o, engines, heldOut, baseline, all)
	if err := checkLOSOAligner(o, plan); err != nil {
		return err
	}
	res := phonesLOSO{Task: "phones-loso", Engines: engines, HeldOutPER: map[string]map[string]float64{}}
	for _, m := range plan {
		mo := losoOptions(o, m, engines)
		m.Recipe = mo.Voices.Describe()
		fmt.Fprintf(stderr, "phones --loso: %s (%s)\n", m.Name, m.Recipe)
		model, d, r, err := train.PhoneModel(mo, stderr)
		if err != nil {
			return err
		}
		m.TrainSec = r.TrainSec
		if r.Tuned != nil {
			m.DevPER = r.Tuned.WER
		}
		if m.PerEngine, m.PerVoice, err = scorePhonesByEngine(model, d, engines); err != nil {
			return err
		}
		res.Models = append(res.Models, m)
		// Each model's figures as soon as it is scored: a long round
		// stopped early keeps what it measured.
		b, _ := json.Marshal(m)
		fmt.Fprintf(stderr, "phones --loso: scored %s\n", b)
		if all && m.HeldOut == "" && len(m.Trained) == len(engines) && save != "" {
			if err := engine.SaveModel(save, model); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "phones --loso: saved the all-voices model to %s\n", save)
		}
	}
	for _, m := range res.Models {
		if m.HeldOut != "" {
			res.HeldOutPER[m.HeldOut] = map[string]float64{"held_out": m.PerEngine[m.HeldOut].PER}
			if baseline {
				res.HeldOutPER[m.HeldOut]["espeak_only"] = res.Models[0].PerEngine[m.HeldOut].PER
			}
		}
	}
	printLOSO(stdout, res)
	res.PeakRSSMB = progress.PeakRSSMB()
	if asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// checkLOSOAligner refuses a plan in which the model that holds espeak-ng
// out would have its first labels aligned by the default aligner, the
// espeak-ng-only model: the held-out engine would reach its training.
func checkLOSOAligner(o train.PhoneOptions, plan []losoModel) error {
	if o.Voices.FirstLabels != train.FirstLabelsAligned || o.Voices.AlignModel != "" {
		return nil
	}
	for _, m := range plan {
		if m.HeldOut == "espeak-ng" {
			return fmt.Errorf("phones --loso: --first-labels aligned without --align-model aligns with the espeak-ng-only model, which %q must not hear (name an --align-model that never heard espeak-ng, or hold out other engines)", m.Name)
		}
	}
	return nil
}

// scorePhonesByEngine scores m on each engine's test utterances of d.
func scorePhonesByEngine(m *engine.Model, d *train.PhoneData, engines []string) (map[string]train.PhoneScore, map[string]float64, error) {
	perEngine := map[string]train.PhoneScore{}
	perVoice := map[string]float64{}
	for _, e := range engines {
		sub := *d
		sub.Test = nil
		for _, t := range d.Test {
			if t.Engine == e {
				sub.Test = append(sub.Test, t)
			}
		}
		if len(sub.Test) == 0 {
			continue
		}
		s, voices, _, err := scorePhones(m, &sub)
		if err != nil {
			return nil, nil, err
		}
		perEngine[e] = s
		for v, per := range voices {
			perVoice[v] = per
		}
	}
	return perEngine, perVoice, nil
}

func printLOSO(w io.Writer, res phonesLOSO) {
	fmt.Fprintln(w, "phones, leave one synthesiser out: test PER % on each engine's test speakers (* = engine never trained on)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\ttrained on\tdev PER %%\t%s\ttrain s\n", strings.Join(res.Engines, "\t"))
	for _, m := range res.Models {
		row := fmt.Sprintf("%s\t%s\t%.2f", m.Name, strings.Join(m.Trained, ","), 100*m.DevPER)
		for _, e := range res.Engines {
			mark := ""
			if !slices.Contains(m.Trained, e) {
				mark = "*"
			}
			row += fmt.Sprintf("\t%.2f%s", 100*m.PerEngine[e].PER, mark)
		}
		fmt.Fprintf(tw, "%s\t%.0f\n", row, m.TrainSec)
	}
	tw.Flush()
}
