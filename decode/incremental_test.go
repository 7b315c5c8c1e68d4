package decode

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

func digitLoop(t testing.TB, k int) (*Graph, []Unit, Unit) {
	t.Helper()
	names := []string{"oh", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	words := mustUnits(t, names, k, 0.7, 0)
	sil := mustSil(t, 3, 0.7, NumClasses(words...))
	g, err := WordLoop(words, &sil, LoopConfig{WordPenalty: -1})
	if err != nil {
		t.Fatal(err)
	}
	return g, words, sil
}

// digitString makes noisy frames of a random digit string with silences.
func digitString(rng *rand.Rand, g *Graph, words []Unit, sil Unit, nWords int, sigma float64) (blas32.General, []string) {
	var seq []Unit
	var durs [][]int
	var want []string
	add := func(u Unit, lo, hi int) {
		seq = append(seq, u)
		d := make([]int, len(u.Classes))
		for i := range d {
			d[i] = lo + rng.IntN(hi-lo+1)
		}
		durs = append(durs, d)
	}
	add(sil, 3, 10)
	for i := range nWords {
		w := words[rng.IntN(len(words))]
		want = append(want, w.Name)
		add(w, 2, 8)
		if i < nWords-1 && rng.IntN(2) == 0 {
			add(sil, 2, 6)
		}
	}
	add(sil, 5, 15)
	return synthetic(rng, g.NumClasses(), seq, durs, 3, sigma), want
}

func rows(m blas32.General, i, j int) blas32.General {
	return blas32.General{Rows: j - i, Cols: m.Cols, Stride: m.Stride, Data: m.Data[i*m.Stride : (j-1)*m.Stride+m.Cols]}
}

func TestIncrementalFinalEqualsBatch(t *testing.T) {
	g, words, sil := digitLoop(t, 4)
	for seed := uint64(0); seed < 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 4))
		// Heavy noise on some seeds so that paths disagree for long stretches.
		m, _ := digitString(rng, g, words, sil, 1+rng.IntN(7), 0.5+2*rng.Float64())
		for _, beam := range []float64{0, 15} {
			opt := Options{Beam: beam}
			want, err := Viterbi(g, m, opt)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewDecoder(g, opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < m.Rows; {
				j := min(m.Rows, i+rng.IntN(12))
				if err := d.Push(rows(m, i, j)); err != nil {
					t.Fatal(err)
				}
				i = j
			}
			got, err := d.Final()
			if err != nil {
				t.Fatal(err)
			}
			want.States = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d beam %v: incremental\n%+v\nbatch\n%+v", seed, beam, got, want)
			}
			if d.Push(rows(m, 0, 1)) == nil {
				t.Fatal("Push after Final accepted")
			}
			d.Reset()
			if err := d.Push(m); err != nil {
				t.Fatal(err)
			}
			again, err := d.Final()
			if err != nil || !reflect.DeepEqual(again, want) {
				t.Fatalf("seed %d: decoding again after Reset differs (%v)", seed, err)
			}
		}
	}
}

func wordsPrefix(prefix, words []Word) bool {
	if len(prefix) > len(words) {
		return false
	}
	for i := range prefix {
		if prefix[i] != words[i] {
			return false
		}
	}
	return true
}

// The stable prefix, once reported, never changes: every later partial and
// the final result start with it. Only the tail is revised.
func TestStablePrefixNeverChanges(t *testing.T) {
	g, words, sil := digitLoop(t, 5)
	stableSeen := 0
	for seed := uint64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		m, _ := digitString(rng, g, words, sil, 3+rng.IntN(5), 0.5+2*rng.Float64())
		beam := []float64{0, 8}[seed%2]
		d, err := NewDecoder(g, Options{Beam: beam})
		if err != nil {
			t.Fatal(err)
		}
		var reported []Word
		for i := 0; i < m.Rows; i++ {
			if err := d.Push(rows(m, i, i+1)); err != nil {
				t.Fatal(err)
			}
			p := d.Partial()
			if !wordsPrefix(reported, p.Stable) {
				t.Fatalf("seed %d frame %d: stable prefix %v changed to %v", seed, i, Labels(reported), Labels(p.Stable))
			}
			if p.Frames != i+1 {
				t.Fatalf("partial after %d frames says %d", i+1, p.Frames)
			}
			if !wordsPrefix(p.Stable, p.Words()) {
				t.Fatalf("seed %d frame %d: hypothesis %v does not start with its stable part", seed, i, Labels(p.Words()))
			}
			reported = p.Stable
		}
		r, err := d.Final()
		if err != nil {
			t.Fatal(err)
		}
		if !wordsPrefix(reported, r.Words) {
			t.Fatalf("seed %d: final %v does not start with the stable %v", seed, Labels(r.Words), Labels(reported))
		}
		stableSeen += len(reported)
	}
	// The property must not hold vacuously: words did become stable mid-stream.
	if stableSeen == 0 {
		t.Fatal("no word ever became stable before the end")
	}
}

func TestEndpointAfterTrailingSilence(t *testing.T) {
	g, words, sil := digitLoop(t, 5)
	rng := rand.New(rand.NewPCG(9, 9))
	// silence 10 frames, "three" (5 states × 4 frames), then 80 frames of silence.
	seq := []Unit{sil, words[4], sil}
	durs := [][]int{{3, 4, 3}, {4, 4, 4, 4, 4}, {10, 60, 10}}
	m := synthetic(rng, g.NumClasses(), seq, durs, 4, 0.3)
	const hop = 0.01
	wordEnd := 10 + 20
	for _, endSil := range []float64{0.2, 0.5} {
		d, err := NewDecoder(g, Options{Hop: hop, EndpointSilence: endSil})
		if err != nil {
			t.Fatal(err)
		}
		fired := -1
		for i := 0; i < m.Rows; i++ {
			if err := d.Push(rows(m, i, i+1)); err != nil {
				t.Fatal(err)
			}
			if d.Endpoint() {
				fired = i + 1
				break
			}
			if i < 10 && d.Endpoint() {
				t.Fatal("endpoint in leading silence before any word")
			}
		}
		want := wordEnd + int(endSil/hop+0.5)
		if fired < want-2 || fired > want+2 {
			t.Fatalf("endpoint %.1f s fired after %d frames, want about %d", endSil, fired, want)
		}
		r, err := d.Final()
		if err != nil || !reflect.DeepEqual(Labels(r.Words), []string{"three"}) {
			t.Fatalf("final %v (%v)", r, err)
		}
	}
	// Silence alone never endpoints.
	d, _ := NewDecoder(g, Options{Hop: hop, EndpointSilence: 0.1})
	silOnly := synthetic(rng, g.NumClasses(), []Unit{sil}, [][]int{{20, 40, 20}}, 4, 0.3)
	if err := d.Push(silOnly); err != nil {
		t.Fatal(err)
	}
	if d.Endpoint() {
		t.Fatal("endpoint without a word")
	}
}

// Memory stays bounded: after a long stream the unstable link chain of
// every token is short, because converged segments are cut from it.
func TestConvergedTracebackIsCut(t *testing.T) {
	g, words, sil := digitLoop(t, 5)
	rng := rand.New(rand.NewPCG(11, 11))
	d, _ := NewDecoder(g, Options{})
	total := 0
	var all []float32
	for range 20 {
		m, want := digitString(rng, g, words, sil, 5, 0.5)
		total += len(want)
		all = append(all, m.Data...)
	}
	// The whole stream in one push.
	c := g.NumClasses()
	if err := d.Push(blas32.General{Rows: len(all) / c, Cols: c, Stride: c, Data: all}); err != nil {
		t.Fatal(err)
	}
	longest := 0
	for st := range g.NumStates() {
		n := 0
		for l := d.cur.link[st]; l != nil; l = l.prev {
			n++
		}
		longest = max(longest, n)
	}
	if longest > 10 {
		t.Fatalf("a token still links %d segments after %d words", longest, total)
	}
	if len(d.Partial().Stable) < total-5 {
		t.Fatalf("only %d of %d words stable", len(d.Partial().Stable), total)
	}
}

func TestJSONShapes(t *testing.T) {
	g, _, sil := digitLoop(t, 5)
	m := synthetic(rand.New(rand.NewPCG(1, 1)), g.NumClasses(), []Unit{sil}, [][]int{{3, 3, 3}}, 4, 0.1)
	d, _ := NewDecoder(g, Options{})
	if err := d.Push(m); err != nil {
		t.Fatal(err)
	}
	p, _ := json.Marshal(d.Partial())
	if string(p) != `{"stable":[],"tail":[],"frames":9}` {
		t.Fatalf("partial of silence: %s", p)
	}
	r, err := d.Final()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(r)
	want := `{"words":[],"segments":[{"label":"\u003csil\u003e","unit":11,"start_frame":0,"end_frame":9,"start":0,"end":0.09,"conf":0.99`
	if !strings.HasPrefix(string(out), want) {
		t.Fatalf("result JSON %s", out)
	}
}
