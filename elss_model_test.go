package rfstream

import (
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// A model whose map is an ELSS selection stores the selection's recipe and
// rebuilds the same features from the file.
func TestModelWithSelectedMap(t *testing.T) {
	x := linalg.NewGeneral32(50, 6)
	features.FillNormal32(features.NewRand(1, 1), x.Data)
	base := features.Recipe{Kind: maxout.Kind, In: 6, Seed: 3, Params: features.MarshalParams(maxout.Params{M: 8, Q: 3})}
	mp, _, err := elss.Select(base, x, elss.Config{Algorithm: elss.Top, Pool: 4, Lambda: 1e-2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := linalg.NewGeneral32(mp.OutDim(), 2)
	m := &Model{Task: "toy", Labels: []string{"a", "b"}, Map: mp.Recipe(), RLS: &classifier.RLS{Dim: mp.OutDim(), Classes: 2, Lambda: 1, W: w}}
	path := filepath.Join(t.TempDir(), "elss.rfm")
	if err := SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := got.FeatureMap()
	if err != nil {
		t.Fatal(err)
	}
	za, zb := Features(mp, x, 0), Features(fm, x, 0)
	for i := range za.Data {
		if za.Data[i] != zb.Data[i] {
			t.Fatalf("feature %d: %v from the file, %v from the selection", i, zb.Data[i], za.Data[i])
		}
	}
}
