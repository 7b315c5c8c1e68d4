package parallel

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForVisitsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		seen := make([]int32, n)
		For(n, func(i int) { atomic.AddInt32(&seen[i], 1) })
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d ran %d times", n, i, c)
			}
		}
	}
}

func TestForErrJoinsInIndexOrder(t *testing.T) {
	err := ForErr(10, func(i int) error {
		if i%4 == 1 {
			return fmt.Errorf("job %d", i)
		}
		return nil
	})
	if err == nil || err.Error() != "job 1\njob 5\njob 9" {
		t.Fatalf("ForErr = %v, want jobs 1, 5 and 9 in order", err)
	}
	if err := ForErr(3, func(int) error { return nil }); err != nil {
		t.Fatalf("ForErr with no failure = %v", err)
	}
	var sentinel = errors.New("x")
	if err := ForErr(1, func(int) error { return sentinel }); !errors.Is(err, sentinel) {
		t.Fatalf("ForErr loses the wrapped error: %v", err)
	}
}
