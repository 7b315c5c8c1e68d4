package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// --normalize none trains on pixels in [0, 1] as they are and says so in
// the model file, so a tagger prepares its inputs the same way; a
// normalisation the program does not know is refused before any work.
func TestTrainImagesRecordsNormalization(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 120)
	for _, norm := range []string{"none", "unit"} {
		out := filepath.Join(dir, norm+".rfm")
		var stdout, stderr bytes.Buffer
		args := []string{"train", "mnist", "--map", "maxout", "--m", "40", "--q", "1", "--normalize", norm,
			"--train-images", trI, "--train-labels", trL, "--out", out}
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		m, err := rfstream.LoadModel(out)
		if err != nil {
			t.Fatal(err)
		}
		var in rfstream.ImageInput
		if err := json.Unmarshal(m.Input, &in); err != nil {
			t.Fatal(err)
		}
		if in.Normalize != norm || in.Scale != "byte/255" || in.Width != 8 || in.Height != 8 {
			t.Errorf("--normalize %s: model input %+v", norm, in)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"train", "mnist", "--normalize", "l1", "--train-images", trI, "--train-labels", trL,
		"--out", filepath.Join(dir, "l1.rfm")}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), `"l1"`) {
		t.Errorf("--normalize l1: exit %d, stderr %q", code, stderr.String())
	}
}

// The demo builds its image flags in code: they must prepare images as the
// parsed flags' default does, with unit rows.
func TestImageFlagsZeroValueIsUnitRows(t *testing.T) {
	var parsed imageFlags
	fs := newFlagSet("test", "", &bytes.Buffer{})
	parsed.register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	var zero imageFlags
	if got, want := zero.input(28, 28), parsed.input(28, 28); got != want || got.Normalize != "unit" {
		t.Errorf("zero-value flags give %+v, parsed defaults %+v", got, want)
	}
}

// A fit of maxout features on images mostly of zeros runs the BLAS on one
// thread unless --blas-threads says otherwise or m is large enough for the
// Gram to dominate; pooled maxout, other maps and dense rows leave the
// BLAS as it is.
func TestFitThreads(t *testing.T) {
	sparse := linalg.NewGeneral32(10, 20)
	dense := linalg.NewGeneral32(10, 20)
	for i := range dense.Data {
		dense.Data[i] = 1
	}
	for i := 0; i < 10; i++ {
		sparse.Data[i*20] = 1
	}
	recipe := func(kind string, p any) features.Recipe {
		return features.Recipe{Kind: kind, In: 20, Params: features.MarshalParams(p)}
	}
	small := recipe(maxout.Kind, maxout.Params{M: 160, Q: 4}) // m ≤ 2·q·d = 160: the map's work is the larger
	large := recipe(maxout.Kind, maxout.Params{M: 161, Q: 4})
	pooled := recipe(maxout.Kind, maxout.Params{M: 100, Q: 4, Pool: 50})
	fourier := recipe("fourier", features.FourierParams{M: 100, Sigma: 1})
	for _, c := range []struct {
		flag   int
		recipe features.Recipe
		x      blas32.General
		want   int
	}{{0, small, sparse, 1}, {0, large, sparse, 0}, {0, pooled, sparse, 0}, {0, small, dense, 0}, {0, fourier, sparse, 0},
		{3, small, sparse, 3}, {2, fourier, dense, 2}} {
		if got := fitThreads(c.flag, c.recipe, c.x); got != c.want {
			t.Errorf("--blas-threads %d, %s map: %d threads, want %d", c.flag, c.recipe.Kind, got, c.want)
		}
	}
}

// eval table1 fits every cell of its q × m grid, small m with several
// seeds, one CSV row a fit; it takes --blas-threads, and the BLAS's thread
// count is the same after the grid as before, whatever each fit chose.
func TestTable1GridAndThreads(t *testing.T) {
	dir := t.TempDir()
	trI, trL := writeIDX(t, dir, "train", 120)
	teI, teL := writeIDX(t, dir, "test", 30)
	before := linalg.Threads()
	for _, threads := range []string{"0", "1"} {
		out := filepath.Join(dir, "t"+threads)
		args := []string{"eval", "table1", "--q", "2,4", "--m", "20,2000", "--seeds", "2", "--rff", "0", "--blas-threads", threads,
			"--train-images", trI, "--train-labels", trL, "--test-images", teI, "--test-labels", teL, "--out", out}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("--blas-threads %s: exit %d: %s", threads, code, stderr.String())
		}
		if got := linalg.Threads(); got != before {
			t.Errorf("--blas-threads %s: %d BLAS threads after the grid, %d before", threads, got, before)
		}
		b, err := os.ReadFile(out + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		// m = 20 (≤ 1000) with 2 seeds, m = 2000 with one, for each q.
		if len(rows) != 2*(2+1) {
			t.Fatalf("--blas-threads %s: %d fits in the CSV, want 6:\n%s", threads, len(rows), b)
		}
		for _, r := range rows {
			if !strings.HasPrefix(r, "maxout,") {
				t.Errorf("row %q: not a maxout fit", r)
			}
		}
	}
}
