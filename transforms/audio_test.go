package transforms

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

func tone(f float64, rate int, sec float64) []float32 {
	x := make([]float32, int(float64(rate)*sec))
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return x
}

// peakHz returns the frequency of the largest spectral peak of x, refined
// by parabolic interpolation.
func peakHz(x []float32, rate int) float64 {
	n := 1
	for n < len(x) {
		n *= 2
	}
	in := make([]float64, n)
	for i, v := range x {
		in[i] = float64(v) * (0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(len(x))))
	}
	c := fourier.NewFFT(n).Coefficients(nil, in)
	mag := make([]float64, len(c))
	best := 1
	for k := range c {
		mag[k] = math.Hypot(real(c[k]), imag(c[k]))
		if k > 0 && mag[k] > mag[best] {
			best = k
		}
	}
	a, b, g := mag[best-1], mag[best], mag[best+1]
	off := 0.5 * (a - g) / (a - 2*b + g)
	return (float64(best) + off) * float64(rate) / float64(n)
}

func TestTempoWarpChangesDurationKeepsPitch(t *testing.T) {
	x := tone(440, 8000, 1)
	for _, f := range []float64{0.7, 1.4, 0.5, 2} {
		y, err := TempoWarp(x, 8000, f)
		if err != nil {
			t.Fatal(err)
		}
		if want := int(math.Round(8000 / f)); len(y) != want {
			t.Errorf("tempo %v: %d samples, want %d", f, len(y), want)
		}
		if p := peakHz(y[400:len(y)-400], 8000); math.Abs(p-440) > 4 {
			t.Errorf("tempo %v moved the pitch to %.1f Hz", f, p)
		}
	}
	if _, err := TempoWarp(x, 8000, 10); err == nil {
		t.Fatal("tempo factor 10 accepted")
	}
}

func TestPitchShiftMovesPitchAndComesBack(t *testing.T) {
	x := tone(440, 8000, 1)
	up, err := PitchShift(x, 8000, 400)
	if err != nil {
		t.Fatal(err)
	}
	if len(up) != len(x) {
		t.Fatalf("pitch shift changed the length: %d → %d", len(x), len(up))
	}
	want := 440 * math.Pow(2, 400.0/1200)
	if p := peakHz(up[400:len(up)-400], 8000); math.Abs(p-want) > 5 {
		t.Fatalf("+400 cents: peak %.1f Hz, want %.1f", p, want)
	}
	back, _ := PitchShift(up, 8000, -400)
	if p := peakHz(back[400:len(back)-400], 8000); math.Abs(p-440) > 4 {
		t.Fatalf("+400 then -400 cents: peak %.1f Hz, want 440", p)
	}
	// The round trip keeps the signal's energy in the interior.
	var e0, e1 float64
	for i := 800; i < len(x)-800; i++ {
		e0 += float64(x[i]) * float64(x[i])
		e1 += float64(back[i]) * float64(back[i])
	}
	if r := e1 / e0; r < 0.8 || r > 1.2 {
		t.Fatalf("round trip energy ratio %.2f", r)
	}
}

func spectro(t *testing.T) *SpectroGroup {
	g, err := NewSpectroGroup(SpectroParams{Frames: 32, Mels: 40, LowHz: 20, HighHz: 4000, Cents: 400, Tempo: 2})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSpectroWarpIdentityInverseAndShift(t *testing.T) {
	g := spectro(t)
	src := make([]float32, g.Dim())
	for i := range src {
		src[i] = float32(math.Sin(float64(i%40)/3) + math.Cos(float64(i/40)/5))
	}
	dst := make([]float32, g.Dim())
	g.Apply(dst, src, g.Identity())
	for i := range src {
		if math.Abs(float64(dst[i]-src[i])) > 1e-5 {
			t.Fatalf("identity changed element %d", i)
		}
	}
	// g then g⁻¹ returns the interior (away from the clamped edges).
	w := Warp{Cents: 200, Tempo: 1.25}
	tmp := make([]float32, g.Dim())
	g.Apply(tmp, src, w)
	g.Apply(dst, tmp, g.Inverse(w))
	var worst float64
	for tt := 8; tt < 24; tt++ {
		for k := 8; k < 30; k++ {
			worst = math.Max(worst, math.Abs(float64(dst[tt*40+k]-src[tt*40+k])))
		}
	}
	if worst > 0.1 {
		t.Fatalf("warp then inverse differs by %.3f in the interior", worst)
	}
	// A one-band patch moves up when the pitch goes up.
	one := make([]float32, g.Dim())
	for tt := 0; tt < 32; tt++ {
		one[tt*40+20] = 1
	}
	g.Apply(dst, one, Warp{Cents: 400, Tempo: 1})
	best := 0
	for k := 0; k < 40; k++ {
		if dst[16*40+k] > dst[16*40+best] {
			best = k
		}
	}
	if best <= 20 {
		t.Fatalf("+400 cents left the energy in band %d (from 20)", best)
	}
	rebuilt, err := Build(g.Spec())
	if err != nil || rebuilt.Dim() != g.Dim() {
		t.Fatalf("spec does not rebuild: %v", err)
	}
	for _, e := range g.Sample(newRand(3), 200) {
		w := e.(Warp)
		if math.Abs(w.Cents) > 400 || w.Tempo < 0.5 || w.Tempo > 2 {
			t.Fatalf("sampled %v outside the local subset", w)
		}
	}
}

// harmonic is a voiced-speech-like test signal: a 150 Hz fundamental with
// harmonics up to 3.5 kHz under a formant-like envelope, slowly modulated.
func harmonic(rate int, sec float64) []float32 {
	x := make([]float32, int(float64(rate)*sec))
	for i := range x {
		t := float64(i) / float64(rate)
		var s float64
		for h := 1; float64(h)*150 < 3500; h++ {
			f := float64(h) * 150
			amp := math.Exp(-math.Pow((f-700)/400, 2)) + 0.5*math.Exp(-math.Pow((f-1800)/500, 2)) + 0.05
			s += amp * math.Sin(2*math.Pi*f*t+float64(h))
		}
		x[i] = float32(0.1 * s * (1 + 0.3*math.Sin(2*math.Pi*3*t)))
	}
	return x
}

// welch is the average magnitude spectrum of 512-sample Hann windows
// hopped by 256 over x[from:to].
func welch(x []float32, from, to int) []float64 {
	const n = 512
	fft := fourier.NewFFT(n)
	in := make([]float64, n)
	acc := make([]float64, n/2+1)
	for s := from; s+n <= to; s += n / 2 {
		for i := range in {
			in[i] = float64(x[s+i]) * (0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n))
		}
		for k, c := range fft.Coefficients(nil, in) {
			acc[k] += math.Hypot(real(c), imag(c))
		}
	}
	return acc
}

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// A pitch shift by +c then −c cents gives back the signal's spectrum
// (WSOLA does not keep the phase, so the waveform itself is not compared),
// while the one-way shift clearly does not: the check can fail.
func TestPitchRoundTripRestoresTheSpectrum(t *testing.T) {
	x := harmonic(8000, 1.5)
	for _, c := range []float64{100, 400} {
		up, err := PitchShift(x, 8000, c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := PitchShift(up, 8000, -c)
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(x) {
			t.Fatalf("%v cents: round trip has %d samples, want %d", c, len(back), len(x))
		}
		ref := welch(x, 800, len(x)-800)
		same, moved := cosine(ref, welch(back, 800, len(x)-800)), cosine(ref, welch(up, 800, len(x)-800))
		t.Logf("%v cents: round trip cosine %.4f, one-way %.4f", c, same, moved)
		if same < 0.99 {
			t.Errorf("+%v then −%v cents: spectrum cosine %.3f with the original, want ≥ 0.99", c, c, same)
		}
		if moved > 0.7 {
			t.Errorf("+%v cents alone keeps spectrum cosine %.3f: the comparison cannot tell shifted from not", c, moved)
		}
		// Level is kept too (interior RMS within 15%).
		var e0, e1 float64
		for i := 800; i < len(x)-800; i++ {
			e0 += float64(x[i]) * float64(x[i])
			e1 += float64(back[i]) * float64(back[i])
		}
		if r := math.Sqrt(e1 / e0); r < 0.85 || r > 1.15 {
			t.Errorf("%v cents round trip: RMS ratio %.3f", c, r)
		}
	}
}

// On a harmonic signal, a tempo warp changes the duration by the factor
// and leaves the spectrum (so the pitch and the formants) where it was.
func TestTempoWarpKeepsTheHarmonicSpectrum(t *testing.T) {
	x := harmonic(8000, 1.5)
	ref := welch(x, 800, len(x)-800)
	for _, f := range []float64{0.7, 1.4} {
		y, err := TempoWarp(x, 8000, f)
		if err != nil {
			t.Fatal(err)
		}
		if want := int(math.Round(float64(len(x)) / f)); len(y) != want {
			t.Fatalf("tempo %v: %d samples, want %d", f, len(y), want)
		}
		if c := cosine(ref, welch(y, 800, len(y)-800)); c < 0.95 {
			t.Errorf("tempo %v: spectrum cosine %.3f with the original, want ≥ 0.95", f, c)
		}
	}
}

// TestSpectroWarpFillMin: with FillMin a large upward shift empties the
// lowest bands to the patch's minimum (silence comes in from below), a
// downward one empties the top bands, and the interior moves as with edge
// clamping.
func TestSpectroWarpFillMin(t *testing.T) {
	p := SpectroParams{Frames: 4, Mels: 40, LowHz: 20, HighHz: 4000, Cents: 1200, Tempo: 1, FillMin: true}
	g, err := NewSpectroGroup(p)
	if err != nil {
		t.Fatal(err)
	}
	p.FillMin = false
	clampG, err := NewSpectroGroup(p)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]float32, g.Dim())
	for i := range src {
		src[i] = 1 + float32(i%40)/40 // every band above the minimum but band 0
	}
	src[0] = -3 // the patch's minimum
	dst, ref := make([]float32, g.Dim()), make([]float32, g.Dim())
	for _, c := range []float64{1200, -1200} {
		g.Apply(dst, src, Warp{Cents: c, Tempo: 1})
		clampG.Apply(ref, src, Warp{Cents: c, Tempo: 1})
		emptied, same := 0, 0
		for k := 0; k < 40; k++ {
			raw := g.bandOf(g.centre[k] / math.Pow(2, c/1200))
			v := dst[2*40+k]
			switch {
			case raw < -1 || raw > 40:
				if v != -3 {
					t.Errorf("%+g cents: band %d (source %.2f) holds %v, want the minimum −3", c, k, raw, v)
				}
				emptied++
			case raw >= 0 && raw <= 39:
				if v != ref[2*40+k] {
					t.Errorf("%+g cents: interior band %d holds %v, clamped warp %v", c, k, v, ref[2*40+k])
				}
				same++
			}
		}
		// Downwards, everything above 4 kHz·2^(−1) empties; upwards the
		// mel axis is nearly linear at the bottom, so the lowest band is
		// only partly outside and must lie strictly between the floor
		// and the clamped value.
		if same == 0 || (c < 0 && emptied == 0) {
			t.Errorf("%+g cents: %d emptied and %d interior bands; the test checks too little", c, emptied, same)
		}
		if c > 0 && !(dst[2*40] > -3 && dst[2*40] < ref[2*40]) {
			t.Errorf("%+g cents: lowest band %v, want between the floor −3 and the clamped %v", c, dst[2*40], ref[2*40])
		}
	}
}
