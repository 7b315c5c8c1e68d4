package decode

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// tinyGraphs are small enough to enumerate every path.
func tinyGraphs(t *testing.T, rng *rand.Rand) map[string]*Graph {
	t.Helper()
	gs := map[string]*Graph{}
	words := mustUnits(t, []string{"a", "b"}, 1+rng.IntN(2), 0.2+0.6*rng.Float64(), 0)
	sil := mustSil(t, 1, 0.5, NumClasses(words...))
	var err error
	if gs["loop"], err = WordLoop(words, &sil, LoopConfig{WordPenalty: -rng.Float64()}); err != nil {
		t.Fatal(err)
	}
	if gs["loop-nosil"], err = WordLoop(words, nil, LoopConfig{}); err != nil {
		t.Fatal(err)
	}
	if gs["linear"], err = Linear(words, &sil, LinearConfig{SilenceProb: 0.3}); err != nil {
		t.Fatal(err)
	}
	// A random graph with parallel arcs and several starts and finals.
	b := NewBuilder([]Unit{{Name: "x", Classes: []int{0}, SelfLoop: 0.5}, {Name: "y", Classes: []int{1}, SelfLoop: 0.5}})
	for s := 0; s < 4; s++ {
		b.AddState(s%2, rng.IntN(3))
	}
	for range 9 {
		from, to := rng.IntN(4), rng.IntN(4)
		b.AddArc(from, to, -2*rng.Float64(), from%2 != to%2 || rng.IntN(2) == 0)
	}
	b.SetStart(0, -0.1)
	b.SetStart(3, -0.7)
	b.SetFinal(1, -0.3)
	b.SetFinal(2, 0)
	if gs["random"], err = b.Build(); err != nil {
		t.Fatal(err)
	}
	return gs
}

func TestViterbiEqualsBruteForce(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		for name, g := range tinyGraphs(t, rng) {
			n := 1 + rng.IntN(7)
			m := randScores(rng, n, g.NumClasses())
			want := bruteBest(g, m)
			r, err := Viterbi(g, m, Options{})
			if math.IsInf(want, -1) {
				if err != ErrNoPath {
					t.Fatalf("seed %d %s: no path exists, got %v", seed, name, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			if !near(r.LogProb, want, 1e-12) {
				t.Fatalf("seed %d %s: Viterbi %v, brute force %v", seed, name, r.LogProb, want)
			}
			if got := pathScore(g, m, r.States); !near(got, want, 1e-12) {
				t.Fatalf("seed %d %s: returned path scores %v, best is %v", seed, name, got, want)
			}
			// A beam wider than any score spread changes nothing.
			rb, err := Viterbi(g, m, Options{Beam: 1e6})
			if err != nil || !reflect.DeepEqual(rb, r) {
				t.Fatalf("seed %d %s: wide beam changed the result (%v)", seed, name, err)
			}
		}
	}
}

func TestConfidenceIsForwardPosterior(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2))
		g := tinyGraphs(t, rng)["loop"]
		n := 2 + rng.IntN(5)
		m := randScores(rng, n, g.NumClasses())
		r, err := Viterbi(g, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range r.Segments {
			sum := 0.0
			for k := w.Start; k < w.End; k++ {
				sum += bruteUnitPosterior(g, m, k)[w.Unit]
			}
			want := sum / float64(w.End-w.Start)
			if !near(w.Confidence, want, 1e-9) || w.Confidence < 0 || w.Confidence > 1 {
				t.Fatalf("seed %d: segment %+v confidence %v, brute force %v", seed, w, w.Confidence, want)
			}
		}
	}
}

// Transition weights of e^-745 and below underflow to zero in the linear
// domain; the forward pass must notice and still give exact posteriors.
func TestConfidenceSurvivesUnderflow(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 8))
		units := mustUnits(t, []string{"x", "y"}, 1, 0.5, 0)
		b := NewBuilder(units)
		for s := 0; s < 4; s++ {
			b.AddState(s%2, s%2)
		}
		for from := range 4 {
			for to := range 4 {
				if rng.IntN(3) > 0 || from == to {
					b.AddArc(from, to, -760-20*rng.Float64(), from%2 != to%2 || rng.IntN(2) == 0)
				}
			}
		}
		b.SetStart(0, 0)
		b.SetStart(1, -800)
		b.SetFinal(2, 0)
		b.SetFinal(3, 0)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		m := randScores(rng, 5, 2)
		r, err := Viterbi(g, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteBest(g, m); !near(r.LogProb, want, 1e-12) {
			t.Fatalf("seed %d: Viterbi %v, brute force %v", seed, r.LogProb, want)
		}
		for _, w := range r.Segments {
			sum := 0.0
			for k := w.Start; k < w.End; k++ {
				sum += bruteUnitPosterior(g, m, k)[w.Unit]
			}
			if want := sum / float64(w.End-w.Start); !near(w.Confidence, want, 1e-9) {
				t.Fatalf("seed %d: segment %+v confidence %v, brute force %v", seed, w, w.Confidence, want)
			}
		}
	}
}

func TestSegmentsFollowStatePath(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	words := mustUnits(t, []string{"a", "b", "c"}, 3, 0.6, 0)
	sil := mustSil(t, 2, 0.6, NumClasses(words...))
	g, err := WordLoop(words, &sil, LoopConfig{})
	if err != nil {
		t.Fatal(err)
	}
	m := randScores(rng, 80, g.NumClasses())
	r, err := Viterbi(g, m, Options{Hop: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	end := 0
	for _, sg := range r.Segments {
		if sg.Start != end || sg.End <= sg.Start {
			t.Fatalf("segments do not tile the frames: %+v", r.Segments)
		}
		for k := sg.Start; k < sg.End; k++ {
			if g.StateUnit(r.States[k]) != sg.Unit {
				t.Fatalf("frame %d in state of unit %d, segment says %d", k, g.StateUnit(r.States[k]), sg.Unit)
			}
		}
		if sg.StartTime != float64(sg.Start)*0.02 || sg.EndTime != float64(sg.End)*0.02 {
			t.Fatalf("times %v–%v for frames %d–%d", sg.StartTime, sg.EndTime, sg.Start, sg.End)
		}
		end = sg.End
	}
	if end != 80 {
		t.Fatalf("segments end at %d of 80 frames", end)
	}
}

// Frames built to be a known digit string (plus noise) decode to that
// string with boundaries within 30 ms.
func TestTimestampsOfSyntheticString(t *testing.T) {
	names := []string{"oh", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	words := mustUnits(t, names, 5, 0.7, 0)
	sil := mustSil(t, 3, 0.7, NumClasses(words...))
	g, err := WordLoop(words, &sil, LoopConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const hop = 0.01
	worst := 0.0
	for seed := uint64(0); seed < 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		var seq []Unit
		var durs [][]int
		addUnit := func(u Unit, lo, hi int) {
			seq = append(seq, u)
			d := make([]int, len(u.Classes))
			for i := range d {
				d[i] = lo + rng.IntN(hi-lo+1)
			}
			durs = append(durs, d)
		}
		addUnit(sil, 3, 8)
		var want []string
		nw := 2 + rng.IntN(6)
		for i := range nw {
			w := words[rng.IntN(len(words))]
			want = append(want, w.Name)
			addUnit(w, 2, 9)
			if i < nw-1 && rng.IntN(2) == 0 {
				addUnit(sil, 2, 6)
			}
		}
		addUnit(sil, 3, 8)
		m := synthetic(rng, g.NumClasses(), seq, durs, 3, 1.5)
		r, err := Viterbi(g, m, Options{Hop: hop})
		if err != nil {
			t.Fatal(err)
		}
		if got := Labels(r.Words); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: decoded %v, want %v", seed, got, want)
		}
		k, frame := 0, 0
		for i, u := range seq {
			n := 0
			for _, d := range durs[i] {
				n += d
			}
			if !u.Silence {
				w := r.Words[k]
				worst = max(worst, math.Abs(w.StartTime-float64(frame)*hop), math.Abs(w.EndTime-float64(frame+n)*hop))
				if math.Abs(w.StartTime-float64(frame)*hop) > 0.03+1e-9 || math.Abs(w.EndTime-float64(frame+n)*hop) > 0.03+1e-9 {
					t.Fatalf("seed %d word %d %q at %.3f–%.3f s, truth %.3f–%.3f s", seed, k, w.Label, w.StartTime, w.EndTime, float64(frame)*hop, float64(frame+n)*hop)
				}
				if w.Confidence < 0.5 || w.Confidence > 1 {
					t.Fatalf("seed %d word %q confidence %v on clean frames", seed, w.Label, w.Confidence)
				}
				k++
			}
			frame += n
		}
	}
	t.Logf("largest boundary error %.0f ms", worst*1000)
}

func TestBadInputGivesErrors(t *testing.T) {
	words := mustUnits(t, []string{"a"}, 2, 0.5, 0)
	g, err := WordLoop(words, nil, LoopConfig{})
	if err != nil {
		t.Fatal(err)
	}
	good := randScores(rand.New(rand.NewPCG(1, 1)), 4, 2)
	nan := randScores(rand.New(rand.NewPCG(1, 1)), 4, 2)
	nan.Data[3] = float32(math.NaN())
	narrow := randScores(rand.New(rand.NewPCG(1, 1)), 4, 1)
	short := good
	short.Data = short.Data[:5]
	cases := []struct {
		name string
		run  func() error
	}{
		{"NaN score", func() error { _, err := Viterbi(g, nan, Options{}); return err }},
		{"too few columns", func() error { _, err := Viterbi(g, narrow, Options{}); return err }},
		{"short data", func() error { _, err := Viterbi(g, short, Options{}); return err }},
		{"no frames", func() error { _, err := Viterbi(g, randScores(nil, 0, 2), Options{}); return err }},
		{"negative hop", func() error { _, err := Viterbi(g, good, Options{Hop: -1}); return err }},
		{"NaN beam", func() error { _, err := Viterbi(g, good, Options{Beam: math.NaN()}); return err }},
		{"too few frames to align", func() error {
			_, err := Align(mustUnits(t, []string{"a", "b"}, 3, 0.5, 0), nil, randScores(rand.New(rand.NewPCG(1, 1)), 5, 6), LinearConfig{}, Options{})
			return err
		}},
		{"self-loop 1", func() error { _, err := Chains([]string{"a"}, 2, 1, 0); return err }},
		{"no words", func() error { _, err := WordLoop(nil, nil, LoopConfig{}); return err }},
		{"arc out of range", func() error {
			b := NewBuilder(words)
			s := b.AddState(0, 0)
			b.AddArc(s, 5, 0, true)
			b.SetStart(s, 0)
			b.SetFinal(s, 0)
			_, err := b.Build()
			return err
		}},
		{"state of a missing unit", func() error {
			b := NewBuilder(words)
			s := b.AddState(3, 0)
			b.SetStart(s, 0)
			b.SetFinal(s, 0)
			_, err := b.Build()
			return err
		}},
		{"self-loop list of the wrong length", func() error {
			_, err := WordLoop([]Unit{{Name: "a", Classes: []int{0, 1}, SelfLoops: []float64{0.5}}}, nil, LoopConfig{})
			return err
		}},
		{"NaN word penalty", func() error {
			_, err := WordLoop(words, nil, LoopConfig{WordPenalty: math.NaN()})
			return err
		}},
		{"unit change without enter", func() error {
			b := NewBuilder(mustUnits(t, []string{"a", "b"}, 1, 0.5, 0))
			s0, s1 := b.AddState(0, 0), b.AddState(1, 1)
			b.AddArc(s0, s1, 0, false)
			b.SetStart(s0, 0)
			b.SetFinal(s1, 0)
			_, err := b.Build()
			return err
		}},
	}
	for _, c := range cases {
		if err := c.run(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// The number of words on the best path can only fall as the word penalty
// grows more negative (the best path maximises score + penalty × words, so
// its word count is monotone in the penalty).
func TestWordPenaltyIsMonotone(t *testing.T) {
	words := mustUnits(t, []string{"a", "b", "c"}, 2, 0.5, 0)
	sil := mustSil(t, 1, 0.5, NumClasses(words...))
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 14))
		m := randScores(rng, 60, NumClasses(words...)+1)
		last := math.MaxInt
		var counts []int
		for _, pen := range []float64{4, 2, 0, -2, -4, -8, -16} {
			g, err := WordLoop(words, &sil, LoopConfig{WordPenalty: pen})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Viterbi(g, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Words) > last {
				t.Fatalf("seed %d: word counts %v rise at penalty %v", seed, append(counts, len(r.Words)), pen)
			}
			last = len(r.Words)
			counts = append(counts, last)
		}
		if counts[0] == counts[len(counts)-1] {
			t.Fatalf("seed %d: penalty has no effect: %v", seed, counts)
		}
	}
}

// The word loop's junction shortcut decodes exactly like plain arc-by-arc
// search over the same graph.
func TestJunctionEqualsArcSearch(t *testing.T) {
	g, words, sil := digitLoop(t, 3)
	plain := *g
	plain.junction = nil
	plain.localEnd = append([]int32(nil), g.inStart[1:]...)
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 15))
		m, _ := digitString(rng, g, words, sil, 6, 0.5+2*rng.Float64())
		for _, beam := range []float64{0, 8} {
			a, err := Viterbi(g, m, Options{Beam: beam})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Viterbi(&plain, m, Options{Beam: beam})
			if err != nil {
				t.Fatal(err)
			}
			if !near(a.LogProb, b.LogProb, 1e-12) || !reflect.DeepEqual(a.States, b.States) || len(a.Segments) != len(b.Segments) {
				t.Fatalf("seed %d beam %v: junction %v %v, arcs %v %v", seed, beam, a.LogProb, Labels(a.Words), b.LogProb, Labels(b.Words))
			}
			for i := range a.Segments {
				if !near(a.Segments[i].Confidence, b.Segments[i].Confidence, 1e-9) {
					t.Fatalf("seed %d: confidence %v vs %v", seed, a.Segments[i].Confidence, b.Segments[i].Confidence)
				}
			}
		}
	}
}
