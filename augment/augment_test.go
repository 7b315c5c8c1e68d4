package augment

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/sox"
)

// vowel is a second of a 120 Hz pulse train through one resonance at
// formant Hz, plus a little noise: a voice with one formant.
func vowel(rate int, formant float64) *frontend.Audio {
	x := make([]float32, rate)
	r := math.Exp(-math.Pi * 80 / float64(rate))
	c1, c2 := 2*r*math.Cos(2*math.Pi*formant/float64(rate)), -r*r
	var y1, y2 float64
	rng := rand.New(rand.NewPCG(1, 2))
	period := rate / 120
	for i := range x {
		e := 0.01 * rng.NormFloat64()
		if i%period == 0 {
			e += 1
		}
		y := e + c1*y1 + c2*y2
		y2, y1 = y1, y
		x[i] = float32(0.05 * y)
	}
	return &frontend.Audio{Rate: rate, Samples: x}
}

// peakHz is where the long-term spectrum of a, smoothed over 100 Hz, is
// largest.
func peakHz(a *frontend.Audio) float64 {
	const n = 1024
	fft := fourier.NewFFT(n)
	avg := make([]float64, n/2+1)
	frame := make([]float64, n)
	for s := 0; s+n <= len(a.Samples); s += n / 2 {
		for i := range frame {
			frame[i] = float64(a.Samples[s+i]) * (0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n))
		}
		for k, c := range fft.Coefficients(nil, frame) {
			avg[k] += cmplx.Abs(c) * cmplx.Abs(c)
		}
	}
	w := int(100 * n / float64(a.Rate))
	best, at := 0.0, 0
	for k := w; k+w < len(avg); k++ {
		var s float64
		for j := k - w; j <= k+w; j++ {
			s += avg[j]
		}
		if s > best {
			best, at = s, k
		}
	}
	return float64(at) * float64(a.Rate) / n
}

func TestNoiseHasTheAskedSNR(t *testing.T) {
	a := vowel(8000, 700)
	for _, kind := range []string{"white", "pink", "background"} {
		for _, snr := range []float64{0, 10, 25} {
			b, err := Noise(a, kind, snr, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			n := make([]float32, len(a.Samples))
			for i := range n {
				n[i] = b.Samples[i] - a.Samples[i]
			}
			got := 10 * math.Log10(power(a.Samples)/power(n))
			if math.Abs(got-snr) > 0.01 {
				t.Errorf("%s at %g dB: measured %.3f dB", kind, snr, got)
			}
		}
	}
}

func TestLevelScalesPowerByTheDecibels(t *testing.T) {
	a := vowel(8000, 700)
	b := Level(a, -6)
	if got := 10 * math.Log10(power(b.Samples)/power(a.Samples)); math.Abs(got+6) > 1e-4 {
		t.Errorf("level −6 dB changed the power by %.5f dB", got)
	}
}

func TestTempoChangesLengthByTheFactor(t *testing.T) {
	if err := sox.Available(); err != nil {
		t.Skip(err)
	}
	a := vowel(8000, 700)
	for _, f := range []float64{0.8, 1.25} {
		b, err := Tempo(a, f)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(len(a.Samples)) / f
		if got := float64(len(b.Samples)); math.Abs(got-want) > 0.01*want {
			t.Errorf("tempo %g: %g samples, want %g", f, got, want)
		}
	}
}

func TestPitchMovesTheFormantAndKeepsTheLength(t *testing.T) {
	if err := sox.Available(); err != nil {
		t.Skip(err)
	}
	a := vowel(8000, 1000)
	b, err := Pitch(a, 300)
	if err != nil {
		t.Fatal(err)
	}
	want := 1000 * math.Pow(2, 300.0/1200)
	if got := peakHz(b); math.Abs(got-want) > 60 {
		t.Errorf("+300 cents: formant at %.0f Hz, want about %.0f", got, want)
	}
	if d := len(b.Samples) - len(a.Samples); d < -80 || d > 80 {
		t.Errorf("+300 cents changed the length by %d samples", d)
	}
}

func TestVTLNMovesTheFormantByAlphaAndIsIdentityAtOne(t *testing.T) {
	a := vowel(8000, 1000)
	if got := peakHz(a); math.Abs(got-1000) > 40 {
		t.Fatalf("test vowel's formant at %.0f Hz, want 1000", got)
	}
	for _, alpha := range []float64{0.85, 1.2} {
		b, err := VTLN(a, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if got := peakHz(b); math.Abs(got-1000*alpha) > 60 {
			t.Errorf("warp %g: formant at %.0f Hz, want about %.0f", alpha, got, 1000*alpha)
		}
	}
	b, err := VTLN(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 300; i < len(a.Samples)-300; i++ {
		if d := math.Abs(float64(b.Samples[i] - a.Samples[i])); d > 1e-4 {
			t.Fatalf("warp 1 changed sample %d by %g", i, d)
		}
	}
}

// TestRoomResponseDecays60dBInRT60 integrates the response's energy from
// the end (Schroeder) and fits the decay between −5 and −35 dB.
func TestRoomResponseDecays60dBInRT60(t *testing.T) {
	const rate = 8000
	for _, rt := range []float64{0.2, 0.5} {
		h, err := RoomResponse(rate, rt, 1, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		e := make([]float64, len(h))
		var s float64
		for i := len(h) - 1; i >= 1; i-- {
			s += float64(h[i]) * float64(h[i])
			e[i] = s
		}
		if math.Abs(s-1) > 1e-3 {
			t.Errorf("rt60 %g: tail energy %g, want the wet ratio 1", rt, s)
		}
		db := func(i int) float64 { return 10 * math.Log10(e[i]/e[1]) }
		i5 := slices.IndexFunc(e[1:], func(v float64) bool { return 10*math.Log10(v/e[1]) < -5 }) + 1
		i35 := slices.IndexFunc(e[1:], func(v float64) bool { return 10*math.Log10(v/e[1]) < -35 }) + 1
		slope := (db(i35) - db(i5)) / (float64(i35-i5) / rate) // dB per second
		if got := -60 / slope; math.Abs(got-rt) > 0.1*rt {
			t.Errorf("rt60 %g: measured %.3f s", rt, got)
		}
	}
}

func TestTelephoneCutsTheBandAndCodecsDistortLittle(t *testing.T) {
	if err := sox.Available(); err != nil {
		t.Skip(err)
	}
	a := vowel(8000, 1000)
	low := vowel(8000, 150)
	for _, codec := range []string{"", "u-law", "gsm"} {
		b, err := Telephone(a, codec)
		if err != nil {
			t.Fatal(err)
		}
		if b.Rate != 8000 || math.Abs(float64(len(b.Samples)-len(a.Samples))) > 200 {
			t.Fatalf("%q: %d samples at %d Hz", codec, len(b.Samples), b.Rate)
		}
		if got := peakHz(b); math.Abs(got-1000) > 60 {
			t.Errorf("%q: formant at %.0f Hz after the channel", codec, got)
		}
		c, err := Telephone(low, codec)
		if err != nil {
			t.Fatal(err)
		}
		if ratio := 10 * math.Log10(power(c.Samples)/power(low.Samples)); ratio > -6 {
			t.Errorf("%q: a 150 Hz formant lost only %.1f dB in the 300–3400 Hz band", codec, -ratio)
		}
	}
}

func TestPlansAreSeeded(t *testing.T) {
	if err := sox.Available(); err != nil {
		t.Skip(err)
	}
	a := vowel(8000, 700)
	r := DefaultRanges()
	r.Reverb, r.Phone = 1, 1
	p, q := Draw(r, 7), Draw(r, 7)
	if p != q || p == Draw(r, 8) {
		t.Fatalf("seed 7 drew %v then %v; seed 8 %v", p, q, Draw(r, 8))
	}
	x, err := p.Apply(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := q.Apply(a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x.Samples, y.Samples) {
		t.Error("one plan applied twice gave different samples")
	}
}

func TestRefusesOutOfRange(t *testing.T) {
	a := vowel(8000, 700)
	if _, err := VTLN(a, 2); err == nil {
		t.Error("warp 2 accepted")
	}
	if _, err := Tempo(a, 10); err == nil {
		t.Error("tempo 10 accepted")
	}
	if _, err := Pitch(a, math.NaN()); err == nil {
		t.Error("NaN cents accepted")
	}
	if _, err := Telephone(a, "mp3"); err == nil {
		t.Error("codec mp3 accepted")
	}
	if _, err := RoomResponse(8000, 10, 1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("rt60 10 s accepted")
	}
}
