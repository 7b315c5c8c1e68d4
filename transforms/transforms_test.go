package transforms

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// smoothImage is a band-limited test image whose frequencies scale with
// k: bilinear interpolation error falls as k², so rotation round trips
// should nearly return it, and more nearly the smoother it is.
func smoothImage(w, h int, k float64) []float32 {
	img := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			fx, fy := k*float64(x)/float64(w), k*float64(y)/float64(h)
			img[y*w+x] = float32(math.Sin(2*math.Pi*fx)*math.Cos(3*math.Pi*fy) + 0.5*math.Cos(2*math.Pi*(fx+fy)))
		}
	}
	return img
}

func randomImage(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(Uniform(r))
	}
	return v
}

func TestZeroRotationAndShiftAreIdentity(t *testing.T) {
	sz := ImageSize{Width: 28, Height: 28}
	rot, err := NewRotationGroup(RotationParams{ImageSize: sz, MaxDegrees: 20})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTranslationGroup(TranslationParams{ImageSize: sz, MaxShift: 3, SubPixel: true})
	if err != nil {
		t.Fatal(err)
	}
	prod, err := NewProductGroup(rot, tr)
	if err != nil {
		t.Fatal(err)
	}
	src := randomImage(newRand(1), 28*28)
	dst := make([]float32, len(src))
	for _, c := range []struct {
		g Group
		e Element
	}{{rot, Angle(0)}, {tr, Shift{}}, {prod, prod.Identity()}, {rot, rot.Identity()}} {
		c.g.Apply(dst, src, c.e)
		if !reflect.DeepEqual(dst, src) {
			t.Errorf("%s by %v is not the identity", c.g.Spec().Kind, c.e)
		}
	}
}

func TestIntegerShiftMovesPixelsExactly(t *testing.T) {
	sz := ImageSize{Width: 9, Height: 7}
	tr, _ := NewTranslationGroup(TranslationParams{ImageSize: sz, MaxShift: 3})
	src := randomImage(newRand(2), 63)
	dst := make([]float32, 63)
	tr.Apply(dst, src, Shift{DX: 2, DY: -1})
	for y := 0; y < 7; y++ {
		for x := 0; x < 9; x++ {
			want := float32(0)
			if sx, sy := x-2, y+1; sx >= 0 && sy < 7 {
				want = src[sy*9+sx]
			}
			if dst[y*9+x] != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, dst[y*9+x], want)
			}
		}
	}
	es, ok := tr.Elements()
	if !ok || len(es) != 49 {
		t.Fatalf("integer ±3 px shifts: %d elements (finite %v), want 49", len(es), ok)
	}
}

func TestRotationRoundTripInterior(t *testing.T) {
	const w, h = 29, 29
	sz := ImageSize{Width: w, Height: h}
	rot, _ := NewRotationGroup(RotationParams{ImageSize: sz, MaxDegrees: 20})
	fwd := make([]float32, w*h)
	back := make([]float32, w*h)
	// roundTrip returns the largest interior error of rotating by deg and
	// back, and how much the rotation itself changed the interior.
	roundTrip := func(src []float32, deg float64) (worst, changed float64) {
		rot.Apply(fwd, src, Angle(deg))
		rot.Apply(back, fwd, rot.Inverse(Angle(deg)))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				dx, dy := float64(x)-14, float64(y)-14
				if dx*dx+dy*dy > 12*12 { // interior disc: never rotated out of the frame
					continue
				}
				i := y*w + x
				worst = math.Max(worst, math.Abs(float64(back[i]-src[i])))
				changed = math.Max(changed, math.Abs(float64(fwd[i]-src[i])))
			}
		}
		return worst, changed
	}
	for _, deg := range []float64{-20, -7.5, 3, 11, 20} {
		worst, changed := roundTrip(smoothImage(w, h, 1), deg)
		// Two bilinear resamplings of a unit-amplitude image with a 19 px
		// wavelength blur it by a few percent.
		if worst > 0.06 {
			t.Errorf("rotate %v° and back: interior error %.4f", deg, worst)
		}
		if math.Abs(deg) >= 7 && changed < 10*worst {
			t.Errorf("rotate %v° changed the interior by %.4f, round-trip error %.4f", deg, changed, worst)
		}
		// Interpolation error is second order: halving every frequency
		// must cut it by about four (we ask for three).
		smoother, _ := roundTrip(smoothImage(w, h, 0.5), deg)
		if smoother > worst/3 {
			t.Errorf("rotate %v° and back: error %.4f at half the frequency vs %.4f; not interpolation error", deg, smoother, worst)
		}
	}
}

func TestRotationByRightAngleIsTranspose(t *testing.T) {
	const n = 7
	rot, _ := NewRotationGroup(RotationParams{ImageSize: ImageSize{n, n}, MaxDegrees: 180})
	src := randomImage(newRand(3), n*n)
	dst := make([]float32, n*n)
	rot.Apply(dst, src, Angle(90))
	// Positive angles turn +x towards +y (down): output (x, y) reads the
	// source at (y, n−1−x).
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if d := math.Abs(float64(dst[y*n+x] - src[(n-1-x)*n+y])); d > 1e-5 {
				t.Fatalf("90° rotation at (%d,%d) off by %v", x, y, d)
			}
		}
	}
}

func TestProductFusesWarps(t *testing.T) {
	sz := ImageSize{Width: 28, Height: 28}
	rot, _ := NewRotationGroup(RotationParams{ImageSize: sz, MaxDegrees: 20})
	tr, _ := NewTranslationGroup(TranslationParams{ImageSize: sz, MaxShift: 3})
	prod, _ := NewProductGroup(rot, tr)
	if !prod.warp {
		t.Fatal("rotation × translation should resample once")
	}
	src := smoothImage(28, 28, 1)
	fused := make([]float32, len(src))
	mid := make([]float32, len(src))
	seq := make([]float32, len(src))
	e := Tuple{Angle(12), Shift{DX: 2, DY: -3}}
	prod.Apply(fused, src, e)
	// Integer shifts are exact, so fused and sequential agree to rounding.
	tr.Apply(mid, src, e[1])
	rot.Apply(seq, mid, e[0])
	// Away from the border (where shifting first loses pixels that the
	// fused warp still reads) they agree to rounding.
	for i := range fused {
		dx, dy := float64(i%28)-13.5, float64(i/28)-13.5
		if dx*dx+dy*dy > 9*9 {
			continue
		}
		if d := math.Abs(float64(fused[i] - seq[i])); d > 1e-5 {
			t.Fatalf("fused warp differs from rotate∘shift at %d by %v", i, d)
		}
	}
	els := prod.Sample(newRand(4), 200)
	for _, el := range els {
		tp := el.(Tuple)
		a, s := float64(tp[0].(Angle)), tp[1].(Shift)
		if math.Abs(a) > 20 || math.Abs(s.DX) > 3 || math.Abs(s.DY) > 3 || s.DX != math.Trunc(s.DX) {
			t.Fatalf("sample %v outside ±20° × ±3 px integer shifts", el)
		}
	}
}

func TestPermutationGroup(t *testing.T) {
	g, err := NewPermutationGroup(5, 8)
	if err != nil {
		t.Fatal(err)
	}
	all, ok := g.Elements()
	if !ok || len(all) != 120 {
		t.Fatalf("S5 has %d elements (finite %v), want 120", len(all), ok)
	}
	seen := map[string]bool{}
	for _, e := range all {
		seen[e.String()] = true
	}
	if len(seen) != 120 {
		t.Fatalf("only %d distinct permutations", len(seen))
	}
	r := newRand(5)
	x := randomImage(r, 40)
	ax, bx, abx, back := make([]float32, 40), make([]float32, 40), make([]float32, 40), make([]float32, 40)
	id := g.Identity()
	for k := 0; k < 200; k++ {
		a, b := all[Intn(r, 120)], all[Intn(r, 120)]
		if got := g.Compose(a, g.Inverse(a)); !reflect.DeepEqual(got, id) {
			t.Fatalf("%v ∘ %v⁻¹ = %v", a, a, got)
		}
		if got := g.Compose(g.Compose(a, b), g.Inverse(b)); !reflect.DeepEqual(got, a) {
			t.Fatalf("(a∘b)∘b⁻¹ = %v, want %v", got, a)
		}
		// The action is a homomorphism: (a∘b)·x = a·(b·x).
		g.Apply(bx, x, b)
		g.Apply(ax, bx, a)
		g.Apply(abx, x, g.Compose(a, b))
		if !reflect.DeepEqual(ax, abx) {
			t.Fatalf("(a∘b)·x ≠ a·(b·x) for a=%v b=%v", a, b)
		}
		g.Apply(back, abx, g.Inverse(g.Compose(a, b)))
		if !reflect.DeepEqual(back, x) {
			t.Fatal("g⁻¹·(g·x) ≠ x")
		}
	}
	// Block i moves to position p[i].
	p := Perm{4, 0, 1, 2, 3}
	g.Apply(ax, x, p)
	if !reflect.DeepEqual(ax[32:40], x[0:8]) || !reflect.DeepEqual(ax[0:8], x[8:16]) {
		t.Fatal("block 0 should land at position 4 and block 1 at position 0")
	}
	// Uniform sampling: 12000 draws hit every element, none wildly often.
	count := map[string]int{}
	for _, e := range g.Sample(newRand(6), 12000) {
		count[e.String()]++
	}
	if len(count) != 120 {
		t.Fatalf("12000 samples hit %d of 120 permutations", len(count))
	}
	for e, c := range count {
		if c < 50 || c > 150 { // mean 100, sd ≈ 10
			t.Errorf("%s drawn %d times of 12000", e, c)
		}
	}
}

func TestSubsetClosedUnderInverse(t *testing.T) {
	g, _ := NewPermutationGroup(5, 1)
	// Keep the permutations that send position 0 to 1: their inverses send
	// 1 to 0 and must be added.
	s, err := Restrict(g, func(e Element) bool { return e.(Perm)[0] == 1 })
	if err != nil {
		t.Fatal(err)
	}
	es, _ := s.Elements()
	if len(es) != 24+24-6 { // p(0)=1 or p(1)=0; both when 0↔1 swapped: 3! = 6
		t.Fatalf("subset has %d elements, want 42", len(es))
	}
	in := map[string]bool{}
	for _, e := range es {
		in[e.String()] = true
	}
	for _, e := range es {
		if !in[g.Inverse(e).String()] {
			t.Fatalf("inverse of %v missing", e)
		}
	}
}

func TestSpecRoundTrip(t *testing.T) {
	sz := ImageSize{Width: 10, Height: 12}
	rot, _ := NewRotationGroup(RotationParams{ImageSize: sz, MaxDegrees: 20, Steps: 4})
	tr, _ := NewTranslationGroup(TranslationParams{ImageSize: sz, MaxShift: 1.5, SubPixel: true})
	prod, _ := NewProductGroup(rot, tr)
	perm, _ := NewPermutationGroup(4, 3)
	sub, _ := Restrict(perm, func(e Element) bool { return e.(Perm)[3] == 3 })
	for _, g := range []Group{rot, tr, prod, perm, sub} {
		b, err := Build(g.Spec())
		if err != nil {
			t.Fatalf("%s: %v", g.Spec().Kind, err)
		}
		if !reflect.DeepEqual(b.Spec(), g.Spec()) {
			t.Errorf("%s spec changed in round trip: %s vs %s", g.Spec().Kind, b.Spec().Params, g.Spec().Params)
		}
		e1, e2 := g.Sample(newRand(9), 5), b.Sample(newRand(9), 5)
		if !reflect.DeepEqual(e1, e2) {
			t.Errorf("%s: rebuilt group samples differently", g.Spec().Kind)
		}
		x := randomImage(newRand(10), g.Dim())
		y1, y2 := make([]float32, g.Dim()), make([]float32, g.Dim())
		g.Apply(y1, x, e1[0])
		b.Apply(y2, x, e1[0])
		if !reflect.DeepEqual(y1, y2) {
			t.Errorf("%s: rebuilt group acts differently", g.Spec().Kind)
		}
	}
	if _, err := Build(Spec{Kind: RotationKind, Params: []byte(`{"width":5,"height":5,"max_degrees":20,"bogus":1}`)}); err == nil {
		t.Error("unknown parameter accepted")
	}
	if _, err := NewTranslationGroup(TranslationParams{ImageSize: sz, MaxShift: 1.5}); err == nil {
		t.Error("fractional max_shift accepted for integer shifts")
	}
	if _, err := NewProductGroup(rot, perm); err == nil {
		t.Error("product of groups acting on different lengths accepted")
	}
}
