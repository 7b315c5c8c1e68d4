package maxout

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

// A map a model file names (features.Load) keeps its draws in the data
// cache and gives the features Build's map gives; training's Build writes
// nothing there.
func TestLoadedMapsKeepTheirDrawsAndEqualBuilt(t *testing.T) {
	data := t.TempDir()
	t.Setenv("RFSTREAM_DATA", data)
	for _, p := range []Params{{M: 1024, Q: 2}, {M: 512, Q: 2, Pool: 2048}} {
		r := features.Recipe{Kind: Kind, In: 512, Seed: 11, Params: features.MarshalParams(p)}
		built, err := features.Build(r)
		if err != nil {
			t.Fatal(err)
		}
		if files, _ := filepath.Glob(filepath.Join(data, "draws", "*")); len(files) != 0 {
			t.Fatalf("Build wrote %v", files)
		}
		x := linalg.NewGeneral32(3, r.In)
		features.FillNormal32(features.NewRand(5, 0), x.Data)
		want := linalg.NewGeneral32(3, p.M)
		built.Apply(want, x)
		for range 2 { // drawn and cached, then read back
			loaded, err := features.Load(r)
			if err != nil {
				t.Fatal(err)
			}
			got := linalg.NewGeneral32(3, p.M)
			loaded.Apply(got, x)
			if !slices.Equal(got.Data, want.Data) {
				t.Fatalf("%+v: the loaded map's features differ from the built one's", p)
			}
		}
		os.RemoveAll(filepath.Join(data, "draws"))
		loaded, _ := features.Load(r)
		loaded.Apply(linalg.NewGeneral32(3, p.M), x)
		if files, _ := filepath.Glob(filepath.Join(data, "draws", "normal32-*")); len(files) != 1 {
			t.Fatalf("%+v: Load left %v in the cache, want its one draw", p, files)
		}
		os.RemoveAll(filepath.Join(data, "draws"))
	}
}
