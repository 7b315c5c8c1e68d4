package frontend

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// chirpish is a deterministic test signal: two tones, a glide and a little
// pseudo-noise, so every stage sees something non-trivial.
func chirpish(rate int, seconds float64) []float32 {
	n := int(float64(rate) * seconds)
	x := make([]float32, n)
	var lcg uint32 = 1
	for i := range x {
		t := float64(i) / float64(rate)
		lcg = lcg*1664525 + 1013904223
		noise := float64(lcg>>8)/float64(1<<24) - 0.5
		x[i] = float32(0.3*math.Sin(2*math.Pi*440*t) + 0.2*math.Sin(2*math.Pi*(300+800*t)*t) + 0.05*noise)
	}
	return x
}

func fullConfig() AudioConfig {
	c := DefaultAudioConfig()
	c.Ceps = 13
	c.Deltas = 2
	c.Splice = 5
	return c
}

func extractChunked(t *testing.T, cfg AudioConfig, x []float32, chunk int) blas32.General {
	t.Helper()
	e, err := NewExtractor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var all []float32
	rows := 0
	for i := 0; i < len(x); i += chunk {
		e.Push(x[i:min(i+chunk, len(x))])
		g := e.Pop()
		all = append(all, g.Data...)
		rows += g.Rows
	}
	e.Flush()
	g := e.Pop()
	all = append(all, g.Data...)
	rows += g.Rows
	return blas32.General{Rows: rows, Cols: e.Dim(), Stride: e.Dim(), Data: all}
}

func TestChunkingGivesIdenticalFrames(t *testing.T) {
	x := chirpish(8000, 1.3)
	for _, cmvn := range []string{"none", "sliding", "utterance"} {
		cfg := fullConfig()
		cfg.CMVN = cmvn
		whole, err := ExtractFrames(cfg, x)
		if err != nil {
			t.Fatal(err)
		}
		// 1.3 s at 10 ms hop with 25 ms frames: 1 + (10400-200)/80 = 128 frames.
		if whole.Rows != 128 || whole.Cols != 13*3*11 {
			t.Fatalf("%s: %dx%d frames, want 128x%d", cmvn, whole.Rows, whole.Cols, 13*3*11)
		}
		for _, chunk := range []int{1, 160, 4096} {
			got := extractChunked(t, cfg, x, chunk)
			if got.Rows != whole.Rows {
				t.Fatalf("%s chunk %d: %d frames, whole gives %d", cmvn, chunk, got.Rows, whole.Rows)
			}
			for i := range whole.Data {
				if math.Float32bits(got.Data[i]) != math.Float32bits(whole.Data[i]) {
					t.Fatalf("%s chunk %d: value %d differs: %v vs %v", cmvn, chunk, i, got.Data[i], whole.Data[i])
				}
			}
		}
	}
}

func TestToneLandsInItsMelBand(t *testing.T) {
	cfg := DefaultAudioConfig()

	for _, f := range []float64{300, 1000, 2500} {
		x := make([]float32, 8000)
		for i := range x {
			x[i] = float32(0.5 * math.Sin(2*math.Pi*f*float64(i)/8000))
		}
		frames, _ := LogMel(cfg, x)
		row := frames.Data[10*frames.Stride : 10*frames.Stride+cfg.Mels]
		best := 0
		for b, v := range row {
			if v > row[best] {
				best = b
			}
		}
		// The winning band's triangle must peak closest to f.
		lo, hi := hzToMel(cfg.LowHz), hzToMel(cfg.highHz())
		centre := func(b int) float64 { return melToHz(lo + (hi-lo)*float64(b+1)/float64(cfg.Mels+1)) }
		for b := 0; b < cfg.Mels; b++ {
			if math.Abs(centre(b)-f) < math.Abs(centre(best)-f)-1e-9 {
				t.Fatalf("%g Hz tone peaks in band %d (centre %.0f Hz), band %d is closer (%.0f Hz)", f, best, centre(best), b, centre(b))
			}
		}
	}
}

func TestFloatAndPCM16WAVAgree(t *testing.T) {
	a := &Audio{Rate: 8000, Samples: chirpish(8000, 0.5)}
	var f32, i16 bytes.Buffer
	if err := EncodeWAVFloat32(&f32, a); err != nil {
		t.Fatal(err)
	}
	if err := EncodeWAV16(&i16, a); err != nil {
		t.Fatal(err)
	}
	fa, err := ReadWAV(&f32)
	if err != nil {
		t.Fatal(err)
	}
	ia, err := ReadWAV(&i16)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range a.Samples {
		if fa.Samples[i] != v {
			t.Fatalf("float WAV sample %d: %v, wrote %v", i, fa.Samples[i], v)
		}
		if math.Abs(float64(ia.Samples[i]-v)) > 1.0/32768 {
			t.Fatalf("16-bit sample %d: %v, wrote %v", i, ia.Samples[i], v)
		}
	}
	cfg := DefaultAudioConfig()
	ff, _ := ExtractFrames(cfg, fa.Samples)
	fi, _ := ExtractFrames(cfg, ia.Samples)
	// Quantisation noise at -96 dB moves log-mel energies of a loud signal
	// by far less than 0.05 nats.
	var worst float64
	for i := range ff.Data {
		worst = math.Max(worst, math.Abs(float64(ff.Data[i]-fi.Data[i])))
	}
	if worst > 0.05 {
		t.Fatalf("float vs 16-bit frames differ by up to %.4f", worst)
	}
}

func TestStereoAnd8BitAnd24Bit(t *testing.T) {
	// Hand-built stereo 16-bit: left 0.5, right -0.25 → mono 0.125.
	data := []byte{0x00, 0x40, 0x00, 0xE0}
	b := wavBytes(1, 2, 8000, 16, data)
	a, err := DecodeWAV(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Samples) != 1 || math.Abs(float64(a.Samples[0])-0.125) > 1e-6 {
		t.Fatalf("stereo mixdown %v", a.Samples)
	}
	// 8-bit unsigned: 192 → +0.5, 64 → -0.5, then the 8-bit noise filter.
	a, err = DecodeWAV(wavBytes(1, 1, 8000, 8, []byte{192, 64}))
	if want := quantised8([]float32{0.5, -0.5}, 8000); err != nil || !slices.Equal(a.Samples, want) {
		t.Fatalf("8-bit %v %v, want %v", a, err, want)
	}
	// 24-bit: 0x400000 → +0.5.
	a, err = DecodeWAV(wavBytes(1, 1, 8000, 24, []byte{0, 0, 0x40}))
	if err != nil || math.Abs(float64(a.Samples[0])-0.5) > 1e-6 {
		t.Fatalf("24-bit %v %v", a, err)
	}
	// Extensible header with a float sub-format.
	ext := wavBytesExt(3, 1, 8000, 32, []byte{0, 0, 0, 0x3f}) // 0.5f
	a, err = DecodeWAV(ext)
	if err != nil || a.Samples[0] != 0.5 {
		t.Fatalf("extensible float %v %v", a, err)
	}
}

// wavBytes builds a canonical WAV file.
func wavBytes(tag, channels, rate, bits int, data []byte) []byte {
	var b bytes.Buffer
	le := func(v uint32, n int) {
		for i := 0; i < n; i++ {
			b.WriteByte(byte(v >> (8 * i)))
		}
	}
	b.WriteString("RIFF")
	le(uint32(36+len(data)), 4)
	b.WriteString("WAVEfmt ")
	le(16, 4)
	le(uint32(tag), 2)
	le(uint32(channels), 2)
	le(uint32(rate), 4)
	le(uint32(rate*channels*bits/8), 4)
	le(uint32(channels*bits/8), 2)
	le(uint32(bits), 2)
	b.WriteString("data")
	le(uint32(len(data)), 4)
	b.Write(data)
	return b.Bytes()
}

func wavBytesExt(sub, channels, rate, bits int, data []byte) []byte {
	var b bytes.Buffer
	le := func(v uint32, n int) {
		for i := 0; i < n; i++ {
			b.WriteByte(byte(v >> (8 * i)))
		}
	}
	b.WriteString("RIFF")
	le(uint32(60+len(data)), 4)
	b.WriteString("WAVEfmt ")
	le(40, 4)
	le(0xFFFE, 2)
	le(uint32(channels), 2)
	le(uint32(rate), 4)
	le(uint32(rate*channels*bits/8), 4)
	le(uint32(channels*bits/8), 2)
	le(uint32(bits), 2)
	le(22, 2)
	le(uint32(bits), 2)
	le(4, 4) // channel mask
	le(uint32(sub), 2)
	b.Write([]byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71})
	b.WriteString("data")
	le(uint32(len(data)), 4)
	b.Write(data)
	return b.Bytes()
}

func TestBadWAVsGiveClearErrors(t *testing.T) {
	good := wavBytes(1, 1, 8000, 16, make([]byte, 200))
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"empty":         {nil, "too short"},
		"garbage":       {[]byte("this is not a wave file at all"), "not a RIFF/WAVE"},
		"truncated":     {good[:len(good)-10], "truncated"},
		"no data":       {good[:36], "no data chunk"},
		"odd frames":    {wavBytes(1, 2, 8000, 16, make([]byte, 6)), "whole number"},
		"24-bit float":  {wavBytes(3, 1, 8000, 24, make([]byte, 6)), "not supported"},
		"16-bit mu-law": {wavBytes(7, 1, 8000, 16, make([]byte, 4)), "not supported"},
		"odd tag":       {wavBytes(0x1234, 1, 8000, 16, make([]byte, 4)), "format tag 0x1234"},
		"zero rate":     {wavBytes(1, 1, 0, 16, make([]byte, 4)), "sample rate"},
		"no channels":   {wavBytes(1, 0, 8000, 16, nil), "0 channels"},
		"NaN float":     {wavBytes(3, 1, 8000, 32, []byte{0, 0, 0xc0, 0x7f}), "not finite"},
	}
	for name, c := range cases {
		_, err := DecodeWAV(c.b)
		if err == nil {
			t.Errorf("%s: decoded without error", name)
			continue
		}
		if !errors.Is(err, ErrWAV) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want ErrWAV mentioning %q", name, err, c.want)
		}
	}
	// A codec met in practice but not decoded is named, with the command
	// that converts it.
	_, err := DecodeWAV(wavBytes(0x11, 1, 8000, 4, make([]byte, 4)))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "IMA ADPCM") || !strings.Contains(err.Error(), "ffmpeg -i") {
		t.Errorf("IMA ADPCM WAV: %v", err)
	}
	// A zero-length but well-formed file is valid and empty.
	a, err := DecodeWAV(wavBytes(1, 1, 8000, 16, nil))
	if err != nil || len(a.Samples) != 0 {
		t.Fatalf("empty WAV: %v, %v", a, err)
	}
}

func FuzzDecodeWAV(f *testing.F) {
	f.Add(wavBytes(1, 1, 8000, 16, []byte{1, 2, 3, 4}))
	f.Add(wavBytes(3, 2, 44100, 32, make([]byte, 16)))
	f.Add(wavBytes(1, 1, 8000, 8, []byte{128}))
	f.Add(wavBytesExt(1, 1, 16000, 24, make([]byte, 6)))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeWAV(b)
		if err != nil {
			return
		}
		for i, v := range a.Samples {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d is %v", i, v)
			}
		}
	})
}

func TestResampleMatchesNativeRate(t *testing.T) {
	// The same band-limited signal generated at 44.1 kHz and at 8 kHz.
	gen := func(rate int) []float32 {
		x := make([]float32, int(0.5*float64(rate)))
		for i := range x {
			tt := float64(i) / float64(rate)
			x[i] = float32(0.4*math.Sin(2*math.Pi*523*tt) + 0.3*math.Sin(2*math.Pi*1700*tt+1) + 0.1*math.Sin(2*math.Pi*3100*tt))
		}
		return x
	}
	hi := &Audio{Rate: 44100, Samples: gen(44100)}
	lo := gen(8000)
	got, err := Resample(hi, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Samples) != len(lo) {
		t.Fatalf("resampled to %d samples, want %d", len(got.Samples), len(lo))
	}
	// Away from the edges (where the filter sees the zero padding) the
	// error is tiny compared with the signal.
	var se, ss float64
	for i := 200; i < len(lo)-200; i++ {
		d := float64(got.Samples[i] - lo[i])
		se += d * d
		ss += float64(lo[i]) * float64(lo[i])
	}
	if snr := 10 * math.Log10(ss/se); snr < 50 {
		t.Fatalf("resampled signal SNR %.1f dB against the native one, want ≥ 50", snr)
	}
	// A tone above the new Nyquist frequency is removed, not aliased.
	alias := make([]float32, 44100/2)
	for i := range alias {
		alias[i] = float32(0.5 * math.Sin(2*math.Pi*6000*float64(i)/44100))
	}
	out, _ := Resample(&Audio{Rate: 44100, Samples: alias}, 8000)
	var e float64
	for _, v := range out.Samples[200 : len(out.Samples)-200] {
		e += float64(v) * float64(v)
	}
	if rms := math.Sqrt(e / float64(len(out.Samples)-400)); rms > 0.005 {
		t.Fatalf("6 kHz tone leaks through 8 kHz resampling at RMS %.4f", rms)
	}
}

func TestResamplerChunkingIsExact(t *testing.T) {
	x := chirpish(22050, 0.3)
	whole, _ := Resample(&Audio{Rate: 22050, Samples: x}, 8000)
	for _, chunk := range []int{1, 97, 5000} {
		r, _ := NewResampler(22050, 8000)
		var out []float32
		for i := 0; i < len(x); i += chunk {
			out = r.Push(out, x[i:min(i+chunk, len(x))])
		}
		out = r.Flush(out)
		if len(out) != len(whole.Samples) {
			t.Fatalf("chunk %d: %d samples, whole gives %d", chunk, len(out), len(whole.Samples))
		}
		for i := range out {
			if out[i] != whole.Samples[i] {
				t.Fatalf("chunk %d: sample %d differs", chunk, i)
			}
		}
	}
}

func TestShortSignalGivesOneFrame(t *testing.T) {
	f, err := ExtractFrames(DefaultAudioConfig(), make([]float32, 50))
	if err != nil || f.Rows != 1 {
		t.Fatalf("%d frames, %v", f.Rows, err)
	}
	f, _ = ExtractFrames(DefaultAudioConfig(), nil)
	if f.Rows != 0 {
		t.Fatalf("empty signal gave %d frames", f.Rows)
	}
}

// An energy meter gives every frame's log energy bit for bit as the full
// extractor does, pushed in any chunks, with no frames; a signal shorter
// than a frame still gets its one padded frame.
func TestEnergyMeterMatchesTheExtractor(t *testing.T) {
	for _, n := range []int{10400, 150, 0} {
		x := chirpish(8000, float64(n)/8000)
		full, err := NewExtractor(fullConfig())
		if err != nil {
			t.Fatal(err)
		}
		full.Push(x)
		full.Flush()
		frames := full.Pop()
		want := full.PopEnergy()
		if len(want) != frames.Rows {
			t.Fatalf("%d samples: extractor gives %d frames, %d energies", n, frames.Rows, len(want))
		}
		for _, chunk := range []int{1, 160, 4096} {
			m, err := NewEnergyMeter(fullConfig())
			if err != nil {
				t.Fatal(err)
			}
			var got []float64
			for i := 0; i < len(x); i += chunk {
				m.Push(x[i:min(i+chunk, len(x))])
				if g := m.Pop(); g.Rows != 0 {
					t.Fatalf("energy meter popped %d frames", g.Rows)
				}
				got = append(got, m.PopEnergy()...)
			}
			m.Flush()
			m.Pop()
			got = append(got, m.PopEnergy()...)
			if len(got) != len(want) {
				t.Fatalf("%d samples, chunk %d: %d energies, the extractor %d", n, chunk, len(got), len(want))
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%d samples, chunk %d: frame %d energy %v, the extractor %v", n, chunk, i, got[i], want[i])
				}
			}
		}
	}
}

// Analysers of one configuration share its filterbank, window and DCT
// (the live pipeline starts one per stream and per word); a configuration
// that differs in anything those depend on gets its own, equal to a fresh
// build.
func TestAnalysersShareTheTablesOfTheirConfiguration(t *testing.T) {
	base := DefaultAudioConfig()
	base.Ceps = 13
	a, b := newAnalyser(base), newAnalyser(base)
	if &a.mel[0][0] != &b.mel[0][0] || &a.hamming[0] != &b.hamming[0] || &a.dct[0][0] != &b.dct[0][0] {
		t.Fatal("two analysers of one configuration built their tables twice")
	}
	if a.fft == b.fft || &a.in[0] == &b.in[0] {
		t.Fatal("two analysers share an FFT plan or its buffers, which are written per frame")
	}
	variants := map[string]func(*AudioConfig){
		"sample rate": func(c *AudioConfig) { c.SampleRate = 16000 },
		"frame":       func(c *AudioConfig) { c.FrameMs = 20 },
		"mels":        func(c *AudioConfig) { c.Mels = 23 },
		"low edge":    func(c *AudioConfig) { c.LowHz = 100 },
		"high edge":   func(c *AudioConfig) { c.HighHz = 3000 },
		"cepstra":     func(c *AudioConfig) { c.Ceps = 12 },
		"warp":        func(c *AudioConfig) { c.Warp = 1.1 },
	}
	for name, change := range variants {
		c := base
		change(&c)
		v := newAnalyser(c)
		if &v.mel[0][0] == &a.mel[0][0] {
			t.Errorf("%s: a changed configuration reuses the default's filterbank", name)
		}
		fresh := buildTables(keyOf(c))
		if !reflect.DeepEqual(v.mel, fresh.mel) || !reflect.DeepEqual(v.hamming, fresh.hamming) || !reflect.DeepEqual(v.dct, fresh.dct) {
			t.Errorf("%s: the cached tables differ from a fresh build", name)
		}
	}
}
