package main

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// Test-time warping: every test recording is scored under a few pitch /
// formant warps of its word vector (the spectro-warp group's shift along
// the log-frequency axis, applied to the time–frequency patch, so the
// waveform is never touched) and the class scores are pooled. Unlike
// --speaker-warp-by confidence, which picks one warp per voice, nothing
// is chosen: each recording is heard as if spoken a little higher and a
// little lower, and the model's answers are averaged (or the best score
// of each class kept). It is the input-side counterpart of the invariant
// map's pooling over warped templates.

// parseTestWarps reads --test-warps: comma-separated shifts in cents.
func parseTestWarps(s string) ([]float64, error) {
	out, err := cli.ParseDistinct("--test-warps", s, func(part string) (float64, error) {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(v) || math.Abs(v) > 1200 {
			return 0, fmt.Errorf("--test-warps: %q is not a shift in cents within ±1200", part)
		}
		return v, nil
	})
	if err != nil || out == nil {
		return nil, err
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("--test-warps %q: give at least two shifts (one is --speaker-warp's job)", s)
	}
	return out, nil
}

// testWarpViews returns one copy of the raw (unnormalised) test vectors
// per shift, each warped, re-centred and unit-scaled like a word vector,
// then prepared by prep (the speaker normalisation, whose statistics for
// an unseen voice then come from the same warped copy).
func testWarpViews(raw blas32.General, g *transforms.SpectroGroup, cents []float64, prep func(blas32.General)) []blas32.General {
	views := make([]blas32.General, len(cents))
	tmp := make([]float32, raw.Cols)
	for v, c := range cents {
		x := linalg.NewGeneral32(raw.Rows, raw.Cols)
		copy(x.Data, raw.Data)
		if c != 0 {
			for i := 0; i < x.Rows; i++ {
				row := linalg.Row32(x, i)
				g.Apply(tmp, row, transforms.Warp{Cents: c, Tempo: 1})
				copy(row, tmp)
				frontend.UnitWordVector(row)
			}
		}
		prep(x)
		views[v] = x
	}
	return views
}

// pooledScores scores every view and pools per recording and class:
// "mean" averages the scores over the views, "max" keeps the largest.
func pooledScores(views []blas32.General, score func(blas32.General) blas32.General, pool string) (blas32.General, error) {
	if len(views) == 0 {
		return blas32.General{}, fmt.Errorf("test-time warps: no views")
	}
	var combine func(acc, v float32) float32
	switch pool {
	case "mean":
		combine = func(acc, v float32) float32 { return acc + v }
	case "max":
		combine = func(acc, v float32) float32 { return max(acc, v) }
	default:
		return blas32.General{}, fmt.Errorf("unknown --test-warp-pool %q (mean, max)", pool)
	}
	var out blas32.General
	for v, x := range views {
		s := score(x)
		if v == 0 {
			out = linalg.NewGeneral32(s.Rows, s.Cols)
			copy(out.Data, s.Data)
			continue
		}
		for i := 0; i < s.Rows; i++ {
			dst, src := linalg.Row32(out, i), linalg.Row32(s, i)
			for k := range dst {
				dst[k] = combine(dst[k], src[k])
			}
		}
	}
	if pool == "mean" {
		inv := 1 / float32(len(views))
		for i := 0; i < out.Rows; i++ {
			for k, row := 0, linalg.Row32(out, i); k < len(row); k++ {
				row[k] *= inv
			}
		}
	}
	return out, nil
}
