package main

import (
	"strings"
	"testing"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/transforms"
)

// TestTemplateRangesFlag: --template-ranges puts each template's own range
// into the recipe, for data and for Gaussian templates, and the map rebuilt
// from the recipe is the one the flags made; malformed quantiles and a
// fixed range beside it are refused.
func TestTemplateRangesFlag(t *testing.T) {
	g, err := transforms.NewPermutationGroup(3, 2)
	if err != nil {
		t.Fatal(err)
	}
	spec := g.Spec()
	x := linalg.NewGeneral32(40, 6)
	for i := range x.Data {
		x.Data[i] = float32((i*7)%11) - 5
	}
	for _, src := range []string{invariant.DataDiff, invariant.Gaussian} {
		mf := mapFlags{kind: invariant.Kind, m: 4, bins: 2, templates: src, group: &spec, templateRows: &x, seed: 3, eps: 0.5,
			templateRanges: "0.05,0.95", rangeRows: 30}
		r, err := mf.recipe(6)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var p invariant.Params
		if err := features.UnmarshalParams(r, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Ranges) != 8 || p.Lo != 0 || p.Hi != 0 || p.S != 0 {
			t.Fatalf("%s: recipe params %+v, want 4 ranges and no fixed range", src, p)
		}
		for j := 0; j < 4; j++ {
			if !(p.Ranges[2*j] < p.Ranges[2*j+1]) {
				t.Errorf("%s: template %d range %v", src, j, p.Ranges[2*j:2*j+2])
			}
		}
		m, err := features.Build(r)
		if err != nil {
			t.Fatal(err)
		}
		im := m.(*invariant.Map)
		if thr := im.Thresholds(1); thr[0] != p.Ranges[2] || len(thr) != 5 {
			t.Errorf("%s: rebuilt map's thresholds of template 1 %v, range %v", src, thr, p.Ranges[2:4])
		}
		if got := mf.label(nil); !strings.Contains(got, "per template on quantiles 0.05,0.95") {
			t.Errorf("label %q does not name the ranges", got)
		}
	}
	for _, bad := range []string{"0.9,0.1", "0.1", "a,b", "0.1,1.5", "-0.1,0.9", "0.1,0.2,0.3"} {
		mf := mapFlags{kind: invariant.Kind, m: 4, bins: 2, templates: invariant.Data, group: &spec, templateRows: &x, seed: 3, templateRanges: bad, rangeRows: 30}
		if _, err := mf.recipe(6); err == nil || !strings.Contains(err.Error(), "--template-ranges") {
			t.Errorf("--template-ranges %q: %v", bad, err)
		}
	}
	mf := mapFlags{kind: invariant.Kind, m: 4, bins: 2, templates: invariant.Data, group: &spec, templateRows: &x, seed: 3,
		templateRanges: "0.05,0.95", rangeRows: 30, lo: -0.5, hi: 0.5}
	if _, err := mf.recipe(6); err == nil || !strings.Contains(err.Error(), "--lo") {
		t.Errorf("--template-ranges beside --lo and --hi: %v", err)
	}
	mf = mapFlags{kind: invariant.Kind, m: 4, bins: 2, templates: invariant.Gaussian, group: &spec, seed: 3, eps: 0.5, templateRanges: "0.05,0.95", rangeRows: 30}
	if _, err := mf.recipe(6); err == nil || !strings.Contains(err.Error(), "no unlabelled rows") {
		t.Errorf("--template-ranges without rows to read them off: %v", err)
	}
}
