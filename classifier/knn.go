package classifier

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/internal/linalg"
)

// KNN is a k-nearest-neighbour classifier under Euclidean distance: the
// paper's check that distances between feature vectors carry the classes.
// Distances to all stored rows come from one matrix product per block of
// queries, ‖q − x‖² = ‖q‖² + ‖x‖² − 2⟨q, x⟩.
type KNN struct {
	K       int
	Classes int
	x       blas32.General
	labels  []int
	norms   []float32
}

// NewKNN stores the training rows (copied) and their labels.
func NewKNN(k int, x blas32.General, labels []int) (*KNN, error) {
	if k < 1 {
		return nil, fmt.Errorf("classifier: kNN needs k ≥ 1, have %d", k)
	}
	if x.Rows != len(labels) || x.Rows == 0 {
		return nil, fmt.Errorf("classifier: kNN needs training rows with one label each, have %d rows and %d labels", x.Rows, len(labels))
	}
	c := 0
	for _, l := range labels {
		if l < 0 {
			return nil, fmt.Errorf("classifier: negative label %d", l)
		}
		c = max(c, l+1)
	}
	n := &KNN{K: min(k, x.Rows), Classes: c, x: linalg.NewGeneral32(x.Rows, x.Cols), labels: append([]int(nil), labels...)}
	for i := 0; i < x.Rows; i++ {
		copy(linalg.Row32(n.x, i), linalg.Row32(x, i))
	}
	n.norms = sqNorms(n.x)
	return n, nil
}

func sqNorms(x blas32.General) []float32 {
	out := make([]float32, x.Rows)
	for i := range out {
		var s float64
		for _, v := range linalg.Row32(x, i) {
			s += float64(v) * float64(v)
		}
		out[i] = float32(s)
	}
	return out
}

// Predict returns the majority label among the K nearest training rows of
// every query row; ties go to the class whose members are nearest in sum.
func (n *KNN) Predict(q blas32.General) []int {
	if q.Cols != n.x.Cols {
		panic(fmt.Sprintf("classifier: kNN queries have %d columns, training rows %d", q.Cols, n.x.Cols))
	}
	out := make([]int, q.Rows)
	// Blocks of queries bound the distance matrix at about 16 MB.
	block := max(1, min(q.Rows, (4<<20)/n.x.Rows))
	d := linalg.NewGeneral32(block, n.x.Rows)
	for b0 := 0; b0 < q.Rows; b0 += block {
		b1 := min(b0+block, q.Rows)
		qb := linalg.Rows32(q, b0, b1)
		db := linalg.Rows32(d, 0, b1-b0)
		linalg.MulABt32(db, qb, n.x)
		qn := sqNorms(qb)
		linalg.ParallelRows(b1-b0, 4, func(r0, r1 int) {
			idx := make([]int, n.K)
			dist := make([]float32, n.K)
			votes := make([]int, n.Classes)
			sums := make([]float64, n.Classes)
			for i := r0; i < r1; i++ {
				out[b0+i] = n.vote(linalg.Row32(db, i), qn[i], idx, dist, votes, sums)
			}
		})
	}
	return out
}

// vote keeps the K smallest squared distances of one query by insertion
// (K is small) and returns the majority class.
func (n *KNN) vote(dots []float32, qn float32, idx []int, dist []float32, votes []int, sums []float64) int {
	kept := 0
	for j, dt := range dots {
		dj := qn + n.norms[j] - 2*dt
		if kept == n.K && dj >= dist[kept-1] {
			continue
		}
		pos := kept
		if kept < n.K {
			kept++
		} else {
			pos = n.K - 1
		}
		for pos > 0 && dist[pos-1] > dj {
			dist[pos], idx[pos] = dist[pos-1], idx[pos-1]
			pos--
		}
		dist[pos], idx[pos] = dj, j
	}
	clear(votes)
	clear(sums)
	for i := 0; i < kept; i++ {
		l := n.labels[idx[i]]
		votes[l]++
		sums[l] += math.Sqrt(math.Max(0, float64(dist[i])))
	}
	best := -1
	for c := range votes {
		if votes[c] == 0 {
			continue
		}
		if best < 0 || votes[c] > votes[best] || (votes[c] == votes[best] && sums[c] < sums[best]) {
			best = c
		}
	}
	return best
}
