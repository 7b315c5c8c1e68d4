package decode

import (
	"fmt"
)

// Unit is one left-to-right HMM: a word, a phone or silence. State i emits
// through classifier output Classes[i], stays with probability SelfLoop (or
// SelfLoops[i] when given) and otherwise moves on to state i+1; leaving the
// last state leaves the unit. Several units may share classes (every copy of
// silence in an alignment graph does).
type Unit struct {
	Name      string
	Classes   []int
	SelfLoop  float64
	SelfLoops []float64
	// Silence units produce no word in a hypothesis and count as the
	// trailing silence that ends an utterance.
	Silence bool
}

// States is the number of HMM states of the unit.
func (u Unit) States() int { return len(u.Classes) }

func (u Unit) selfLoop(i int) float64 {
	if u.SelfLoops != nil {
		return u.SelfLoops[i]
	}
	return u.SelfLoop
}

func (u Unit) validate() error {
	if len(u.Classes) == 0 {
		return fmt.Errorf("decode: unit %q has no states", u.Name)
	}
	if u.SelfLoops != nil && len(u.SelfLoops) != len(u.Classes) {
		return fmt.Errorf("decode: unit %q has %d states but %d self-loop probabilities", u.Name, len(u.Classes), len(u.SelfLoops))
	}
	for i, c := range u.Classes {
		if c < 0 {
			return fmt.Errorf("decode: unit %q state %d has negative class %d", u.Name, i, c)
		}
		p := u.selfLoop(i)
		// 0 < p < 1 keeps both transitions possible; NaN fails both tests.
		if !(p > 0 && p < 1) {
			return fmt.Errorf("decode: unit %q state %d has self-loop probability %v, want 0 < p < 1", u.Name, i, p)
		}
	}
	return nil
}

// Chains builds one k-state unit per name, numbering classes consecutively
// from firstClass: unit i uses classes firstClass+i·k … firstClass+i·k+k−1.
// A digit vocabulary is Chains(digits, 5, p, 0); phones are Chains(phones, 3, p, 0).
func Chains(names []string, k int, selfLoop float64, firstClass int) ([]Unit, error) {
	if k < 1 {
		return nil, fmt.Errorf("decode: %d states per unit, want ≥ 1", k)
	}
	if firstClass < 0 {
		return nil, fmt.Errorf("decode: first class %d is negative", firstClass)
	}
	units := make([]Unit, len(names))
	for i, name := range names {
		u := Unit{Name: name, SelfLoop: selfLoop, Classes: make([]int, k)}
		for j := range u.Classes {
			u.Classes[j] = firstClass + i*k + j
		}
		if err := u.validate(); err != nil {
			return nil, err
		}
		units[i] = u
	}
	return units, nil
}

// SilenceUnit builds a k-state silence model on classes firstClass … firstClass+k−1.
func SilenceUnit(name string, k int, selfLoop float64, firstClass int) (Unit, error) {
	us, err := Chains([]string{name}, k, selfLoop, firstClass)
	if err != nil {
		return Unit{}, err
	}
	us[0].Silence = true
	return us[0], nil
}

// Concat joins units into one, state after state, keeping each state's
// class and self-loop: a word from its phones' HMMs, for aligning or
// decoding words with phone-state classifiers.
func Concat(name string, parts ...Unit) (Unit, error) {
	w := Unit{Name: name}
	for _, p := range parts {
		if err := p.validate(); err != nil {
			return Unit{}, err
		}
		w.Classes = append(w.Classes, p.Classes...)
		for i := range p.Classes {
			w.SelfLoops = append(w.SelfLoops, p.selfLoop(i))
		}
	}
	if len(w.Classes) == 0 {
		return Unit{}, fmt.Errorf("decode: %q is made of no states", name)
	}
	return w, nil
}

// NumClasses is one more than the largest class any of the units uses: the
// number of classifier outputs they need.
func NumClasses(units ...Unit) int {
	n := 0
	for _, u := range units {
		for _, c := range u.Classes {
			n = max(n, c+1)
		}
	}
	return n
}
