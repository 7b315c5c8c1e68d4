package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// parseSelfTrain reads --self-train: the fraction of an unseen voice's
// recordings taken as pseudo-labelled training examples in each round.
func parseSelfTrain(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("--self-train: %q is not a fraction in (0, 1]", f)
		}
		out = append(out, v)
	}
	if len(out) > 10 {
		return nil, fmt.Errorf("--self-train: %d rounds (at most 10)", len(out))
	}
	return out, nil
}

// pseudoLabelled picks, for every test speaker absent from training, the
// fraction frac of their recordings the model is surest of, class by
// class: within each predicted class the recordings with the largest
// top-1 − top-2 score margin. Ranking within classes keeps a class the
// model is generally less sure of from being left out, which would teach
// the voice's adapted model that the class never occurs. It returns the
// rows and their predicted classes.
func pseudoLabelled(scores blas32.General, test []datasets.Recording, trained map[string]bool, frac float64) (rows, labels []int) {
	type cand struct {
		row int
		m   float64
	}
	groups := map[string]map[int][]cand{} // speaker → predicted class → candidates
	for i, r := range test {
		if trained[r.Speaker] {
			continue
		}
		s := linalg.Row32(scores, i)
		c := argmax32(s)
		if groups[r.Speaker] == nil {
			groups[r.Speaker] = map[int][]cand{}
		}
		groups[r.Speaker][c] = append(groups[r.Speaker][c], cand{i, margin(s)})
	}
	for _, spk := range sortedKeys(groups) {
		byClass := groups[spk]
		classes := make([]int, 0, len(byClass))
		for c := range byClass {
			classes = append(classes, c)
		}
		sort.Ints(classes)
		for _, c := range classes {
			cs := byClass[c]
			sort.SliceStable(cs, func(a, b int) bool { return cs[a].m > cs[b].m })
			k := int(math.Ceil(frac * float64(len(cs))))
			for _, x := range cs[:k] {
				rows = append(rows, x.row)
				labels = append(labels, c)
			}
		}
	}
	return rows, labels
}

func argmax32(v []float32) int {
	best := 0
	for k, x := range v {
		if x > v[best] {
			best = k
		}
	}
	return best
}

// withRows returns x with the given rows of extra appended, and y with
// their labels.
func withRows(x blas32.General, y []int, extra blas32.General, rows, labels []int) (blas32.General, []int) {
	out := linalg.NewGeneral32(x.Rows+len(rows), x.Cols)
	copy(out.Data, x.Data[:x.Rows*x.Cols])
	for k, r := range rows {
		copy(linalg.Row32(out, x.Rows+k), linalg.Row32(extra, r))
	}
	return out, append(append([]int(nil), y...), labels...)
}

// warpedTest returns the test vectors as the model scored them after the
// confidence-chosen warp: each unseen speaker's raw rows warped by their
// shift, made unit word vectors again, then speaker-normalised by prep.
func warpedTest(raw blas32.General, test []datasets.Recording, chosen map[string]float64, g *transforms.SpectroGroup, prep func(blas32.General)) blas32.General {
	x := linalg.NewGeneral32(raw.Rows, raw.Cols)
	copy(x.Data, raw.Data)
	tmp := make([]float32, raw.Cols)
	for i, r := range test {
		c := chosen[r.Speaker]
		if c == 0 {
			continue
		}
		row := linalg.Row32(x, i)
		g.Apply(tmp, row, transforms.Warp{Cents: c, Tempo: 1})
		copy(row, tmp)
		centreAndNormalise(row)
	}
	prep(x)
	return x
}
