package datasets

import (
	"fmt"
	"math/rand/v2"
)

// Xperm is the permutation toy set of the group-invariant features paper:
// every sequence of Length symbols over an alphabet of Alphabet, labelled 1
// when it contains every target symbol somewhere, 0 otherwise. The label
// does not depend on the order of the positions, so the permutations of the
// positions leave it unchanged.
type Xperm struct {
	Length, Alphabet int
	Targets          []int
	// Seqs[i] is sequence i: the base-Alphabet digits of i, position 0 the
	// least significant.
	Seqs   [][]int
	Labels []int
}

// NewXperm enumerates all Alphabet^Length sequences.
func NewXperm(length, alphabet int, targets []int) (*Xperm, error) {
	if length < 1 || alphabet < 2 || length > 8 || alphabet > 16 {
		return nil, fmt.Errorf("xperm: need 1 ≤ length ≤ 8 and 2 ≤ alphabet ≤ 16, have %d, %d", length, alphabet)
	}
	seen := map[int]bool{}
	for _, t := range targets {
		if t < 0 || t >= alphabet || seen[t] {
			return nil, fmt.Errorf("xperm: targets %v must be distinct symbols in 0..%d", targets, alphabet-1)
		}
		seen[t] = true
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("xperm: no target symbols")
	}
	n := 1
	for i := 0; i < length; i++ {
		n *= alphabet
	}
	d := &Xperm{Length: length, Alphabet: alphabet, Targets: append([]int(nil), targets...), Seqs: make([][]int, n), Labels: make([]int, n)}
	for i := range d.Seqs {
		s := make([]int, length)
		v := i
		for p := range s {
			s[p] = v % alphabet
			v /= alphabet
		}
		d.Seqs[i] = s
		d.Labels[i] = 1
		for _, t := range targets {
			if !contains(s, t) {
				d.Labels[i] = 0
				break
			}
		}
	}
	return d, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// OneHot writes sequence i as Length concatenated one-hot blocks.
func (d *Xperm) OneHot(dst []float32, i int) {
	clear(dst)
	for p, c := range d.Seqs[i] {
		dst[p*d.Alphabet+c] = 1
	}
}

// Counts writes the bag of words of sequence i: how often each symbol occurs.
func (d *Xperm) Counts(dst []float32, i int) {
	clear(dst)
	for _, c := range d.Seqs[i] {
		dst[c]++
	}
}

// BalancedSplit draws perClass sequences of each label (seeded) as the
// training set and returns the rest, in order, as the test set.
func (d *Xperm) BalancedSplit(perClass int, seed uint64) (train, test []int, err error) {
	byLabel := [2][]int{}
	for i, l := range d.Labels {
		byLabel[l] = append(byLabel[l], i)
	}
	if perClass < 1 || len(byLabel[0]) < perClass || len(byLabel[1]) < perClass {
		return nil, nil, fmt.Errorf("xperm: %d per class from %d negatives and %d positives", perClass, len(byLabel[0]), len(byLabel[1]))
	}
	r := rand.New(rand.NewPCG(seed, 0x7870))
	inTrain := make([]bool, len(d.Labels))
	for _, idx := range byLabel {
		for _, k := range r.Perm(len(idx))[:perClass] {
			inTrain[idx[k]] = true
		}
	}
	for i, in := range inTrain {
		if in {
			train = append(train, i)
		} else {
			test = append(test, i)
		}
	}
	return train, test, nil
}
