package main

import (
	"math"
	"testing"

	"github.com/rfstream/rfstream/internal/linalg"
)

// Points on an arc embedded in a 2-D plane of a 50-D space: the top two
// components hold all the variance, keep the distances up to one scale, and
// keep the order along the arc.
func TestPCA2RecoversAPlanarArc(t *testing.T) {
	const n = 21
	x := linalg.NewGeneral32(n, 50)
	for i := 0; i < n; i++ {
		a := math.Pi * float64(i) / float64(n-1) // half circle
		r := linalg.Row32(x, i)
		for j := range r {
			r[j] = float32(0.3*math.Cos(a)*math.Sin(float64(j)) + 0.3*math.Sin(a)*math.Cos(float64(3*j)) + 0.1)
		}
	}
	pc, explained := pca2(x)
	if math.Abs(explained-1) > 1e-4 {
		t.Fatalf("explained %v, want 1", explained)
	}
	dist := func(i, j int) float64 {
		var s float64
		for k := 0; k < 50; k++ {
			d := float64(linalg.Row32(x, i)[k] - linalg.Row32(x, j)[k])
			s += d * d
		}
		return math.Sqrt(s)
	}
	scale := math.Hypot(pc[0][0]-pc[n-1][0], pc[0][1]-pc[n-1][1]) / dist(0, n-1)
	for _, p := range [][2]int{{0, 5}, {3, 17}, {10, 11}} {
		got := math.Hypot(pc[p[0]][0]-pc[p[1]][0], pc[p[0]][1]-pc[p[1]][1])
		if want := scale * dist(p[0], p[1]); math.Abs(got-want) > 1e-3*want {
			t.Fatalf("distance %v: %v, want %v", p, got, want)
		}
	}
	adj, kept := angleOrder(pc)
	if adj != n || kept != 1 {
		t.Fatalf("arc order: %d adjacent of %d, %.3f of neighbourhoods kept", adj, n, kept)
	}
	// A shuffled order is not kept.
	pc[3], pc[15] = pc[15], pc[3]
	if adj, kept = angleOrder(pc); adj == n || kept == 1 {
		t.Fatalf("shuffled arc still ordered: %d, %.3f", adj, kept)
	}
}
