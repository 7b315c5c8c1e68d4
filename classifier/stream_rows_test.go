package classifier

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// streamRows maps rows in order where they lie and gathers the others; both
// give every row's own features and label, and the caller's labels stay.
func TestStreamRowsInOrderAndGathered(t *testing.T) {
	const n, in = 23, 5
	x := linalg.NewGeneral32(n, in)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 3
		for j := range in {
			x.Data[i*in+j] = float32(i*in + j)
		}
	}
	m, err := maxout.New(in, maxout.Params{M: 4, Q: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := features.Apply(m, x, 0)
	// Blocks of 4: in order, gathered, in order, gathered backwards,
	// gathered but spanning four rows, short.
	idx := []int{0, 1, 2, 3, 9, 4, 5, 6, 10, 11, 12, 13, 22, 21, 20, 19, 7, 9, 8, 10, 14, 15, 16}
	var got []int
	err = streamRows(m, x, labels, idx, 4, nil, func(z blas32.General, l []int) error {
		for i := range l {
			r := idx[len(got)]
			if l[i] != r%3 {
				t.Fatalf("row %d has label %d, want %d", r, l[i], r%3)
			}
			for j := range m.OutDim() {
				if a, b := z.Data[i*z.Stride+j], want.Data[r*want.Stride+j]; a != b {
					t.Fatalf("row %d feature %d = %v, want %v", r, j, a, b)
				}
			}
			got = append(got, r)
		}
		return nil
	})
	if err != nil || len(got) != len(idx) {
		t.Fatalf("%d rows streamed, err %v", len(got), err)
	}
	for i, l := range labels {
		if l != i%3 {
			t.Fatalf("label of row %d changed to %d", i, l)
		}
	}
}

// A sink's error ends the stream: streamRows returns it, hands on no
// further block, and its mapping goroutine has stopped when it returns.
func TestStreamRowsStopsAtTheSinksError(t *testing.T) {
	const n, in = 40, 3
	x := linalg.NewGeneral32(n, in)
	labels := make([]int, n)
	m, err := maxout.New(in, maxout.Params{M: 4, Q: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	stop := errors.New("enough")
	calls := 0
	err = streamRows(m, x, labels, identityOrder(n), 4, nil, func(blas32.General, []int) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Fatalf("streamRows returned %v after %d blocks, want the sink's error after 2", err, calls)
	}
	// The goroutine has closed its channel when streamRows returns; it
	// may take a moment more to be gone.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 5 s after streamRows returned, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}
