package features

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

func TestNormalStreamIsReproducibleAndIndependent(t *testing.T) {
	a := make([]float32, 1001)
	b := make([]float32, 1001)
	FillNormal32(NewRand(7, 0), a)
	FillNormal32(NewRand(7, 0), b)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed and stream differ at %d: %v vs %v", i, a[i], b[i])
		}
	}
	FillNormal32(NewRand(7, 1), b)
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	if same > 2 {
		t.Fatalf("streams 0 and 1 of one seed share %d values", same)
	}
}

func TestNormalMoments(t *testing.T) {
	const n = 200000
	x := make([]float64, n)
	FillNormal64(NewRand(1, 0), x)
	var s1, s2, s4 float64
	for _, v := range x {
		s1 += v
		s2 += v * v
		s4 += v * v * v * v
	}
	mean, varc, kurt := s1/n, s2/n, s4/n
	// Standard errors: mean 1/sqrt(n) ≈ 0.0022, variance sqrt(2/n) ≈ 0.0032,
	// fourth moment sqrt(96/n) ≈ 0.022; allow five of each.
	if math.Abs(mean) > 0.011 || math.Abs(varc-1) > 0.016 || math.Abs(kurt-3) > 0.11 {
		t.Fatalf("moments mean=%.4f var=%.4f m4=%.4f, want 0, 1, 3", mean, varc, kurt)
	}
}

func TestIdentityRoundTrip(t *testing.T) {
	m, err := Build(Recipe{Kind: "identity", In: 3})
	if err != nil {
		t.Fatal(err)
	}
	x := blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	dst := blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float32, 6)}
	m.Apply(dst, x)
	for i := range x.Data {
		if dst.Data[i] != x.Data[i] {
			t.Fatalf("identity changed element %d: %v → %v", i, x.Data[i], dst.Data[i])
		}
	}
	if _, err := Build(Recipe{Kind: "nonsense", In: 3}); err == nil {
		t.Fatal("unknown kind built without error")
	}
}

func TestUnmarshalParamsRejectsUnknownFields(t *testing.T) {
	var p struct{ M int }
	r := Recipe{Kind: "x", In: 1, Params: []byte(`{"M":3,"Extra":1}`)}
	if err := UnmarshalParams(r, &p); err == nil {
		t.Fatal("unknown field accepted")
	}
}
