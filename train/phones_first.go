package train

import (
	"errors"
	"fmt"
	"io"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
)

// Where the first labels (the pass-0 frame labels the align-and-retrain
// loop starts from) of the flite, festival and FSDD utterances come from,
// PhoneVoices.FirstLabels. espeak-ng's sentences always start flat.
const (
	// FirstLabelsEngine: the phone times the engine printed (flite,
	// festival); FSDD's words start flat. The default.
	FirstLabelsEngine = "engine"
	// FirstLabelsFlat: the engines' times ignored; every utterance starts
	// flat (its speech region split evenly over its phone states).
	FirstLabelsFlat = "flat"
	// FirstLabelsAligned: each utterance's own phone sequence force-aligned
	// by another phone model (PhoneVoices.AlignModel, or the espeak-ng-only
	// model trained first), so every engine's phones are cut the way that
	// model hears them.
	FirstLabelsAligned = "aligned"
)

// checkFirstLabels refuses an unknown PhoneVoices.FirstLabels.
func checkFirstLabels(s string) error {
	switch s {
	case "", FirstLabelsEngine, FirstLabelsFlat, FirstLabelsAligned:
		return nil
	}
	return fmt.Errorf("phones: first labels %q (want %s, %s or %s)", s, FirstLabelsEngine, FirstLabelsFlat, FirstLabelsAligned)
}

// phoneStates and phoneSilenceStates are every phone model's HMM layout.
const phoneStates, phoneSilenceStates = 3, 3

// setFirstLabels gives the training utterances d.Train[i], i in which
// (the other engines' and FSDD's, with their augmented copies), the first
// labels o.Voices.FirstLabels names.
func setFirstLabels(o PhoneOptions, d *PhoneData, which []int, log io.Writer) error {
	switch o.Voices.FirstLabels {
	case "", FirstLabelsEngine:
		return nil
	case FirstLabelsFlat:
		for _, i := range which {
			d.Train[i].Spans, d.Train[i].ExactSpans = nil, false
		}
		fmt.Fprintf(log, "phones: %d utterances of the other engines and FSDD start flat (their engine times ignored)\n", len(which))
		return nil
	}
	aligner, err := phoneAligner(o, log)
	if err != nil {
		return err
	}
	utts := make([]*Utterance, len(which))
	for k, i := range which {
		utts[k] = &d.Train[i]
	}
	failed, err := AlignFirstLabels(aligner, d.Phones, utts)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "phones: first labels of %d training utterances (the other engines', FSDD's and the real ones; every one with --lexicon-labels) from the aligner's forced alignment (%d it could not align keep their own)\n", len(which)-failed, failed)
	return nil
}

// phoneAligner loads o.Voices.AlignModel or, when none is named, trains
// the espeak-ng-only model (o without its voices) to align with.
func phoneAligner(o PhoneOptions, log io.Writer) (*engine.Model, error) {
	if path := o.Voices.AlignModel; path != "" {
		fmt.Fprintf(log, "phones: aligning first labels with %s\n", path)
		return engine.LoadModel(path)
	}
	fmt.Fprintln(log, "phones: training the espeak-ng-only model to align the first labels with")
	eo := o
	eo.Voices = PhoneVoices{}
	m, _, _, err := PhoneModel(eo, log)
	return m, err
}

// AlignFirstLabels sets each utterance's Labels to aligner's forced
// alignment of its Words (optional silence between them), on all cores.
// aligner must be a phone model with the phone models' state layout whose
// phones include every phone the utterances say; its classes are renumbered
// into those of a model over phones (in that order), so an aligner over
// the espeak-ng phones can align labels of the lexicon's 39. An utterance
// it cannot align (too short for its phones) keeps its first labels;
// failed counts them.
func AlignFirstLabels(aligner *engine.Model, phones []string, utts []*Utterance) (failed int, err error) {
	c, err := engine.NewConnected(aligner)
	if err != nil {
		return 0, err
	}
	if c.Input.StatesPerWord != phoneStates || c.Input.SilenceStates != phoneSilenceStates {
		return 0, fmt.Errorf("phones: the aligner has %d states a phone and %d silence states; the model trained has %d and %d",
			c.Input.StatesPerWord, c.Input.SilenceStates, phoneStates, phoneSilenceStates)
	}
	units, sil, err := c.Input.Units(aligner.Labels, c.Decoder.SelfLoop)
	if err != nil {
		return 0, err
	}
	alignerIndex := map[string]int{}
	for i, p := range aligner.Labels {
		alignerIndex[p] = i
	}
	// class renumbers the aligner's state classes into the trained model's:
	// phone i's states are i·phoneStates…, silence's follow the last phone's.
	index := map[string]int{}
	for i, p := range phones {
		index[p] = i
	}
	nA := len(aligner.Labels) * phoneStates
	class := func(k int) int {
		if k >= nA {
			return len(phones)*phoneStates + k - nA
		}
		return index[aligner.Labels[k/phoneStates]]*phoneStates + k%phoneStates
	}
	opts := decode.Options{Hop: c.Input.Audio.HopMs / 1000, AcousticScale: c.Decoder.AcousticScale}
	unaligned := make([]bool, len(utts))
	errs := make([]error, len(utts))
	parallel.For(len(utts), func(k int) {
		u := utts[k]
		seq := make([]decode.Unit, len(u.Words))
		for j, w := range u.Words {
			i, ok := alignerIndex[w]
			if _, trained := index[w]; !ok || !trained {
				errs[k] = fmt.Errorf("phones: phone %q is not one of the aligner's or of the model's", w)
				return
			}
			seq[j] = units[i]
		}
		x, err := c.Frames(&frontend.Audio{Rate: c.Input.Audio.SampleRate, Samples: u.Samples})
		if err != nil {
			errs[k] = err
			return
		}
		a, err := decode.Align(seq, &sil, c.LogLikelihoods(x), decode.LinearConfig{}, opts)
		if err != nil {
			unaligned[k] = true
			return
		}
		labels := make([]int, len(a.Classes))
		for f, cl := range a.Classes {
			labels[f] = class(cl)
		}
		u.Labels = labels
	})
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	for _, bad := range unaligned {
		if bad {
			failed++
		}
	}
	return failed, nil
}
