package classifier

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/rfstream/rfstream/internal/linalg"
)

// bruteKNN is the definition: sort all distances, vote among the first k.
func bruteKNN(k int, x [][]float64, labels []int, q []float64, classes int) int {
	type nd struct {
		d float64
		l int
	}
	var all []nd
	for i, row := range x {
		var d float64
		for c := range row {
			d += (row[c] - q[c]) * (row[c] - q[c])
		}
		all = append(all, nd{d, labels[i]})
	}
	sort.Slice(all, func(a, b int) bool { return all[a].d < all[b].d })
	votes := make([]int, classes)
	sums := make([]float64, classes)
	for _, v := range all[:k] {
		votes[v.l]++
		sums[v.l] += math.Sqrt(v.d)
	}
	// Ties go to the class whose members are nearest in sum.
	best := 0
	for c := range votes {
		if votes[c] > votes[best] || (votes[c] == votes[best] && sums[c] < sums[best]) {
			best = c
		}
	}
	return best
}

func TestKNNMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, d, classes = 300, 6, 3
	x := linalg.NewGeneral32(n, d)
	xs := make([][]float64, n)
	labels := make([]int, n)
	for i := range xs {
		labels[i] = r.IntN(classes)
		xs[i] = make([]float64, d)
		for c := range xs[i] {
			// Classes are shifted clouds, so neighbours mostly agree.
			v := float32(r.NormFloat64() + 1.5*float64(labels[i]*(c%2)))
			x.Data[i*d+c] = v
			xs[i][c] = float64(v)
		}
	}
	q := linalg.NewGeneral32(200, d)
	qs := make([][]float64, 200)
	for i := range qs {
		qs[i] = make([]float64, d)
		for c := range qs[i] {
			v := float32(2 * r.NormFloat64())
			q.Data[i*d+c] = v
			qs[i][c] = float64(v)
		}
	}
	for _, k := range []int{1, 4, 7} {
		knn, err := NewKNN(k, x, labels)
		if err != nil {
			t.Fatal(err)
		}
		got := knn.Predict(q)
		for i := range qs {
			if want := bruteKNN(k, xs, labels, qs[i], classes); got[i] != want {
				t.Errorf("%d-NN query %d: %d, brute force %d", k, i, got[i], want)
			}
		}
	}
	// Training points classify themselves with 1-NN.
	knn, _ := NewKNN(1, x, labels)
	if e := ErrorRate(knn.Predict(x), labels); e != 0 {
		t.Errorf("1-NN training error %v", e)
	}
	if _, err := NewKNN(0, x, labels); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := NewKNN(1, x, labels[:5]); err == nil {
		t.Error("label count mismatch accepted")
	}
}
