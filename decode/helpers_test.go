package decode

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

func randScores(rng *rand.Rand, n, c int) blas32.General {
	m := blas32.General{Rows: n, Cols: c, Stride: c, Data: make([]float32, n*c)}
	for i := range m.Data {
		m.Data[i] = float32(-3 * rng.Float64())
	}
	return m
}

// outArcs lists, per state, the arcs leaving it (indices into the graph's
// arc arrays) and the state each enters.
func outArcs(g *Graph) [][][2]int {
	out := make([][][2]int, g.NumStates())
	for to := 0; to < g.NumStates(); to++ {
		for a := g.inStart[to]; a < g.inStart[to+1]; a++ {
			from := g.arcFrom[a]
			out[from] = append(out[from], [2]int{int(a), to})
		}
	}
	return out
}

// bruteBest enumerates every arc path of len(frames) frames and returns
// the best complete score.
func bruteBest(g *Graph, m blas32.General) float64 {
	out := outArcs(g)
	em := func(t, s int) float64 { return float64(m.Data[t*m.Stride+g.StateClass(s)]) }
	best := math.Inf(-1)
	var walk func(t, s int, score float64)
	walk = func(t, s int, score float64) {
		if t == m.Rows-1 {
			best = max(best, score+g.final[s])
			return
		}
		for _, a := range out[s] {
			walk(t+1, a[1], score+g.arcLogP[a[0]]+em(t+1, a[1]))
		}
	}
	for s := 0; s < g.NumStates(); s++ {
		if !math.IsInf(g.start[s], -1) {
			walk(0, s, g.start[s]+em(0, s))
		}
	}
	return best
}

// bruteUnitPosterior is P(unit at frame t = u | frames 0…t) by summing over
// every path prefix (in the log domain, so tiny weights do not underflow).
func bruteUnitPosterior(g *Graph, m blas32.General, t int) []float64 {
	out := outArcs(g)
	em := func(t, s int) float64 { return float64(m.Data[t*m.Stride+g.StateClass(s)]) }
	var logs [][2]float64 // (unit, log probability) per path prefix
	var walk func(k, s int, logp float64)
	walk = func(k, s int, logp float64) {
		if k == t {
			logs = append(logs, [2]float64{float64(g.StateUnit(s)), logp})
			return
		}
		for _, a := range out[s] {
			walk(k+1, a[1], logp+g.arcLogP[a[0]]+em(k+1, a[1]))
		}
	}
	for s := 0; s < g.NumStates(); s++ {
		if !math.IsInf(g.start[s], -1) {
			walk(0, s, g.start[s]+em(0, s))
		}
	}
	top := math.Inf(-1)
	for _, l := range logs {
		top = max(top, l[1])
	}
	mass := make([]float64, len(g.Units))
	total := 0.0
	for _, l := range logs {
		p := math.Exp(l[1] - top)
		mass[int(l[0])] += p
		total += p
	}
	for u := range mass {
		mass[u] /= total
	}
	return mass
}

// pathScore recomputes the score of a state path, taking the best of any
// parallel arcs between consecutive states.
func pathScore(g *Graph, m blas32.General, states []int) float64 {
	em := func(t, s int) float64 { return float64(m.Data[t*m.Stride+g.StateClass(s)]) }
	score := g.start[states[0]] + em(0, states[0])
	for t := 1; t < len(states); t++ {
		best := math.Inf(-1)
		for a := g.inStart[states[t]]; a < g.inStart[states[t]+1]; a++ {
			if int(g.arcFrom[a]) == states[t-1] {
				best = max(best, g.arcLogP[a])
			}
		}
		score += best + em(t, states[t])
	}
	return score + g.final[states[len(states)-1]]
}

func near(a, b, tol float64) bool {
	if math.IsInf(a, -1) && math.IsInf(b, -1) {
		return true
	}
	return math.Abs(a-b) <= tol*(1+math.Abs(a))
}

func mustUnits(t testing.TB, names []string, k int, p float64, first int) []Unit {
	t.Helper()
	u, err := Chains(names, k, p, first)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustSil(t testing.TB, k int, p float64, first int) Unit {
	t.Helper()
	u, err := SilenceUnit("<sil>", k, p, first)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// synthetic builds frames whose true class sequence walks through the
// given units with the given number of frames per state: the true class
// scores 0, every other −gap, plus Gaussian noise of deviation sigma.
func synthetic(rng *rand.Rand, classes int, seq []Unit, framesPerState [][]int, gap, sigma float64) blas32.General {
	var truth []int
	for i, u := range seq {
		for j, c := range u.Classes {
			for range framesPerState[i][j] {
				truth = append(truth, c)
			}
		}
	}
	m := blas32.General{Rows: len(truth), Cols: classes, Stride: classes, Data: make([]float32, len(truth)*classes)}
	for t, c := range truth {
		for j := 0; j < classes; j++ {
			v := -gap
			if j == c {
				v = 0
			}
			m.Data[t*classes+j] = float32(v + sigma*rng.NormFloat64())
		}
	}
	return m
}
