package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/transforms"
)

func TestSelectFlags(t *testing.T) {
	for method, want := range map[string]elss.Algorithm{"": 0, "none": 0, "elss1": elss.Sample, "elss2": elss.Top} {
		f := selectFlags{method: method}
		if got, err := f.algorithm(); err != nil || got != want {
			t.Errorf("--select %q: %v, %v; want %v", method, got, err, want)
		}
	}
	if _, err := (&selectFlags{method: "elss3"}).algorithm(); err == nil {
		t.Error("--select elss3 accepted")
	}
	x := linalg.NewGeneral32(40, 3)
	features.FillNormal32(features.NewRand(1, 1), x.Data)
	mf := mapFlags{kind: "fourier", m: 6, sigma: 1, seed: 2}
	base, err := mf.recipe(3)
	if err != nil {
		t.Fatal(err)
	}
	r, sel, err := mf.selectFeatures(base, x, x, nil, 2, nil)
	if err != nil || sel != nil || r.Kind != "fourier" {
		t.Fatalf("no --select changed the map: %v %+v %v", r.Kind, sel, err)
	}
	mf.sel = selectFlags{method: "elss2", pool: 3, lambda: 0.1, n0: 20}
	r, sel, err = mf.selectFeatures(base, x, x, nil, 2, nil)
	if err != nil || r.Kind != elss.Kind || sel == nil || sel.PoolM0 != 18 || sel.N0 != 20 || sel.Distinct != 6 {
		t.Fatalf("--select elss2: %v %+v %v", r.Kind, sel, err)
	}
	if m, err := features.Build(r); err != nil || m.OutDim() != 6 {
		t.Fatalf("selected recipe does not build: %v", err)
	}
	if got := mf.label(nil); got != "fourier m=6 elss2" {
		t.Fatalf("label %q", got)
	}
	// Invariant maps with data templates: the pool draws --select-pool
	// times as many template rows (a recipe's m cannot just be enlarged).
	g, err := transforms.NewPermutationGroup(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec := g.Spec()
	inv := mapFlags{kind: invariant.Kind, m: 4, bins: 2, templates: invariant.Data, group: &spec, templateRows: &x, seed: 3,
		sel: selectFlags{method: "elss1", pool: 5, lambda: 0.1, n0: 30}}
	base, err = inv.recipe(3)
	if err != nil {
		t.Fatal(err)
	}
	r, sel, err = inv.selectFeatures(base, x, x, nil, 2, nil)
	if err != nil || r.Kind != elss.Kind || sel == nil || sel.PoolM0 != 5*4*5 || sel.N0 != 30 {
		t.Fatalf("invariant data templates --select elss1: %v %+v %v", r.Kind, sel, err)
	}
	var p elss.Params
	if err := features.UnmarshalParams(r, &p); err != nil {
		t.Fatal(err)
	}
	var pp invariant.Params
	if err := features.UnmarshalParams(p.Base, &pp); err != nil || pp.Templates != invariant.Data || len(pp.Sources) != 20 {
		t.Fatalf("pool of the selection: %+v (%v), want 20 data templates", pp, err)
	}
	if m, err := features.Build(r); err != nil || m.OutDim() > 4*5 {
		t.Fatalf("selected invariant recipe: %v", err)
	}
	inv.sel.pool = 1000 // 4000 templates from 40 rows
	if _, _, err := inv.selectFeatures(base, x, x, nil, 2, nil); err == nil || !strings.Contains(err.Error(), "pool") {
		t.Fatalf("a pool of more data templates than rows: %v", err)
	}
	// Tasks that do not select refuse --select instead of ignoring it.
	for _, args := range [][]string{
		{"eval", "mnist-sizes", "--select", "elss2"},
		{"train", "connected", "--select", "elss1", "--out", t.TempDir() + "/c.rfm"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "does not select features") {
			t.Errorf("%v: exit %d, %q", args, code, errb.String())
		}
	}
}
