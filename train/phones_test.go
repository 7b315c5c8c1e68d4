package train

import (
	"os"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/maxout"
)

// fixtureCorpus reads the TIMIT-style fixture (testdata/timit): training
// utterances with their phone spans (silence labels left out), and the
// test utterances' audio and phones.
func fixtureCorpus(t *testing.T, rate int, exact bool) (train []Utterance, test []Utterance, phones []string) {
	t.Helper()
	us, err := datasets.TIMITCorpus("../testdata/timit")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, u := range us {
		a, err := frontend.ReadAudio(u.Audio, rate)
		if err != nil {
			t.Fatal(err)
		}
		tu := Utterance{Samples: a.Samples, ExactSpans: exact}
		for _, p := range u.Phones {
			if p.Phone == "h#" || p.Phone == "pau" {
				continue
			}
			tu.Words = append(tu.Words, p.Phone)
			if exact {
				tu.Spans = append(tu.Spans, [2]float64{float64(p.Start) / 8000, float64(p.End) / 8000})
			}
			if !seen[p.Phone] {
				seen[p.Phone] = true
				phones = append(phones, p.Phone)
			}
		}
		if u.Split == "test" {
			test = append(test, tu)
		} else {
			train = append(train, tu)
		}
	}
	return train, test, phones
}

// End to end on the fixture: 3-state phone HMMs trained by alignment
// (from the corpus's phone times, and from a flat start), phone-loop
// decoding of the test speaker, PER scored through the fixture's phone
// map. Chance is far off: the test strings have 4–5 phones from 4, so a
// guess of the right length is wrong about 3 times in 4.
func TestPhonesEndToEndOnFixture(t *testing.T) {
	f, err := os.Open("../testdata/timit/phones.map")
	if err != nil {
		t.Fatal(err)
	}
	fold, err := decode.ParsePhoneMap(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, exact := range []bool{true, false} {
		in := engine.DefaultConnectedInput()
		in.StatesPerWord, in.SilenceStates, in.Classifier = 3, 3, "rls"
		train, test, phones := fixtureCorpus(t, in.Audio.SampleRate, exact)
		mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 256, Q: 2}, 3)
		if err != nil {
			t.Fatal(err)
		}
		dec := engine.DefaultConnectedDecoder()
		dec.SelfLoop = 0.5
		m, rep, err := Connected(train, ConnectedOptions{Task: engine.TaskPhones, Input: in, Decoder: dec, Map: mp.Recipe(),
			Words: phones, Passes: 2, Seed: 1, HeldOut: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		if m.Task != engine.TaskPhones || len(rep.Passes) != 3 {
			t.Fatalf("task %q, %d passes", m.Task, len(rep.Passes))
		}
		c, err := engine.NewConnected(m)
		if err != nil {
			t.Fatal(err)
		}
		var counts decode.ErrorCounts
		for _, u := range test {
			ll := c.LogLikelihoods(mustFrames(t, c, u.Samples))
			r, err := c.DecodeFrames(ll)
			if err != nil {
				t.Fatal(err)
			}
			hyp := decode.Labels(r.Words)
			counts.Add(fold.Fold(u.Words), fold.Fold(hyp))
			t.Logf("exact spans %v: ref %v hyp %v", exact, u.Words, hyp)
		}
		last := rep.Passes[len(rep.Passes)-1]
		t.Logf("exact spans %v: frame accuracy %.3f train %.3f held out; PER %.3f on %d phones", exact, last.TrainFrameAcc, last.HeldOutFrameAcc, counts.ErrorRate(), counts.Ref)
		if counts.Ref < 12 || counts.ErrorRate() > 0.15 {
			t.Errorf("exact spans %v: PER %.3f on %d phones, want ≤ 0.15 (chance ≈ 0.75)", exact, counts.ErrorRate(), counts.Ref)
		}
		// Folding maps m onto n: the hypotheses are scored in the folded set.
		for _, w := range fold.Fold([]string{"m", "h#"}) {
			if w != "n" {
				t.Fatalf("fixture map folds m, h# to %q", w)
			}
		}
	}
}

func mustFrames(t *testing.T, c *engine.Connected, samples []float32) blas32.General {
	t.Helper()
	x, err := c.Frames(&frontend.Audio{Rate: c.Input.Audio.SampleRate, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// Known phone times give the first labels directly: each span split evenly
// over its unit's states, silence outside, a too-short span its first
// states only.
func TestExactSpanLabels(t *testing.T) {
	a := decode.Unit{Name: "a", Classes: []int{0, 1, 2}, SelfLoop: 0.5}
	b := decode.Unit{Name: "b", Classes: []int{3, 4, 5}, SelfLoop: 0.5}
	sil := decode.Unit{Name: "sil", Classes: []int{6, 7, 8}, SelfLoop: 0.5, Silence: true}
	got, err := exactSpanLabels(20, [][2]float64{{0.02, 0.08}, {0.08, 0.14}, {0.16, 0.17}}, []decode.Unit{a, b, a}, sil, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{6, 7, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 0, 6, 7, 8}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frame %d: got %v, want %v", i, got, want)
		}
	}
	if _, err := exactSpanLabels(20, [][2]float64{{0.05, 0.02}}, []decode.Unit{a}, sil, 0.01); err == nil {
		t.Fatal("a backwards span was accepted")
	}
	if _, err := exactSpanLabels(20, [][2]float64{{0, 0.1}}, []decode.Unit{a, b}, sil, 0.01); err == nil {
		t.Fatal("one span for two units was accepted")
	}
}
