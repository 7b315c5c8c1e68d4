package decode

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// bruteAlign enumerates every way of giving each state of the concatenated
// units at least one frame, in order, scoring with the units' own
// transition probabilities: an alignment reference independent of the graph.
func bruteAlign(seq []Unit, m blas32.General) (float64, []int) {
	type st struct {
		class int
		p     float64
	}
	var states []st
	for _, u := range seq {
		for i, c := range u.Classes {
			states = append(states, st{c, u.selfLoop(i)})
		}
	}
	best, bestPath := math.Inf(-1), []int(nil)
	path := make([]int, m.Rows)
	var walk func(t, s int, score float64)
	walk = func(t, s int, score float64) {
		path[t] = states[s].class
		score += float64(m.Data[t*m.Stride+states[s].class])
		if t == m.Rows-1 {
			if s == len(states)-1 {
				if x := score + math.Log(1-states[s].p); x > best {
					best, bestPath = x, append([]int(nil), path...)
				}
			}
			return
		}
		walk(t+1, s, score+math.Log(states[s].p))
		if s+1 < len(states) {
			walk(t+1, s+1, score+math.Log(1-states[s].p))
		}
	}
	walk(0, 0, 0)
	return best, bestPath
}

func TestAlignEqualsBruteForce(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 6))
		k := 1 + rng.IntN(3)
		units := mustUnits(t, []string{"a", "b", "c"}, k, 0.2+0.6*rng.Float64(), 0)
		seq := []Unit{units[rng.IntN(3)], units[rng.IntN(3)]}
		n := 2*k + rng.IntN(6)
		m := randScores(rng, n, NumClasses(units...))
		want, wantClasses := bruteAlign(seq, m)
		a, err := Align(seq, nil, m, LinearConfig{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !near(a.LogProb, want, 1e-12) || !reflect.DeepEqual(a.Classes, wantClasses) {
			t.Fatalf("seed %d: align %v %v, brute force %v %v", seed, a.LogProb, a.Classes, want, wantClasses)
		}
		if len(a.Segments) != 2 || a.Segments[0].Label != seq[0].Name || a.Segments[1].End != n {
			t.Fatalf("seed %d: segments %+v", seed, a.Segments)
		}
		// With optional silences, compare with enumeration over the graph.
		sil := mustSil(t, 1, 0.5, NumClasses(units...))
		m2 := randScores(rng, n, NumClasses(units...)+1)
		g, err := Linear(seq, &sil, LinearConfig{SilenceProb: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		a2, err := Align(seq, &sil, m2, LinearConfig{SilenceProb: 0.2}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if b := bruteBest(g, m2); !near(a2.LogProb, b, 1e-12) {
			t.Fatalf("seed %d: align with silence %v, brute force %v", seed, a2.LogProb, b)
		}
		var got []string
		for _, sg := range a2.Segments {
			if !sg.Silence {
				got = append(got, sg.Label)
			}
		}
		if !reflect.DeepEqual(got, Labels(Chainless(seq))) {
			t.Fatalf("seed %d: aligned words %v, sequence %v", seed, got, seq)
		}
	}
}

func Chainless(us []Unit) []Word {
	out := make([]Word, len(us))
	for i, u := range us {
		out[i] = Word{Label: u.Name}
	}
	return out
}

func TestLinearSilenceOptions(t *testing.T) {
	units := mustUnits(t, []string{"a", "b"}, 2, 0.5, 0)
	sil := mustSil(t, 1, 0.5, 4)
	for _, c := range []struct {
		cfg  LinearConfig
		want []string
	}{
		{LinearConfig{}, []string{"<sil>", "a", "<sil>", "b", "<sil>"}},
		{LinearConfig{NoEdgeSilence: true}, []string{"a", "<sil>", "b"}},
		{LinearConfig{NoInnerSilence: true}, []string{"<sil>", "a", "b", "<sil>"}},
	} {
		g, err := Linear(units, &sil, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, u := range g.Units {
			names = append(names, u.Name)
		}
		if !reflect.DeepEqual(names, c.want) {
			t.Fatalf("%+v: units %v, want %v", c.cfg, names, c.want)
		}
	}
	// Silence that the frames clearly contain is found: frames say
	// sil a a b b sil sil.
	m := blas32.General{Rows: 7, Cols: 5, Stride: 5, Data: make([]float32, 35)}
	for i, c := range []int{4, 0, 1, 2, 3, 4, 4} {
		for j := 0; j < 5; j++ {
			m.Data[i*5+j] = -5
		}
		m.Data[i*5+c] = 0
	}
	a, err := Align(units, &sil, m, LinearConfig{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Classes, []int{4, 0, 1, 2, 3, 4, 4}) {
		t.Fatalf("classes %v", a.Classes)
	}
}

func TestConcatAlignsAWordFromPhones(t *testing.T) {
	phones := mustUnits(t, []string{"w", "ah", "n"}, 3, 0.6, 0)
	phones[1].SelfLoop = 0.8
	one, err := Concat("one", phones...)
	if err != nil {
		t.Fatal(err)
	}
	if one.States() != 9 || one.Classes[4] != 4 || one.selfLoop(4) != 0.8 || one.selfLoop(8) != 0.6 {
		t.Fatalf("concatenated %+v", one)
	}
	if _, err := Concat("none"); err == nil {
		t.Fatal("a word of no phones accepted")
	}
	// Aligning the word equals aligning its phones, state for state.
	rng := rand.New(rand.NewPCG(4, 4))
	m := randScores(rng, 14, 9)
	aw, err := Align([]Unit{one}, nil, m, LinearConfig{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ap, err := Align(phones, nil, m, LinearConfig{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(aw.Classes, ap.Classes) || !near(aw.LogProb, ap.LogProb, 1e-12) {
		t.Fatalf("word %v %v, phones %v %v", aw.Classes, aw.LogProb, ap.Classes, ap.LogProb)
	}
}

func TestUniformSplitAndBootstrap(t *testing.T) {
	got, err := UniformSplit(10, []int{7, 8, 9})
	if err != nil || !reflect.DeepEqual(got, []int{7, 7, 7, 7, 8, 8, 8, 9, 9, 9}) {
		t.Fatalf("UniformSplit: %v %v", got, err)
	}
	if _, err := UniformSplit(2, []int{1, 2, 3}); err == nil {
		t.Fatal("split of 2 frames over 3 states accepted")
	}
	units := mustUnits(t, []string{"a", "b"}, 2, 0.5, 0)
	sil := mustSil(t, 2, 0.5, 4)
	lab, err := BootstrapLabels(12, 3, 11, units, sil)
	want := []int{4, 4, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4}
	if err != nil || !reflect.DeepEqual(lab, want) {
		t.Fatalf("BootstrapLabels: %v %v, want %v", lab, err, want)
	}
	if _, err := BootstrapLabels(12, 5, 4, units, sil); err == nil {
		t.Fatal("empty speech segment accepted")
	}
	if _, err := BootstrapLabels(12, 0, 3, units, sil); err == nil {
		t.Fatal("3 speech frames for 4 states accepted")
	}
}
