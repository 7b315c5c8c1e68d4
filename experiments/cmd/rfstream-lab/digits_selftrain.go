package main

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/transforms"
)

// pseudoLabelled picks, for every test speaker absent from training, the
// fraction frac of their recordings the model is surest of, class by class
// (classifier.SurestPerClass, which rfstream recognize --adapt uses too). It
// returns the rows and their predicted classes.
func pseudoLabelled(scores blas32.General, test []datasets.Recording, trained map[string]bool, frac float64) (rows, labels []int) {
	bySpeaker := map[string][]int{}
	for i, r := range test {
		if !trained[r.Speaker] {
			bySpeaker[r.Speaker] = append(bySpeaker[r.Speaker], i)
		}
	}
	for _, spk := range sortedKeys(bySpeaker) {
		r, l := classifier.SurestPerClass(scores, bySpeaker[spk], frac)
		rows, labels = append(rows, r...), append(labels, l...)
	}
	return rows, labels
}

// warpedTest returns the test vectors as the model scored them after the
// confidence-chosen warp: each unseen speaker's raw rows warped by their
// shift, made unit word vectors again, then speaker-normalised by prep.
func warpedTest(raw blas32.General, test []datasets.Recording, chosen map[string]float64, g *transforms.SpectroGroup, prep func(blas32.General)) blas32.General {
	x := linalg.NewGeneral32(raw.Rows, raw.Cols)
	copy(x.Data, raw.Data)
	tmp := make([]float32, raw.Cols)
	for i, r := range test {
		c := chosen[r.Speaker]
		if c == 0 {
			continue
		}
		row := linalg.Row32(x, i)
		g.Apply(tmp, row, transforms.Warp{Cents: c, Tempo: 1})
		copy(row, tmp)
		frontend.UnitWordVector(row)
	}
	prep(x)
	return x
}

// neighbourSmoothed returns scores where every recording of a voice absent
// from training has the mean standardised scores of its k nearest
// recordings of the same voice (itself included; nearness is the cosine
// between word vectors x, which are unit length). One speaker's takes of a
// word lie close together, closer than to anyone else's, so a recording
// the model gets wrong is outvoted by the takes of the same word it gets
// right: label propagation over the voice's own recordings, without labels.
func neighbourSmoothed(scores, x blas32.General, test []datasets.Recording, trained map[string]bool, k int) blas32.General {
	out := linalg.NewGeneral32(scores.Rows, scores.Cols)
	copy(out.Data, scores.Data)
	rows := map[string][]int{}
	for i, r := range test {
		if !trained[r.Speaker] {
			rows[r.Speaker] = append(rows[r.Speaker], i)
		}
	}
	for _, spk := range sortedKeys(rows) {
		idx := rows[spk]
		n := len(idx)
		kk := min(k, n)
		sub := linalg.NewGeneral32(n, x.Cols)
		std := make([][]float64, n)
		for a, i := range idx {
			copy(linalg.Row32(sub, a), linalg.Row32(x, i))
			std[a] = standardised(linalg.Row32(scores, i))
		}
		sim := linalg.NewGeneral32(n, n)
		linalg.MulABt32(sim, sub, sub)
		order := make([]int, n)
		for a, i := range idx {
			s := linalg.Row32(sim, a)
			for b := range order {
				order[b] = b
			}
			// Itself first, then by similarity; ties by index for a
			// deterministic order.
			sort.SliceStable(order, func(p, q int) bool {
				bp, bq := order[p], order[q]
				if (bp == a) != (bq == a) {
					return bp == a
				}
				return s[bp] > s[bq]
			})
			dst := linalg.Row32(out, i)
			for c := range dst {
				var sum float64
				for _, b := range order[:kk] {
					sum += std[b][c]
				}
				dst[c] = float32(sum / float64(kk))
			}
		}
	}
	return out
}

// balancedPseudoLabelled picks pseudo-labels under the assumption that a
// voice says every class about equally often (the training prior, and
// FSDD's design): for every voice absent from training, each class takes
// at most ceil(frac·n/classes) of its n recordings, filled greedily from
// the most confident (recording, class) pairs by standardised score. A
// model that hears one word of this voice as another would give the wrong
// class twice its share; the cap sends the surplus to the class that fits
// it next best. Unlike pseudoLabelled this uses a fact about the test
// voice's label distribution, so it is reported apart.
func balancedPseudoLabelled(scores blas32.General, test []datasets.Recording, trained map[string]bool, frac float64) (rows, labels []int) {
	bySpeaker := map[string][]int{}
	for i, r := range test {
		if !trained[r.Speaker] {
			bySpeaker[r.Speaker] = append(bySpeaker[r.Speaker], i)
		}
	}
	classes := scores.Cols
	type pair struct {
		row, class int
		z          float64
	}
	for _, spk := range sortedKeys(bySpeaker) {
		idx := bySpeaker[spk]
		capacity := int(math.Ceil(frac * float64(len(idx)) / float64(classes)))
		var pairs []pair
		for _, i := range idx {
			for c, z := range standardised(linalg.Row32(scores, i)) {
				pairs = append(pairs, pair{i, c, z})
			}
		}
		sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].z > pairs[b].z })
		taken := map[int]bool{}
		count := make([]int, classes)
		var got []pair
		for _, p := range pairs {
			if taken[p.row] || count[p.class] >= capacity {
				continue
			}
			taken[p.row] = true
			count[p.class]++
			got = append(got, p)
		}
		sort.Slice(got, func(a, b int) bool { return got[a].row < got[b].row })
		for _, p := range got {
			rows = append(rows, p.row)
			labels = append(labels, p.class)
		}
	}
	return rows, labels
}

// selfTrainRounds runs one self-training round per fraction. Each round
// picks pseudo-labels from decide(words), the scores the recogniser decides
// by (the whole-word model's own, or their combination with the HMM's), and
// refit returns the whole-word scores of the read-out refitted on the
// training rows plus those pseudo-labelled rows. Whatever else takes part
// in the decision (the HMM) stays fixed. It returns the last whole-word
// scores; a round that picks nothing ends the loop.
func selfTrainRounds(fracs []float64, words blas32.General,
	decide func(words blas32.General) blas32.General,
	pick func(scores blas32.General, frac float64) (rows, labels []int),
	refit func(rows, labels []int) (blas32.General, error),
	logRound func(round, picked int)) (blas32.General, error) {
	for round, f := range fracs {
		rows, labels := pick(decide(words), f)
		if len(rows) == 0 {
			break
		}
		var err error
		if words, err = refit(rows, labels); err != nil {
			return blas32.General{}, err
		}
		logRound(round, len(rows))
	}
	return words, nil
}
