package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/train"
	"github.com/rfstream/rfstream/transforms"
)

func TestPooledScoresMeanAndMax(t *testing.T) {
	views := []blas32.General{
		{Rows: 2, Cols: 2, Stride: 2, Data: []float32{1, 0, 0, 0}},
		{Rows: 2, Cols: 2, Stride: 2, Data: []float32{0, 0, 0, 0}},
		{Rows: 2, Cols: 2, Stride: 2, Data: []float32{0, 0, 0, 0}},
	}
	// The "model" maps view v's row i to (x0 + v, x1 − i).
	call := 0
	score := func(x blas32.General) blas32.General {
		out := linalg.NewGeneral32(x.Rows, 2)
		for i := 0; i < x.Rows; i++ {
			r := linalg.Row32(x, i)
			linalg.Row32(out, i)[0] = r[0] + float32(call)
			linalg.Row32(out, i)[1] = r[1] - float32(i)
		}
		call++
		return out
	}
	mean, err := pooledScores(views, score, "mean")
	if err != nil {
		t.Fatal(err)
	}
	// row 0: class 0 is (1+0, 0+1, 0+2)/3 = 4/3; class 1 is 0. row 1: 1, −1.
	want := []float32{4.0 / 3, 0, 1, -1}
	for i := range want {
		if math.Abs(float64(mean.Data[i]-want[i])) > 1e-6 {
			t.Fatalf("mean %v, want %v", mean.Data, want)
		}
	}
	call = 0
	mx, _ := pooledScores(views, score, "max")
	want = []float32{2, 0, 2, -1}
	for i := range want {
		if mx.Data[i] != want[i] {
			t.Fatalf("max %v, want %v", mx.Data, want)
		}
	}
	if _, err := pooledScores(views, score, "median"); err == nil {
		t.Fatal("unknown pooling accepted")
	}
}

// Each view is the raw vector warped by its shift (untouched at 0),
// re-normalised, then prepared.
func TestTestWarpViews(t *testing.T) {
	wc := frontend.DefaultWordConfig()
	wc.Frames = 8
	g, err := transforms.Build(train.WordGroup(wc, 400, 2, false))
	if err != nil {
		t.Fatal(err)
	}
	sg := g.(*transforms.SpectroGroup)
	raw := linalg.NewGeneral32(3, wc.Dim())
	for i := range raw.Data {
		raw.Data[i] = float32(math.Sin(float64(i) * 0.37))
	}
	prepped := 0
	views := testWarpViews(raw, sg, []float64{0, 200}, func(blas32.General) { prepped++ })
	if prepped != 2 || len(views) != 2 {
		t.Fatalf("%d views, prep called %d times", len(views), prepped)
	}
	for i, v := range raw.Data {
		if views[0].Data[i] != v {
			t.Fatal("the 0-cent view differs from the raw vectors")
		}
	}
	want := make([]float32, wc.Dim())
	sg.Apply(want, linalg.Row32(raw, 1), transforms.Warp{Cents: 200, Tempo: 1})
	frontend.UnitWordVector(want)
	for k, v := range linalg.Row32(views[1], 1) {
		if v != want[k] {
			t.Fatalf("the 200-cent view's row 1 differs from the warped row at %d", k)
		}
	}
	for _, bad := range []string{"100", "0,0", "x,1", "0,2000"} {
		if _, err := parseTestWarps(bad); err == nil {
			t.Errorf("--test-warps %q accepted", bad)
		}
	}
}

// Test-time warps that change nothing (0 and 0.001 cents) leave every
// prediction and its score margin as without them, with self-training
// too (the pooled scores reach the first fit and every refit), while
// real warps change the margins.
func TestEvalDigitsTestWarpsNearIdentity(t *testing.T) {
	fsdd := toyFSDD(t)
	dir := t.TempDir()
	runs := 0
	preds := func(extra ...string) map[string]prediction {
		runs++
		path := filepath.Join(dir, fmt.Sprintf("p%d.tsv", runs))
		var out, errb bytes.Buffer
		args := append([]string{"eval", "digits", "--fsdd", fsdd, "--split", "speaker", "--m", "20", "--frames", "16",
			"--speaker-norm", "mean", "--self-train", "0.5,1", "--predictions", path}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		p, err := readPredictions(path)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := preds()
	for _, pool := range []string{"mean", "max"} {
		got := preds("--test-warps", "0,0.001", "--test-warp-pool", pool)
		for path, p := range plain {
			if q := got[path]; q.Predicted != p.Predicted || math.Abs(q.Margin-p.Margin) > 1e-3*(1+math.Abs(p.Margin)) {
				t.Fatalf("%s pooling: %s gives %+v, without test warps %+v", pool, path, q, p)
			}
		}
	}
	var moved int
	for path, q := range preds("--test-warps", "-300,0,300") {
		if math.Abs(q.Margin-plain[path].Margin) > 1e-3*(1+math.Abs(plain[path].Margin)) {
			moved++
		}
	}
	if moved < len(plain)/2 {
		t.Fatalf("±300-cent test warps changed the margin of %d of %d recordings", moved, len(plain))
	}
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "digits", "--fsdd", fsdd, "--test-warps", "-100,100", "--mismatch"}, &out, &errb); code == 0 {
		t.Fatal("--test-warps with --mismatch accepted")
	}
}
