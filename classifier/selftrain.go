package classifier

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/linalg"
)

// Self-training: a model labels rows it was not trained on, the surest of
// them join its training rows under those labels, and the read-out is
// fitted again (the speech models' adaptation to a new voice).

// RefitWithRows is one self-training round's refit in full: the read-out
// on map m fitted to the training rows trainX (labels trainY) plus the
// given rows of x under the labels the model gave them, with lambda, the
// training fit's λ, grown with the rows as FitRLS's refit grows the λ its
// held-out rows chose. A word model adapting to a voice refits so (or,
// when the fit is primal, with the training rows' sums accumulated once);
// eval digits --self-train refits so on every voice absent from training.
func RefitWithRows(m Featurizer, trainX blas32.General, trainY []int, classes int, lambda float64, seed uint64, x blas32.General, rows, labels []int) (*RLS, error) {
	xa := linalg.AppendRows32(trainX, x, rows)
	ya := append(append([]int(nil), trainY...), labels...)
	r, _, err := FitRLS(m, xa, ya, classes, FitOptions{Lambda: lambda * float64(trainX.Rows+len(rows)) / float64(trainX.Rows), Seed: seed})
	return r, err
}

// SurestPerClass picks, among the given rows of scores, the fraction frac
// the scores are surest of within each decided class: the rows with the
// largest best-minus-second-best margin, ceil(frac·n) of a class's n.
// Ranking within classes keeps a class the model is generally less sure
// of from being left out, which would teach an adapted model that the
// class never occurs. It returns the rows, class by class in class order,
// and their decided classes.
func SurestPerClass(scores blas32.General, rows []int, frac float64) (picked, classes []int) {
	type cand struct {
		row int
		m   float64
	}
	decided := Argmax(scores)
	byClass := map[int][]cand{}
	for _, i := range rows {
		c := decided[i]
		byClass[c] = append(byClass[c], cand{i, Margin(linalg.Row32(scores, i))})
	}
	order := make([]int, 0, len(byClass))
	for c := range byClass {
		order = append(order, c)
	}
	sort.Ints(order)
	for _, c := range order {
		cs := byClass[c]
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].m > cs[b].m })
		k := int(math.Ceil(frac * float64(len(cs))))
		for _, x := range cs[:k] {
			picked = append(picked, x.row)
			classes = append(classes, c)
		}
	}
	return picked, classes
}

// Margin is the best score minus the second best.
func Margin(v []float32) float64 {
	b1, b2 := math.Inf(-1), math.Inf(-1)
	for _, x := range v {
		switch f := float64(x); {
		case f > b1:
			b1, b2 = f, b1
		case f > b2:
			b2 = f
		}
	}
	return b1 - b2
}
