package train_test

import (
	"testing"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/train"
)

// TestWordsInvariantOrbit: the digit recipe with the invariant map and
// train.WordOptions.Orbit trains a model whose map pools over the orbit asked
// for (pitch, tempo and vocal-tract warps), rebuilt from the model's
// recipe, and the model tells the toy words apart.
func TestWordsInvariantOrbit(t *testing.T) {
	dir := t.TempDir()
	if err := toymodels.WriteFSDD(dir, []string{"ann", "bob"}, 10); err != nil {
		t.Fatal(err)
	}
	o := train.WordOptions{FSDD: dir, Split: "all", Word: frontend.DefaultWordConfig(), Map: train.DefaultMapOptions("invariant", 20),
		Orbit: train.WarpOrbit{Cents: 300, Tempo: 1.5, VTLN: 1.1}}
	o.Map.Bins, o.Map.G = 2, 12
	model, err := train.Words(o)
	if err != nil {
		t.Fatal(err)
	}
	var p invariant.Params
	if err := features.UnmarshalParams(model.Map, &p); err != nil || model.Map.Kind != invariant.Kind {
		t.Fatalf("model map %s: %v", model.Map.Kind, err)
	}
	want := o.Orbit.Spec(o.Word)
	if p.Group.Kind != want.Kind || string(p.Group.Params) != string(want.Params) {
		t.Fatalf("model pools over %s %s, want %s %s", p.Group.Kind, p.Group.Params, want.Kind, want.Params)
	}
	mp, err := model.FeatureMap()
	if err != nil || mp.OutDim() != 20*5 {
		t.Fatalf("rebuilt map: %v (dim %d, want 100)", err, mp.OutDim())
	}
	recs, err := datasets.FSDD(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := train.CachedWordVectors(recs, o.Word, train.VectorCache{}, train.Clean, nil)
	if err != nil {
		t.Fatal(err)
	}
	scores := linalg.NewGeneral32(x.Rows, 2)
	model.RLS.Scores(scores, features.Apply(mp, x, 0))
	var right int
	for i, c := range classifier.Argmax(scores) {
		if model.Labels[c] == recs[i].Label {
			right++
		}
	}
	if right < x.Rows*9/10 {
		t.Errorf("the model got %d of its %d training words right", right, x.Rows)
	}
}
