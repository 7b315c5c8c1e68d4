package train

import (
	"strings"
	"testing"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/transforms"
)

// TestTemplateRangesFlag: --template-ranges (MapOptions.TemplateRanges) puts each template's own range
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
		mf := MapOptions{Kind: invariant.Kind, M: 4, Bins: 2, Templates: src, Group: &spec, TemplateRows: &x, Seed: 3, Epsilon: 0.5,
			TemplateRanges: "0.05,0.95", RangeRows: 30}
		r, err := mf.Recipe(6)
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
		if got := mf.Label(nil); !strings.Contains(got, "per template on quantiles 0.05,0.95") {
			t.Errorf("label %q does not name the ranges", got)
		}
	}
	for _, bad := range []string{"0.9,0.1", "0.1", "a,b", "0.1,1.5", "-0.1,0.9", "0.1,0.2,0.3"} {
		mf := MapOptions{Kind: invariant.Kind, M: 4, Bins: 2, Templates: invariant.Data, Group: &spec, TemplateRows: &x, Seed: 3, TemplateRanges: bad, RangeRows: 30}
		if _, err := mf.Recipe(6); err == nil || !strings.Contains(err.Error(), "--template-ranges") {
			t.Errorf("--template-ranges %q: %v", bad, err)
		}
	}
	mf := MapOptions{Kind: invariant.Kind, M: 4, Bins: 2, Templates: invariant.Data, Group: &spec, TemplateRows: &x, Seed: 3,
		TemplateRanges: "0.05,0.95", RangeRows: 30, Lo: -0.5, Hi: 0.5}
	if _, err := mf.Recipe(6); err == nil || !strings.Contains(err.Error(), "--lo") {
		t.Errorf("--template-ranges beside --lo and --hi: %v", err)
	}
	mf = MapOptions{Kind: invariant.Kind, M: 4, Bins: 2, Templates: invariant.Gaussian, Group: &spec, Seed: 3, Epsilon: 0.5, TemplateRanges: "0.05,0.95", RangeRows: 30}
	if _, err := mf.Recipe(6); err == nil || !strings.Contains(err.Error(), "no unlabelled rows") {
		t.Errorf("--template-ranges without rows to read them off: %v", err)
	}
}

// Selection options: the method names, no selection leaving the map as it
// is, a selection over a pool Pool times the map's features (data
// templates drawing Pool times as many rows), and a pool larger than the
// rows refused.
func TestSelectFlags(t *testing.T) {
	for method, want := range map[string]elss.Algorithm{"": 0, "none": 0, "elss1": elss.Sample, "elss2": elss.Top} {
		f := FeatureSelection{Method: method}
		if got, err := f.Algorithm(); err != nil || got != want {
			t.Errorf("--select %q: %v, %v; want %v", method, got, err, want)
		}
	}
	if _, err := (FeatureSelection{Method: "elss3"}).Algorithm(); err == nil {
		t.Error("--select elss3 accepted")
	}
	x := linalg.NewGeneral32(40, 3)
	features.FillNormal32(features.NewRand(1, 1), x.Data)
	mf := MapOptions{Kind: "fourier", M: 6, Sigma: 1, Seed: 2}
	base, err := mf.Recipe(3)
	if err != nil {
		t.Fatal(err)
	}
	r, sel, err := mf.Select(base, x, x, nil, 2, nil)
	if err != nil || sel != nil || r.Kind != "fourier" {
		t.Fatalf("no --select changed the map: %v %+v %v", r.Kind, sel, err)
	}
	mf.Selection = FeatureSelection{Method: "elss2", Pool: 3, Lambda: 0.1, N0: 20}
	r, sel, err = mf.Select(base, x, x, nil, 2, nil)
	if err != nil || r.Kind != elss.Kind || sel == nil || sel.PoolM0 != 18 || sel.N0 != 20 || sel.Distinct != 6 {
		t.Fatalf("--select elss2: %v %+v %v", r.Kind, sel, err)
	}
	if m, err := features.Build(r); err != nil || m.OutDim() != 6 {
		t.Fatalf("selected recipe does not build: %v", err)
	}
	if got := mf.Label(nil); got != "fourier m=6 elss2" {
		t.Fatalf("label %q", got)
	}
	// Invariant maps with data templates: the pool draws --select-pool
	// times as many template rows (a recipe's m cannot just be enlarged).
	g, err := transforms.NewPermutationGroup(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec := g.Spec()
	inv := MapOptions{Kind: invariant.Kind, M: 4, Bins: 2, Templates: invariant.Data, Group: &spec, TemplateRows: &x, Seed: 3,
		Selection: FeatureSelection{Method: "elss1", Pool: 5, Lambda: 0.1, N0: 30}}
	base, err = inv.Recipe(3)
	if err != nil {
		t.Fatal(err)
	}
	r, sel, err = inv.Select(base, x, x, nil, 2, nil)
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
	inv.Selection.Pool = 1000 // 4000 templates from 40 rows
	if _, _, err := inv.Select(base, x, x, nil, 2, nil); err == nil || !strings.Contains(err.Error(), "pool") {
		t.Fatalf("a pool of more data templates than rows: %v", err)
	}
}
