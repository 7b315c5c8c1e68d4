package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func meanPower(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s / float64(len(x))
}

// The mixed noise stands at exactly the requested SNR below the stated
// signal power.
func TestMixNoiseSNR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 4000)
	n := make([]float64, 4000)
	for i := range n {
		n[i] = 3 * rng.NormFloat64()
	}
	MixNoise(x, 0.5, n, 10)
	added := make([]float64, len(x))
	for i, v := range x {
		added[i] = float64(v)
	}
	if got := 10 * math.Log10(0.5/meanPower(added)); math.Abs(got-10) > 1e-3 {
		t.Errorf("SNR %.4f dB, want 10", got)
	}
	silent := make([]float32, 10)
	MixNoise(silent, 1, make([]float64, 10), 0)
	if slices.ContainsFunc(silent, func(v float32) bool { return v != 0 }) {
		t.Error("silent noise changed the signal")
	}
}

// Brown noise is a leaky integral of white noise: its first difference
// has 2(1−a) of its power (a the leak), where white noise's has twice its.
func TestBrownNoiseSpectrum(t *testing.T) {
	x := brownNoise(400000, rand.New(rand.NewPCG(3, 4)))
	d := make([]float64, len(x)-1)
	for i := range d {
		d[i] = x[i+1] - x[i]
	}
	ratio, want := meanPower(d)/meanPower(x), 2*(1-brownLeak)
	if math.Abs(ratio-want) > 0.15*want {
		t.Errorf("difference/total power %.5f, want %.5f", ratio, want)
	}
	if p, want := meanPower(x), 1/(1-brownLeak*brownLeak); math.Abs(p-want) > 0.15*want {
		t.Errorf("power %.1f, want the stationary %.1f", p, want)
	}
}

// ActivePower counts the word, not the quiet around it.
func TestActivePower(t *testing.T) {
	const rate = 8000
	rng := rand.New(rand.NewPCG(5, 6))
	var x []float32
	for range 4000 { // 0.5 s of background 66 dB down
		x = append(x, float32(1e-4*rng.NormFloat64()))
	}
	for i := range 2000 { // a 0.25 s tone of amplitude 0.5: power 0.125
		x = append(x, float32(0.5*math.Sin(2*math.Pi*400*float64(i)/rate)))
	}
	x = append(x, make([]float32, 4000)...) // digital silence
	if p := ActivePower(x, rate); math.Abs(p-0.125) > 0.125*0.01 {
		t.Errorf("active power %.5f, want 0.125", p)
	}
	if p := ActivePower(make([]float32, 800), rate); p != 0 {
		t.Errorf("silence has active power %g", p)
	}
}

// Babble: each talker at unit power, seeded, refusing what cannot babble.
func TestBabble(t *testing.T) {
	const rate = 8000
	tone := func(f float64, n int) []float32 {
		c := make([]float32, n)
		for i := range c {
			c[i] = float32(0.2 * math.Sin(2*math.Pi*f*float64(i)/rate))
		}
		return c
	}
	pool := [][]float32{tone(300, 1600), make([]float32, 800), tone(700, 2400)}
	one, err := Babble(8000, 1, rate, pool, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	// One talker saying unit-power tones back to back (the silent clip is
	// never drawn): power 1 to within the joins' rounding.
	if p := meanPower(one); len(one) != 8000 || math.Abs(p-1) > 0.02 {
		t.Errorf("one talker: %d samples of power %.4f, want 8000 of 1", len(one), p)
	}
	a, _ := Babble(8000, 6, rate, pool, rand.New(rand.NewPCG(9, 9)))
	b, _ := Babble(8000, 6, rate, pool, rand.New(rand.NewPCG(9, 9)))
	if !slices.Equal(a, b) || slices.Equal(a, one) {
		t.Error("babble is not a function of its seed")
	}
	if _, err := Babble(100, 0, rate, pool, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("babble of no talkers")
	}
	if _, err := Babble(100, 2, rate, [][]float32{make([]float32, 80)}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("babble from silent clips")
	}
}
