package frontend

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestLevinsonAR1 checks the closed form: for r[k] = ρᵏ (a first-order
// autoregressive process) the predictor is a₁ = −ρ and nothing else, and
// unit white noise through 1/A(z) has power 1/(1−ρ²).
func TestLevinsonAR1(t *testing.T) {
	const rho = 0.8
	r := make([]float64, backgroundOrder+1)
	for k := range r {
		r[k] = math.Pow(rho, float64(k))
	}
	a, ok := levinson(r)
	if !ok {
		t.Fatal("levinson refused a positive definite autocorrelation")
	}
	for k, v := range a {
		want := 0.0
		if k == 0 {
			want = -rho
		}
		if math.Abs(v-want) > 1e-12 {
			t.Errorf("a[%d] = %g, want %g", k+1, v, want)
		}
	}
	if e, want := impulseEnergy(a), 1/(1-rho*rho); math.Abs(e-want) > 1e-9*want {
		t.Errorf("impulse energy %g, want %g", e, want)
	}
	if _, ok := levinson([]float64{1, 1.5, 0}); ok {
		t.Error("levinson accepted an autocorrelation that is not positive definite")
	}
}

// ar2 is a resonant low-pass background: y[n] = e[n] + 1.3 y[n−1] − 0.6 y[n−2].
var ar2 = []float64{-1.3, 0.6}

// arPower is the spectrum of unit white noise through 1/A(z) at f Hz.
func arPower(a []float64, f float64, rate int) float64 {
	z := cmplx.Exp(complex(0, -2*math.Pi*f/float64(rate)))
	A := complex(1, 0)
	zk := complex(1, 0)
	for _, ak := range a {
		zk *= z
		A += complex(ak, 0) * zk
	}
	return 1 / (real(A)*real(A) + imag(A)*imag(A))
}

// recordingWithBackground is one second of ar2 background at RMS level
// with a loud 1 kHz tone over its middle third, as a trimmed recording
// whose quietest stretches are background.
func recordingWithBackground(level float64, rng *rand.Rand) []float32 {
	model := Background{Level: level, poles: ar2, drive: level / math.Sqrt(impulseEnergy(ar2))}
	x := model.Noise(8000, rng)
	for i := 2667; i < 5333; i++ {
		x[i] += float32(0.3 * math.Sin(2*math.Pi*1000*float64(i)/8000))
	}
	return x
}

// bandPower is the mean squared magnitude of x's DFT over [lo, hi) Hz.
func bandPower(x []float32, rate int, lo, hi float64) float64 {
	n := len(x)
	var sum float64
	var count int
	for k := int(lo * float64(n) / float64(rate)); float64(k) < hi*float64(n)/float64(rate); k++ {
		var re, im float64
		for i, v := range x {
			s, c := math.Sincos(2 * math.Pi * float64(k*i) / float64(n))
			re += float64(v) * c
			im -= float64(v) * s
		}
		sum += re*re + im*im
		count++
	}
	return sum / float64(count)
}

// TestBackgroundFollowsTheRecordingsSpectrum: the model fitted to a
// recording's quiet stretches (five 10 ms stretches here, as in a trimmed
// half-second word) has the background's spectral shape within 5 dB at
// five frequencies across the band, where white noise is 13 dB off;
// its noise has the background's low- to high-band power ratio within 5 dB
// (white: 18 dB off); and it renders at the RMS it was given.
func TestBackgroundFollowsTheRecordingsSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rec := recordingWithBackground(0.003, rng)
	b := EstimateBackground(rec, 8000)
	if len(b.poles) != backgroundOrder {
		t.Fatalf("model of order %d, want %d", len(b.poles), backgroundOrder)
	}
	// Shapes are compared with the level removed: each spectrum relative
	// to its own mean over the frequencies checked.
	freqs := []float64{100, 500, 1000, 2000, 3500}
	shape := func(a []float64) []float64 {
		out := make([]float64, len(freqs))
		var mean float64
		for i, f := range freqs {
			out[i] = 10 * math.Log10(arPower(a, f, 8000))
			mean += out[i] / float64(len(freqs))
		}
		for i := range out {
			out[i] -= mean
		}
		return out
	}
	want, got, white := shape(ar2), shape(b.poles), shape(nil)
	var whiteWorst float64
	for i, f := range freqs {
		if d := got[i] - want[i]; math.Abs(d) > 5 {
			t.Errorf("model spectrum at %g Hz off the background's by %.2f dB", f, d)
		}
		whiteWorst = max(whiteWorst, math.Abs(white[i]-want[i]))
	}
	if whiteWorst < 10 {
		t.Fatalf("white noise is at most %.1f dB off the background's shape: the check above cannot fail", whiteWorst)
	}

	noise := b.Noise(16000, rng)
	var p float64
	for _, v := range noise {
		p += float64(v) * float64(v)
	}
	if rms := math.Sqrt(p / float64(len(noise))); math.Abs(rms/b.Level-1) > 0.05 {
		t.Errorf("rendered RMS %g, want %g", rms, b.Level)
	}
	// The stretches' own means carry a little of this low-pass
	// background's power (what varies slower than 100 Hz), no more.
	if floor := NoiseFloor(rec, 8000); b.Level > floor || b.Level < 0.9*floor {
		t.Errorf("level %g, want at most NoiseFloor's %g and within 10 %% of it", b.Level, floor)
	}

	tilt := func(x []float32) float64 {
		return 10 * math.Log10(bandPower(x, 8000, 0, 800)/bandPower(x, 8000, 2400, 3200))
	}
	background := tilt(recordingWithBackground(0.003, rng)[:2000]) // before the tone
	if got := tilt(noise[:2000]); math.Abs(got-background) > 5 {
		t.Errorf("low/high band power ratio %.1f dB, the background's %.1f dB", got, background)
	}
	if white := tilt(Background{Level: b.Level, drive: b.Level}.Noise(2000, rng)); math.Abs(white-background) < 12 {
		t.Fatalf("white noise's band ratio %.1f dB is near the background's %.1f: the check above cannot fail", white, background)
	}
}

// TestBackgroundLeavesOutAnOffset: a constant offset raises a recording's
// RMS floor but is no noise a pause continues (pre-emphasis removes it
// before any detector hears it), so the model renders what varies, at the
// level it has without the offset.
func TestBackgroundLeavesOutAnOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rec := recordingWithBackground(0.003, rng)
	plain := EstimateBackground(rec, 8000)
	for i := range rec {
		rec[i] += 0.01
	}
	shifted := EstimateBackground(rec, 8000)
	if floor := NoiseFloor(rec, 8000); floor < 2*plain.Level {
		t.Fatalf("the offset raised NoiseFloor only to %g (from a background of %g): the check below cannot fail", floor, plain.Level)
	}
	if math.Abs(shifted.Level/plain.Level-1) > 0.05 {
		t.Errorf("with an offset the level is %g, without %g", shifted.Level, plain.Level)
	}
}

// TestBackgroundOfSilenceIsWhite: a digitally silent or very short
// recording has nothing to fit, so the background falls back to white
// noise at NoiseFloor's level (never below 1e-5).
func TestBackgroundOfSilenceIsWhite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for name, rec := range map[string][]float32{"zeros": make([]float32, 4000), "short": {0.1, -0.2}, "empty": nil} {
		b := EstimateBackground(rec, 8000)
		if b.poles != nil || b.Level != 1e-5 {
			t.Errorf("%s: model %v at level %g, want white at 1e-5", name, b.poles, b.Level)
		}
		x := b.Noise(8000, rng)
		var p float64
		for _, v := range x {
			p += float64(v) * float64(v)
		}
		if rms := math.Sqrt(p / 8000); math.Abs(rms/1e-5-1) > 0.05 {
			t.Errorf("%s: rendered RMS %g, want 1e-5", name, rms)
		}
	}
}
