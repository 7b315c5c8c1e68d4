package classifier

import (
	"slices"
	"testing"

	"github.com/rfstream/rfstream/internal/linalg"
)

// SurestPerClass takes, within each decided class, the rows of largest
// margin, ceil(frac·n) of them, classes in order.
func TestSurestPerClass(t *testing.T) {
	s := linalg.NewGeneral32(5, 2)
	copy(s.Data, []float32{
		3, 0, // class 0, margin 3
		0, 1, // class 1, margin 1
		1, 0.5, // class 0, margin 0.5
		0, 4, // class 1, margin 4
		2, 0, // class 0, margin 2
	})
	rows, classes := SurestPerClass(s, []int{0, 1, 2, 3, 4}, 0.5)
	if !slices.Equal(rows, []int{0, 4, 3}) || !slices.Equal(classes, []int{0, 0, 1}) {
		t.Fatalf("picked %v as %v, want rows 0, 4 (class 0) and 3 (class 1)", rows, classes)
	}
	rows, _ = SurestPerClass(s, []int{1, 2}, 1)
	if !slices.Equal(rows, []int{2, 1}) {
		t.Fatalf("restricted to rows 1 and 2: picked %v", rows)
	}
}

// Margin is the best score minus the second best, whatever their order.
func TestMargin(t *testing.T) {
	for _, c := range []struct {
		v    []float32
		want float64
	}{{[]float32{1, 5, 3}, 2}, {[]float32{5, 1, 5}, 0}, {[]float32{-2, -7}, 5}} {
		if got := Margin(c.v); got != c.want {
			t.Errorf("Margin(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
