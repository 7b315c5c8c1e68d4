package main

import (
	"testing"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/linalg"
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
	r, sel, err := mf.sel.apply(base, x, x, nil, 2, nil)
	if err != nil || sel != nil || r.Kind != "fourier" {
		t.Fatalf("no --select changed the map: %v %+v %v", r.Kind, sel, err)
	}
	mf.sel = selectFlags{method: "elss2", pool: 3, lambda: 0.1, n0: 20}
	r, sel, err = mf.sel.apply(base, x, x, nil, 2, nil)
	if err != nil || r.Kind != elss.Kind || sel == nil || sel.PoolM0 != 18 || sel.N0 != 20 || sel.Distinct != 6 {
		t.Fatalf("--select elss2: %v %+v %v", r.Kind, sel, err)
	}
	if m, err := features.Build(r); err != nil || m.OutDim() != 6 {
		t.Fatalf("selected recipe does not build: %v", err)
	}
	if got := mf.label(nil); got != "fourier m=6 elss2" {
		t.Fatalf("label %q", got)
	}
}
