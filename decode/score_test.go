package decode

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

func TestEditDistanceHandCases(t *testing.T) {
	f := strings.Fields
	cases := []struct {
		ref, hyp      string
		sub, ins, del int
		ops           string
	}{
		{"", "", 0, 0, 0, ""},
		{"a b c", "a b c", 0, 0, 0, "=a =b =c"},
		{"a b c", "", 0, 0, 3, "-a -b -c"},
		{"", "x y", 0, 2, 0, "+x +y"},
		{"a b c", "a x c", 1, 0, 0, "=a b/x =c"},
		{"a b c d", "a c d", 0, 0, 1, "=a -b =c =d"},
		{"a c d", "a b c d", 0, 1, 0, "=a +b =c =d"},
		// kitten → sitting: two substitutions and an insertion.
		{"k i t t e n", "s i t t i n g", 2, 1, 0, "k/s =i =t =t e/i =n +g"},
		{"one two three", "two three four", 0, 1, 1, "-one =two =three +four"},
	}
	for _, c := range cases {
		e := EditDistance(f(c.ref), f(c.hyp))
		var ops []string
		for _, o := range e.Ops {
			switch o.Kind {
			case Match:
				ops = append(ops, "="+f(c.ref)[o.Ref])
			case Substitution:
				ops = append(ops, f(c.ref)[o.Ref]+"/"+f(c.hyp)[o.Hyp])
			case Deletion:
				ops = append(ops, "-"+f(c.ref)[o.Ref])
			case Insertion:
				ops = append(ops, "+"+f(c.hyp)[o.Hyp])
			}
		}
		if e.Sub != c.sub || e.Ins != c.ins || e.Del != c.del || strings.Join(ops, " ") != c.ops || e.RefLen != len(f(c.ref)) {
			t.Errorf("%q → %q: S%d I%d D%d %q, want S%d I%d D%d %q", c.ref, c.hyp, e.Sub, e.Ins, e.Del, strings.Join(ops, " "), c.sub, c.ins, c.del, c.ops)
		}
	}
}

// The alignment's cost equals the textbook recursion's distance, and its
// ops consume both sequences exactly.
func TestEditDistanceIsMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var lev func(a, b []string) int
	lev = func(a, b []string) int {
		if len(a) == 0 || len(b) == 0 {
			return len(a) + len(b)
		}
		c := 1
		if a[0] == b[0] {
			c = 0
		}
		return min(lev(a[1:], b[1:])+c, lev(a[1:], b)+1, lev(a, b[1:])+1)
	}
	for range 300 {
		gen := func() []string {
			s := make([]string, rng.IntN(6))
			for i := range s {
				s[i] = string(rune('a' + rng.IntN(3)))
			}
			return s
		}
		ref, hyp := gen(), gen()
		e := EditDistance(ref, hyp)
		if e.Errors() != lev(ref, hyp) {
			t.Fatalf("%v → %v: %d errors, distance %d", ref, hyp, e.Errors(), lev(ref, hyp))
		}
		i, j := 0, 0
		for _, o := range e.Ops {
			if o.Kind != Insertion {
				if o.Ref != i {
					t.Fatalf("ops skip reference tokens: %+v", e.Ops)
				}
				i++
			}
			if o.Kind != Deletion {
				if o.Hyp != j {
					t.Fatalf("ops skip hypothesis tokens: %+v", e.Ops)
				}
				j++
			}
		}
		if i != len(ref) || j != len(hyp) || e.Hits+e.Sub+e.Del != len(ref) {
			t.Fatalf("ops do not cover %v → %v: %+v", ref, hyp, e)
		}
	}
}

func TestErrorCounts(t *testing.T) {
	var c ErrorCounts
	c.Add([]string{"1", "2", "3"}, []string{"1", "2", "3"})
	c.Add([]string{"4", "5"}, []string{"4", "6", "7"})
	c.Add([]string{"8", "9", "0", "1", "2"}, []string{"8", "0", "1", "2"})
	// 10 reference words, 1 sub + 1 ins + 1 del; 2 of 3 strings wrong.
	if c.Ref != 10 || c.ErrorRate() != 0.3 || math.Abs(c.SER()-2.0/3) > 1e-15 {
		t.Fatalf("%+v: rate %v SER %v", c, c.ErrorRate(), c.SER())
	}
}

func TestErrorRateEdges(t *testing.T) {
	var c ErrorCounts
	if c.ErrorRate() != 0 || c.SER() != 0 {
		t.Fatal("empty counts give a nonzero rate")
	}
	c.Add(nil, []string{"x"})
	if c.ErrorRate() != 1 || c.SER() != 1 {
		t.Fatalf("an insertion against an empty reference: rate %v SER %v", c.ErrorRate(), c.SER())
	}
}

func TestPhoneMap(t *testing.T) {
	src := "# TIMIT-style\naa aa aa\nao aa aa\nq\nix ix ih  # folded\npau  h#\n\n"
	m, err := ParsePhoneMap(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := PhoneMap{"aa": "aa", "ao": "aa", "q": "", "ix": "ih", "pau": "h#"}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("parsed %v, want %v", m, want)
	}
	got := m.Fold(strings.Fields("ao q ix b pau"))
	if !reflect.DeepEqual(got, []string{"aa", "ih", "b", "h#"}) {
		t.Fatalf("folded %v", got)
	}
	for _, bad := range []string{"a b c d\n", "a b\na c\n"} {
		if _, err := ParsePhoneMap(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParsePhoneMap(f *testing.F) {
	for _, s := range []string{"aa aa aa\nq\n", "# c\n\nx y\n", "a b c d", "a b\na c", "\x00\xff ß\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParsePhoneMap(strings.NewReader(s))
		if err != nil {
			return
		}
		for k, v := range m {
			if k == "" || strings.HasPrefix(k, "#") || strings.HasPrefix(v, "#") || strings.ContainsAny(k+v, " \t\n") {
				t.Fatalf("entry %q → %q", k, v)
			}
		}
	})
}

func TestPriorsAndScaledLikelihoods(t *testing.T) {
	lp, err := LogPriors([]int{0, 0, 0, 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// counts+1 = 4, 2, 1 over 7.
	for c, want := range []float64{4.0 / 7, 2.0 / 7, 1.0 / 7} {
		if math.Abs(lp[c]-math.Log(want)) > 1e-15 {
			t.Fatalf("prior %d: %v, want log %v", c, lp[c], want)
		}
	}
	if _, err := LogPriors([]int{3}, 3); err == nil {
		t.Fatal("label 3 of 3 classes accepted")
	}
	post := blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: []float32{0.5, 0.25, 0.25, 0, -1, 1}}
	dst := blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float32, 6)}
	if err := ScaledLikelihoods(dst, post, lp, 1e-4); err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Log(0.5) - lp[0], math.Log(0.25) - lp[1], math.Log(0.25) - lp[2],
		math.Log(1e-4) - lp[0], math.Log(1e-4) - lp[1], -lp[2]}
	for i, w := range want {
		if math.Abs(float64(dst.Data[i])-w) > 1e-6 {
			t.Fatalf("scaled %d: %v, want %v", i, dst.Data[i], w)
		}
	}
	if err := ScaledLikelihoods(dst, post, lp[:2], 1e-4); err == nil {
		t.Fatal("prior count mismatch accepted")
	}
	if err := ScaledLikelihoods(dst, post, lp, 0); err == nil {
		t.Fatal("zero floor accepted")
	}
}
