package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// speakerWarp is VTLN-like speaker normalisation with the audio group used
// as a normaliser instead of a pooling: every speaker gets the one
// frequency warp (a shift along the log-frequency axis, pitch and formants
// together, from the spectro-warp group) that brings their long-term mean
// log-mel spectrum closest to a canonical spectrum, and all their word
// vectors are warped by it. The canonical spectrum is the training
// speakers' average after their own warps (a few rounds of choosing warps
// and re-averaging, recentred so the training warps average zero). No
// label is used; a voice absent from training is warped by its own
// (unlabelled) test recordings, like --speaker-norm.
type speakerWarp struct {
	g      *transforms.SpectroGroup
	mels   int
	grid   []float64
	ref    []float64
	cents  map[string]float64 // chosen warp of every speaker seen so far
	rounds int
}

func newSpeakerWarp(g *transforms.SpectroGroup, mels int, maxCents, step float64) (*speakerWarp, error) {
	if !(maxCents > 0) || !(step > 0) {
		return nil, fmt.Errorf("speaker warp: range ±%g cents in steps of %g", maxCents, step)
	}
	w := &speakerWarp{g: g, mels: mels, cents: map[string]float64{}, rounds: 3}
	for c := -maxCents; c <= maxCents+1e-9; c += step {
		w.grid = append(w.grid, c)
	}
	return w, nil
}

// meanSpectra is every speaker's mean log-mel spectrum over all frames of
// their word vectors, with its own mean removed (level does not count).
func (w *speakerWarp) meanSpectra(x blas32.General, recs []datasets.Recording) map[string][]float64 {
	sum, cnt := map[string][]float64{}, map[string]float64{}
	for i, r := range recs {
		s := sum[r.Speaker]
		if s == nil {
			s = make([]float64, w.mels)
			sum[r.Speaker] = s
		}
		row := linalg.Row32(x, i)
		for t := 0; t+w.mels <= len(row); t += w.mels {
			for k, v := range row[t : t+w.mels] {
				s[k] += float64(v)
			}
			cnt[r.Speaker]++
		}
	}
	for spk, s := range sum {
		for k := range s {
			s[k] /= cnt[spk]
		}
		centre(s)
	}
	return sum
}

func centre(v []float64) {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for k := range v {
		v[k] -= m
	}
}

// warpSpectrum applies a pitch warp of c cents to one spectrum (as a patch
// whose frames all hold it, tempo 1) and recentres it.
func (w *speakerWarp) warpSpectrum(s []float64, c float64) []float64 {
	n := w.g.Dim()
	src, dst := make([]float32, n), make([]float32, n)
	for t := 0; t < n; t += w.mels {
		for k := range s {
			src[t+k] = float32(s[k])
		}
	}
	w.g.Apply(dst, src, transforms.Warp{Cents: c, Tempo: 1})
	out := make([]float64, w.mels)
	for k := range out {
		out[k] = float64(dst[k])
	}
	centre(out)
	return out
}

// best is the grid warp bringing s closest to the reference.
func (w *speakerWarp) best(s []float64) float64 {
	bestC, bestD := 0.0, math.Inf(1)
	for _, c := range w.grid {
		ws := w.warpSpectrum(s, c)
		var d float64
		for k := range ws {
			d += (ws[k] - w.ref[k]) * (ws[k] - w.ref[k])
		}
		if d < bestD-1e-12 || (math.Abs(d-bestD) <= 1e-12 && math.Abs(c) < math.Abs(bestC)) {
			bestC, bestD = c, d
		}
	}
	return bestC
}

// fit chooses the training speakers' warps and the canonical spectrum.
func (w *speakerWarp) fit(x blas32.General, recs []datasets.Recording) {
	spec := w.meanSpectra(x, recs)
	var spk []string
	for s := range spec {
		spk = append(spk, s)
	}
	sort.Strings(spk)
	for _, s := range spk {
		w.cents[s] = 0
	}
	for round := 0; round < w.rounds; round++ {
		w.ref = make([]float64, w.mels)
		for _, s := range spk {
			ws := w.warpSpectrum(spec[s], w.cents[s])
			for k := range ws {
				w.ref[k] += ws[k] / float64(len(spk))
			}
		}
		var mean float64
		for _, s := range spk {
			w.cents[s] = w.best(spec[s])
			mean += w.cents[s] / float64(len(spk))
		}
		// Keep the canonical voice at the training voices' average warp,
		// so the reference does not drift towards an edge of the grid.
		for _, s := range spk {
			w.cents[s] = w.snap(w.cents[s] - mean)
		}
	}
	w.ref = make([]float64, w.mels)
	for _, s := range spk {
		ws := w.warpSpectrum(spec[s], w.cents[s])
		for k := range ws {
			w.ref[k] += ws[k] / float64(len(spk))
		}
	}
}

// snap rounds c to the nearest grid value.
func (w *speakerWarp) snap(c float64) float64 {
	best := w.grid[0]
	for _, g := range w.grid {
		if math.Abs(g-c) < math.Abs(best-c) {
			best = g
		}
	}
	return best
}

// apply warps the rows of x (recordings recs) in place; speakers not in
// training get their warp from these rows' own spectrum, and are returned
// with it.
func (w *speakerWarp) apply(x blas32.General, recs []datasets.Recording) map[string]float64 {
	var own map[string][]float64
	unseen := map[string]float64{} // kept apart: each call estimates its own
	tmp := make([]float32, x.Cols)
	for i, r := range recs {
		c, ok := w.cents[r.Speaker]
		if !ok {
			if own == nil {
				own = w.meanSpectra(x, recs)
			}
			if c, ok = unseen[r.Speaker]; !ok {
				c = w.best(own[r.Speaker])
				unseen[r.Speaker] = c
			}
		}
		if c == 0 {
			continue
		}
		row := linalg.Row32(x, i)
		w.g.Apply(tmp, row, transforms.Warp{Cents: c, Tempo: 1})
		copy(row, tmp)
		frontend.UnitWordVector(row)
	}
	return unseen
}

// report lists the training speakers' warps and those estimated at test.
func (w *speakerWarp) report(unseen map[string]float64) string {
	var parts []string
	for _, s := range sortedKeys(w.cents) {
		parts = append(parts, fmt.Sprintf("%s %+g", s, w.cents[s]))
	}
	for _, s := range sortedKeys(unseen) {
		parts = append(parts, fmt.Sprintf("%s %+g (at test)", s, unseen[s]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// confidenceWarp is the model-based form of the speaker warp, for voices
// absent from training: every such test speaker gets the warp of the grid
// under which the trained model is most confident on their (unlabelled)
// recordings, confidence being the mean margin between the best and the
// second-best class score. raw holds the test vectors before any speaker
// normalisation; prep normalises a warped copy in place, score maps it to
// class scores. It returns the scores with every speaker's rows taken
// under their chosen warp, and the warps.
func confidenceWarp(raw blas32.General, test []datasets.Recording, trained map[string]bool, g *transforms.SpectroGroup, grid []float64,
	prep func(x blas32.General), score func(x blas32.General) blas32.General) (blas32.General, map[string]float64) {
	rows := map[string][]int{}
	for i, r := range test {
		if !trained[r.Speaker] {
			rows[r.Speaker] = append(rows[r.Speaker], i)
		}
	}
	x := linalg.NewGeneral32(raw.Rows, raw.Cols)
	copy(x.Data, raw.Data)
	prep(x)
	out := score(x)
	chosen := map[string]float64{}
	if len(rows) == 0 {
		return out, chosen
	}
	bestConf := map[string]float64{}
	tmp := make([]float32, raw.Cols)
	for _, c := range grid {
		for i := 0; i < raw.Rows; i++ {
			dst := linalg.Row32(x, i)
			if c == 0 {
				copy(dst, linalg.Row32(raw, i))
				continue
			}
			g.Apply(tmp, linalg.Row32(raw, i), transforms.Warp{Cents: c, Tempo: 1})
			copy(dst, tmp)
			frontend.UnitWordVector(dst)
		}
		prep(x)
		s := score(x)
		for spk, idx := range rows {
			var conf float64
			for _, i := range idx {
				conf += classifier.Margin(linalg.Row32(s, i))
			}
			conf /= float64(len(idx))
			if b, ok := bestConf[spk]; !ok || conf > b+1e-12 || (math.Abs(conf-b) <= 1e-12 && math.Abs(c) < math.Abs(chosen[spk])) {
				bestConf[spk], chosen[spk] = conf, c
				for _, i := range idx {
					copy(linalg.Row32(out, i), linalg.Row32(s, i))
				}
			}
		}
	}
	return out, chosen
}
