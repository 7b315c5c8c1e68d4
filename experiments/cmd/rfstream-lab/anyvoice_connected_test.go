package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/train"
)

// The WER arithmetic: a recogniser that hears every string right scores 0
// clean and in noise; one that always swaps one known word scores that
// word's share, per voice and pooled.
func TestTallyStringsArithmetic(t *testing.T) {
	// Each string's audio has its own length, which noise keeps: the
	// recognisers below know a string by it.
	tone := func(n int) *frontend.Audio {
		a := &frontend.Audio{Rate: 8000, Samples: make([]float32, n)}
		for i := range a.Samples {
			a.Samples[i] = float32(0.3 * math.Sin(float64(i)/3))
		}
		return a
	}
	test := []heldString{
		{voice: "ann", words: []string{"1", "2", "3", "4"}, audio: tone(800)},
		{voice: "ann", words: []string{"5", "6"}, audio: tone(880)},
		{voice: "bob", words: []string{"7", "2", "9"}, audio: tone(960)},
	}
	noise := testNoise{kinds: []string{"brown", "babble"}, snr: 10, talkers: 2, seed: 1}
	pool := [][]float32{tone(400).Samples}
	hears := func(swap bool) func(*frontend.Audio) ([]string, error) {
		return func(a *frontend.Audio) ([]string, error) {
			i := slices.IndexFunc(test, func(s heldString) bool { return len(s.audio.Samples) == len(a.Samples) })
			w := slices.Clone(test[i].words)
			if swap {
				for k, x := range w {
					if x == "2" {
						w[k] = "8"
					}
				}
			}
			return w, nil
		}
	}
	for _, c := range []struct {
		swap          bool
		ann, bob, all float64
	}{{false, 0, 0, 0}, {true, 1.0 / 6, 1.0 / 3, 2.0 / 9}} {
		per, err := tallyStrings(hears(c.swap), test, noise, pool)
		if err != nil {
			t.Fatal(err)
		}
		all := newConnTally()
		for _, v := range per {
			all.add(v)
		}
		for name, want := range map[string]float64{"ann": c.ann, "bob": c.bob} {
			r := per[name].result()
			if r.Clean.WER != want || r.Noisy["brown"].WER != want || r.Noisy["babble"].WER != want {
				t.Errorf("swap %v: %s scored %+v, want WER %g everywhere", c.swap, name, r, want)
			}
		}
		r := all.result()
		if math.Abs(r.Clean.WER-c.all) > 1e-12 || r.Clean.Words != 9 || r.Clean.Strings != 3 || r.Clean.Sub != int(math.Round(9*c.all)) {
			t.Errorf("swap %v: pooled %+v, want WER %g of 9 words", c.swap, r.Clean, c.all)
		}
		if c.swap && (r.NoisyOverClean["brown"] != 1 || r.Clean.SER != 2.0/3) {
			t.Errorf("swap: noisy over clean %v, SER %g; want 1 and 2/3", r.NoisyOverClean, r.Clean.SER)
		}
		if !c.swap && len(r.NoisyOverClean) != 0 {
			t.Errorf("a ratio to a clean WER of 0: %v", r.NoisyOverClean)
		}
	}
}

// Noise is mixed at the requested SNR below the string's active speech,
// the same for the same string and kind, different between kinds.
func TestTestNoiseSNR(t *testing.T) {
	a := &frontend.Audio{Rate: 8000, Samples: make([]float32, 8000)}
	for i := 2000; i < 6000; i++ {
		a.Samples[i] = float32(0.5 * math.Sin(float64(i)/5))
	}
	n := testNoise{snr: 10, talkers: 3, seed: 4}
	pool := [][]float32{a.Samples[2000:4000], a.Samples[3000:6000]}
	var prev []float32
	for _, kind := range []string{"brown", "babble", "white"} {
		x, err := n.noisy(2, kind, a, pool)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := n.noisy(2, kind, a, pool)
		if !slices.Equal(x.Samples, y.Samples) || slices.Equal(x.Samples, prev) {
			t.Errorf("%s: not a function of string and kind", kind)
		}
		prev = x.Samples
		var pn float64
		for i, v := range x.Samples {
			d := float64(v - a.Samples[i])
			pn += d * d
		}
		pn /= float64(len(a.Samples))
		if snr := 10 * math.Log10(0.125/pn); math.Abs(snr-10) > 0.05 {
			t.Errorf("%s: SNR %.3f dB, want 10", kind, snr)
		}
	}
}

// The mode end to end on toy voices: two FSDD speakers held out in turn,
// a model trained on the others each time, scored clean and in two
// noises; every pooled number is the sum of the folds'.
func TestEvalAnyVoiceConnectedToy(t *testing.T) {
	fsdd := toyFSDD3(t)
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	var out, errb bytes.Buffer
	args := []string{"eval", "any-voice", "connected", "--json", "--fsdd", fsdd, "--speakers", "ann,cy", "--engines", "",
		"--m", "128", "--q", "2", "--passes", "1", "--states", "3", "--sil-states", "1", "--train-strings", "20", "--tune=false",
		"--filler-voices", "0", "--strings", "6", "--noise", "brown,babble", "--babble-talkers", "2"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res anyVoiceConnectedResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(res.Folds) != 2 || res.Synthetic.Clean.Strings != 0 || !sameConditions(res.Overall, res.Real) {
		t.Fatalf("result %+v", res)
	}
	var words, errs int
	for i, f := range res.Folds {
		want := []string{"ann", "cy"}[i]
		v, ok := f.PerVoice[want]
		if f.HeldOut != want || f.Kind != "real" || len(f.PerVoice) != 1 || !ok || !sameConditions(v, f.All) || f.TrainRecordings != 2*2*6 {
			t.Errorf("fold %d: %+v", i, f)
		}
		c := f.All.Clean
		if c.Strings != 6 || c.Words < 12 || c.WER != float64(c.Sub+c.Ins+c.Del)/float64(c.Words) || len(f.All.Noisy) != 2 {
			t.Errorf("fold %s: %+v", want, f.All)
		}
		// Two glides, up and down, trained from two other toy voices.
		if c.WER > 0.25 {
			t.Errorf("fold %s: clean WER %.3f, want ≤ 0.25", want, c.WER)
		}
		words += c.Words
		errs += c.Sub + c.Ins + c.Del
	}
	if res.Overall.Clean.Words != words || res.Overall.Clean.WER != float64(errs)/float64(words) {
		t.Errorf("pooled %+v is not the folds' sum (%d errors in %d words)", res.Overall.Clean, errs, words)
	}
	if !strings.Contains(out.String(), "babble 10 dB WER %") {
		t.Errorf("table missing:\n%s", out.String())
	}
	t.Logf("\n%s", out.String())
	if code := run([]string{"eval", "any-voice", "connected", "--fsdd", fsdd, "--speakers", "zed", "--engines", ""}, &out, &errb); code == 0 {
		t.Error("an unknown speaker was held out")
	}
	if code := run([]string{"eval", "any-voice", "connected", "--fsdd", fsdd, "--noise", "purple"}, &out, &errb); code == 0 {
		t.Error("an unknown noise kind was accepted")
	}
}

func sameConditions(a, b connConditions) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// The recipe's engine voices reach every fold but the one holding that
// engine out: a held-out engine is never trained on, and folds that train
// on different engines never share a model.
func TestConnectedFoldsLeaveTheHeldOutEngineOut(t *testing.T) {
	if err := (datasets.FliteEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	all, err := datasets.FSDD(toyFSDD3(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	o := anyVoiceConnectedOptions{recipe: train.DefaultDigitStringOptions(), speakers: []string{"ann"}, engines: []string{"flite"},
		voices: datasets.VoiceSetOptions{Speakers: 1, Cents: 100, MaxTempo: 1.1, Takes: 1, Strings: 1, Seed: 1, Rate: 8000}}
	o.recipe.Voices.Engines.Engines = []string{"flite", "festival"}
	o.recipe.Voices.EngineStrings = true
	folds, err := planConnectedFolds(o, all, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(folds) != 2 {
		t.Fatalf("%d folds, want 2", len(folds))
	}
	real, synth := folds[0], folds[1]
	if !slices.Equal(real.engines, []string{"flite", "festival"}) || !strings.Contains(real.describe, "flite,festival's digits and strings") {
		t.Errorf("real fold trains on %v (%s)", real.engines, real.describe)
	}
	if synth.heldOut != "flite" || !slices.Equal(synth.engines, []string{"festival"}) || !strings.Contains(synth.describe, "festival's digits and strings") {
		t.Errorf("held-out flite fold trains on %v (%s)", synth.engines, synth.describe)
	}
	if !slices.Equal(o.recipe.Voices.Engines.Engines, []string{"flite", "festival"}) {
		t.Errorf("planning changed the recipe's engines to %v", o.recipe.Voices.Engines.Engines)
	}
	same := synth
	same.trainRecs = real.trainRecs
	if same.modelKey() == real.modelKey() {
		t.Error("folds training on other engines share a model key")
	}
}
