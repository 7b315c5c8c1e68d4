package train

import (
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/features/elss"
	"github.com/rfstream/rfstream/internal/linalg"
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
	m := &engine.Model{Task: "toy", Labels: []string{"a", "b"}, Map: mp.Recipe(), RLS: &classifier.RLS{Dim: mp.OutDim(), Classes: 2, Lambda: 1, W: w}}
	path := filepath.Join(t.TempDir(), "elss.rfm")
	if err := engine.SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := engine.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := got.FeatureMap()
	if err != nil {
		t.Fatal(err)
	}
	za, zb := features.Apply(mp, x, 0), features.Apply(fm, x, 0)
	for i := range za.Data {
		if za.Data[i] != zb.Data[i] {
			t.Fatalf("feature %d: %v from the file, %v from the selection", i, zb.Data[i], za.Data[i])
		}
	}
}

// SelectFeatures chooses λ among its grid on held-out labelled rows, and
// refuses to search without labels.
func TestSelectFeaturesSearchesLambda(t *testing.T) {
	const n, d = 600, 5
	x := linalg.NewGeneral32(n, d)
	features.FillNormal32(features.NewRand(2, 2), x.Data)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 3
		x.Data[i*d+labels[i]] += 2 // class c is shifted along axis c
	}
	base := features.Recipe{Kind: features.FourierKind, In: d, Seed: 4, Params: features.MarshalParams(features.FourierParams{M: 20, Sigma: 2})}
	grid := []float64{1e-3, 1e-1, 10}
	opt := SelectOptions{Config: elss.Config{Algorithm: elss.Top, Pool: 5}, N0: 300, Grid: grid, Seed: 1}
	mp, rep, err := SelectFeatures(base, x, x, labels, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Trials) != len(grid) || mp.OutDim() != 20 || rep.N0 != 300 || rep.M0 != 100 || rep.Seconds <= 0 {
		t.Fatalf("report %+v, %d features", rep, mp.OutDim())
	}
	found := false
	for _, tr := range rep.Trials {
		if tr.Lambda == rep.Lambda {
			found = true
			for _, o := range rep.Trials {
				if o.HeldOutError < tr.HeldOutError {
					t.Fatalf("chose λ=%g (held-out error %v) over λ=%g (%v)", tr.Lambda, tr.HeldOutError, o.Lambda, o.HeldOutError)
				}
			}
		}
	}
	if !found || mp.Params().Lambda != rep.Lambda {
		t.Fatalf("chosen λ %g is not one tried (%+v) or not the map's (%g)", rep.Lambda, rep.Trials, mp.Params().Lambda)
	}
	if _, _, err := SelectFeatures(base, x, x, nil, 3, opt); err == nil {
		t.Fatal("λ search without labels accepted")
	}
}

// SelectFeatures with a pool given by the caller (as invariant maps with
// data templates need) selects from that pool, and refuses a pool that is
// not Pool times the map.
func TestSelectFeaturesFromGivenPool(t *testing.T) {
	x := linalg.NewGeneral32(80, 5)
	features.FillNormal32(features.NewRand(2, 2), x.Data)
	fourier := func(m int, seed uint64) features.Recipe {
		return features.Recipe{Kind: features.FourierKind, In: 5, Seed: seed, Params: features.MarshalParams(features.FourierParams{M: m, Sigma: 1})}
	}
	base := fourier(10, 1)
	pool := fourier(30, 77) // another seed: the selection must come from this pool
	opt := SelectOptions{Config: elss.Config{Algorithm: elss.Top, Pool: 3, Lambda: 0.1}, N0: 40, Seed: 1, PoolRecipe: pool}
	mp, rep, err := SelectFeatures(base, x, x, nil, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := mp.Params().Base; got.Seed != 77 || rep.M0 != 30 || mp.OutDim() != 10 {
		t.Fatalf("selected from pool seed %d, M0 %d, kept %d", got.Seed, rep.M0, mp.OutDim())
	}
	opt.PoolRecipe = fourier(40, 77)
	if _, _, err := SelectFeatures(base, x, x, nil, 2, opt); err == nil {
		t.Fatal("a pool of 40 for 3 × 10 features was accepted")
	}
}
