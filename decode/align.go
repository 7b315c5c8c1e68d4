package decode

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"
)

// Alignment is the best segmentation of an utterance into a known unit
// sequence.
type Alignment struct {
	// States is the graph state of each frame, Classes its emission class:
	// the frame labels for retraining the classifier.
	States  []int
	Classes []int
	// Segments are the unit instances in order, optional silences
	// included; the non-silence ones correspond one to one to the sequence.
	Segments []Word
	LogProb  float64
}

// Align force-aligns frames to seq (with optional silence as cfg allows,
// when sil is not nil): Viterbi through Linear(seq, sil, cfg). Too few
// frames for the sequence give ErrNoPath.
func Align(seq []Unit, sil *Unit, loglik blas32.General, cfg LinearConfig, opt Options) (*Alignment, error) {
	g, err := Linear(seq, sil, cfg)
	if err != nil {
		return nil, err
	}
	r, err := Viterbi(g, loglik, opt)
	if err != nil {
		return nil, err
	}
	a := &Alignment{States: r.States, Classes: make([]int, len(r.States)), Segments: r.Segments, LogProb: r.LogProb}
	for t, s := range r.States {
		a.Classes[t] = g.StateClass(s)
	}
	return a, nil
}

// UniformSplit divides n frames into len(classes) consecutive runs as equal
// as possible (earlier runs get the extra frames) and labels each run with
// its class.
func UniformSplit(n int, classes []int) ([]int, error) {
	if len(classes) == 0 || n < len(classes) {
		return nil, fmt.Errorf("decode: cannot split %d frames over %d states", n, len(classes))
	}
	out := make([]int, n)
	k := len(classes)
	for i := range out {
		// Run j covers frames [⌈j·n/k⌉ …): frame i belongs to run ⌊i·k/n⌋.
		out[i] = classes[i*k/n]
	}
	return out, nil
}

// BootstrapLabels labels the frames of an utterance before any model
// exists: frames [speechStart, speechEnd) are split uniformly over the
// states of the units of seq in order, the frames before and after over the
// states of silence (each side on its own; a side shorter than the silence
// model gets its first states only). It is the starting point of
// align-and-retrain training.
func BootstrapLabels(n, speechStart, speechEnd int, seq []Unit, sil Unit) ([]int, error) {
	if speechStart < 0 || speechEnd > n || speechStart >= speechEnd {
		return nil, fmt.Errorf("decode: speech segment [%d, %d) outside an utterance of %d frames", speechStart, speechEnd, n)
	}
	if len(sil.Classes) == 0 {
		return nil, fmt.Errorf("decode: silence unit has no states")
	}
	var speech []int
	for _, u := range seq {
		if len(u.Classes) == 0 {
			return nil, fmt.Errorf("decode: unit %q has no states", u.Name)
		}
		speech = append(speech, u.Classes...)
	}
	mid, err := UniformSplit(speechEnd-speechStart, speech)
	if err != nil {
		return nil, fmt.Errorf("decode: speech segment of %d frames is shorter than its %d states", speechEnd-speechStart, len(speech))
	}
	silSplit := func(m int) []int {
		if m == 0 {
			return nil
		}
		k := min(m, len(sil.Classes))
		out, _ := UniformSplit(m, sil.Classes[:k])
		return out
	}
	out := append(silSplit(speechStart), mid...)
	return append(out, silSplit(n-speechEnd)...), nil
}
