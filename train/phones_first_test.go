package train

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/maxout"
)

// fixturePhoneOptions train a small phone model with the phone models'
// state layout.
func fixturePhoneOptions(t *testing.T, phones []string) ConnectedOptions {
	t.Helper()
	in := engine.DefaultConnectedInput()
	in.StatesPerWord, in.SilenceStates, in.Classifier = phoneStates, phoneSilenceStates, "rls"
	mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 256, Q: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	dec := engine.DefaultConnectedDecoder()
	dec.SelfLoop = 0.5
	return ConnectedOptions{Task: engine.TaskPhones, Input: in, Decoder: dec, Map: mp.Recipe(), Words: phones, Passes: 1, Seed: 1, HeldOut: 0.2}
}

// timedLabels returns each fixture utterance's first labels as its phone
// times give them (no alignment), and the number of classes.
func timedLabels(t *testing.T, utts []Utterance, opt ConnectedOptions, phones []string) ([]*utt, int) {
	t.Helper()
	words, sil, err := opt.Input.Units(phones, opt.Decoder.SelfLoop)
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, p := range phones {
		index[p] = i
	}
	classes := opt.Input.Classes(len(phones))
	prepared, err := prepareUtterances(utts, opt.Input.Audio, 35, words, sil, index, classes)
	if err != nil {
		t.Fatal(err)
	}
	return prepared, classes
}

// First labels given frame by frame train exactly as the same labels
// derived from phone times: the two paths give the same pass reports.
func TestGivenFirstLabelsEqualTheirSpans(t *testing.T) {
	utts, _, phones := fixtureCorpus(t, 8000, true)
	opt := fixturePhoneOptions(t, phones)
	prepared, classes := timedLabels(t, utts, opt, phones)
	given := make([]Utterance, len(utts))
	for i, u := range utts {
		given[i] = Utterance{Samples: u.Samples, Words: u.Words, Labels: prepared[i].labels}
	}
	_, fromSpans, err := Connected(utts, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, fromLabels, err := Connected(given, opt)
	if err != nil {
		t.Fatal(err)
	}
	for p := range fromSpans.Passes {
		a, b := fromSpans.Passes[p], fromLabels.Passes[p]
		if a.TrainFrameAcc != b.TrainFrameAcc || a.HeldOutFrameAcc != b.HeldOutFrameAcc || a.Changed != b.Changed || a.Lambda != b.Lambda {
			t.Fatalf("pass %d: from spans %+v, from the same labels given %+v", p, a, b)
		}
	}
	bad := slices.Clone(given)
	bad[0].Labels = bad[0].Labels[1:]
	if _, _, err := Connected(bad, opt); err == nil || !strings.Contains(err.Error(), "first labels for an utterance of") {
		t.Fatalf("one label short: %v", err)
	}
	bad[0].Labels = slices.Clone(given[0].Labels)
	bad[0].Labels[3] = classes
	if _, _, err := Connected(bad, opt); err == nil || !strings.Contains(err.Error(), "is not one of the") {
		t.Fatalf("a label past the classes: %v", err)
	}
}

// A model's forced alignment of an utterance's own phones falls mostly
// where the corpus's phone times put them: on the fixture, the aligned
// phone of most frames is the one the .PHN file says.
func TestAlignFirstLabelsFollowsThePhoneTimes(t *testing.T) {
	utts, _, phones := fixtureCorpus(t, 8000, true)
	opt := fixturePhoneOptions(t, phones)
	m, _, err := Connected(utts, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The phone times' own labels, before alignment.
	timed, _ := timedLabels(t, utts, opt, phones)
	ptrs := make([]*Utterance, len(utts))
	for i := range utts {
		ptrs[i] = &utts[i]
	}
	failed, err := AlignFirstLabels(m, phones, ptrs)
	if err != nil || failed != 0 {
		t.Fatalf("%d not aligned, %v", failed, err)
	}
	// The unit a class belongs to: its phone, or silence.
	unit := func(c int) int { return min(c/phoneStates, len(phones)) }
	agree, frames := 0, 0
	for i, u := range utts {
		if len(u.Labels) != len(timed[i].labels) {
			t.Fatalf("utterance %d: %d aligned labels for %d frames", i, len(u.Labels), len(timed[i].labels))
		}
		for f, c := range u.Labels {
			frames++
			if unit(c) == unit(timed[i].labels[f]) {
				agree++
			}
		}
	}
	frac := float64(agree) / float64(frames)
	t.Logf("aligned phone = timed phone on %.3f of %d frames", frac, frames)
	// 0.992 measured; a flat start's labels would put many phone
	// boundaries elsewhere.
	if frac < 0.9 {
		t.Fatalf("aligned phone = timed phone on %.3f of the frames, want ≥ 0.9", frac)
	}
	// For a model over the phones in another order (and one more), the
	// same alignment comes out renumbered: each frame names the same phone.
	other := append(slices.Clone(phones), "zz")
	slices.Reverse(other)
	before := make([][]int, len(utts))
	for i, u := range utts {
		before[i] = slices.Clone(u.Labels)
	}
	if _, err := AlignFirstLabels(m, other, ptrs); err != nil {
		t.Fatal(err)
	}
	name := func(list []string, c int) string {
		if c/phoneStates >= len(list) {
			return fmt.Sprintf("sil%d", c-len(list)*phoneStates)
		}
		return fmt.Sprintf("%s%d", list[c/phoneStates], c%phoneStates)
	}
	for i, u := range utts {
		for f, c := range u.Labels {
			if name(other, c) != name(phones, before[i][f]) {
				t.Fatalf("utterance %d frame %d: %s renumbered to %s", i, f, name(phones, before[i][f]), name(other, c))
			}
		}
	}
	// An utterance saying a phone the aligner lacks is refused.
	utts[0].Words = append(utts[0].Words, "zz")
	if _, err := AlignFirstLabels(m, other, ptrs); err == nil {
		t.Fatal("a phone the aligner lacks was accepted")
	}
}

// --first-labels flat clears the times of the other engines' utterances
// only; an unknown value is refused.
func TestFlatFirstLabelsClearOnlyTheOthersTimes(t *testing.T) {
	span := [][2]float64{{0.1, 0.2}}
	d := &PhoneData{Train: []Utterance{{Words: []string{"aa"}}, {Words: []string{"aa"}, Spans: span, ExactSpans: true}, {Words: []string{"aa"}, Spans: span, ExactSpans: true}}}
	o := DefaultPhoneOptions()
	o.Voices.FirstLabels = FirstLabelsFlat
	if err := setFirstLabels(o, d, []int{1}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if d.Train[1].Spans != nil || d.Train[1].ExactSpans || d.Train[2].Spans == nil || !d.Train[2].ExactSpans {
		t.Fatalf("after flat on utterance 1: %+v", d.Train)
	}
	o.Voices.FirstLabels = FirstLabelsEngine
	if err := setFirstLabels(o, d, []int{2}, io.Discard); err != nil || d.Train[2].Spans == nil {
		t.Fatalf("engine labels changed utterance 2 (%v): %+v", err, d.Train[2])
	}
	if err := checkFirstLabels("viterbi"); err == nil {
		t.Fatal("first labels \"viterbi\" accepted")
	}
}
