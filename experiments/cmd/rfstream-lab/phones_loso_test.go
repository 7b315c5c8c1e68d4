package main

import (
	"slices"
	"testing"

	"github.com/rfstream/rfstream/train"
)

// The round's plan: the espeak-ng-only model keeps today's recipe (no
// FSDD, no augmentation, every espeak-ng sentence) whatever the widening
// flags say; each other model leaves exactly its engine out of training;
// every model is scored on every engine.
func TestLOSOPlan(t *testing.T) {
	o := train.DefaultPhoneOptions()
	o.Voices.FSDDPerDigit, o.Voices.Augment, o.Voices.EspeakPerVoice = 2, 0.5, 10
	engines := []string{"espeak-ng", "flite", "festival"}
	plan := losoPlan(o, engines, nil, true, true)
	if len(plan) != 5 {
		t.Fatalf("%d models, want 5", len(plan))
	}
	base := losoOptions(o, plan[0], engines)
	if !slices.Equal(base.Voices.Engines, []string{"espeak-ng"}) || base.Voices.FSDDPerDigit != 0 || base.Voices.Augment != 0 || base.Voices.EspeakPerVoice != 0 {
		t.Errorf("espeak-ng-only options %+v", base.Voices)
	}
	for i, e := range engines {
		m := plan[1+i]
		mo := losoOptions(o, m, engines)
		if m.HeldOut != e || slices.Contains(mo.Voices.Engines, e) || len(mo.Voices.Engines) != 2 || mo.Voices.FSDDPerDigit != 2 || mo.Voices.Augment != 0.5 {
			t.Errorf("model %q holds out %q, trains %v, options %+v", m.Name, m.HeldOut, mo.Voices.Engines, mo.Voices)
		}
	}
	for _, m := range plan {
		if mo := losoOptions(o, m, engines); !slices.Equal(mo.Voices.Score, engines) {
			t.Errorf("model %q scored on %v", m.Name, mo.Voices.Score)
		}
	}
	if all := plan[4]; all.HeldOut != "" || !slices.Equal(all.Trained, engines) {
		t.Errorf("last model %+v, want all voices", all)
	}
	if p := losoPlan(o, engines, nil, false, false); len(p) != 3 || p[0].HeldOut != "espeak-ng" {
		t.Errorf("without the baseline and the all-voices model: %+v", p)
	}
	// A round cut short: only the named all-but models, in --loso's order.
	if p := losoPlan(o, engines, losoHeldOut("festival,flite"), false, false); len(p) != 2 || p[0].HeldOut != "flite" || p[1].HeldOut != "festival" {
		t.Errorf("--loso-held-out festival,flite: %+v", p)
	}
	if p := losoPlan(o, engines, losoHeldOut("none"), false, true); len(p) != 1 || p[0].HeldOut != "" || !slices.Equal(p[0].Trained, engines) {
		t.Errorf("--loso-held-out none --loso-all: %+v", p)
	}
}

// The default aligner is the espeak-ng-only model, so a plan holding
// espeak-ng out may not use it; other plans, or a named aligner, may.
func TestLOSOAlignerNeverHearsTheHeldOutEngine(t *testing.T) {
	o := train.DefaultPhoneOptions()
	o.Voices.FirstLabels = train.FirstLabelsAligned
	engines := []string{"espeak-ng", "flite", "festival"}
	if err := checkLOSOAligner(o, losoPlan(o, engines, nil, false, false)); err == nil {
		t.Fatal("holding espeak-ng out with the espeak-ng aligner was accepted")
	}
	if err := checkLOSOAligner(o, losoPlan(o, engines, losoHeldOut("flite,festival"), true, true)); err != nil {
		t.Fatalf("holding flite and festival out: %v", err)
	}
	o.Voices.AlignModel = "aligner.rfm"
	if err := checkLOSOAligner(o, losoPlan(o, engines, nil, false, false)); err != nil {
		t.Fatalf("a named aligner: %v", err)
	}
}
