package frontend

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/dsp/fourier"
)

// AudioConfig describes the audio frontend completely; it is stored in
// model files, so a model always hears what it was trained on.
type AudioConfig struct {
	SampleRate int     `json:"sample_rate"` // Hz; inputs at other rates are resampled
	FrameMs    float64 `json:"frame_ms"`    // analysis window, ms (25)
	HopMs      float64 `json:"hop_ms"`      // frame shift, ms (10)
	PreEmph    float64 `json:"pre_emphasis"`
	Mels       int     `json:"mels"`    // mel bands
	LowHz      float64 `json:"low_hz"`  // lowest mel band edge
	HighHz     float64 `json:"high_hz"` // highest edge (0: Nyquist)
	// Ceps, when positive, turns log-mel into that many MFCCs (DCT-II).
	Ceps int `json:"ceps"`
	// Deltas appends first (1) or first and second (2) time differences.
	Deltas int `json:"deltas"`
	// CMVN normalises each coefficient's mean and variance: "none",
	// "utterance" (whole input, so frames come out only at Flush) or
	// "sliding" (over the last CMVNWindow frames, causal).
	CMVN       string `json:"cmvn"`
	CMVNWindow int    `json:"cmvn_window"`
	// Splice stacks ±Splice neighbouring frames (5 gives 11-frame windows).
	Splice int `json:"splice"`
	// Warp, when set (0.7 to 1.4; 0 and 1 mean none), is a vocal-tract
	// warp of the mel filterbank: the band a model knows at f hears this
	// input at Warp·f (piecewise linear, so the top edge stays put; see
	// WarpHz). A decoder that tries several warps on a voice and keeps the
	// best-scoring one hears a shorter tract, as a woman's, with Warp > 1
	// as the longer ones it was trained on. Models are trained unwarped.
	Warp float64 `json:"warp,omitempty"`
}

// DefaultAudioConfig is 8 kHz, 25/10 ms Hamming frames, 40 log-mel bands.
func DefaultAudioConfig() AudioConfig {
	return AudioConfig{SampleRate: 8000, FrameMs: 25, HopMs: 10, PreEmph: 0.97, Mels: 40, LowHz: 20, CMVN: "none", CMVNWindow: 300}
}

// Validate checks the configuration.
func (c AudioConfig) Validate() error {
	switch {
	case c.SampleRate < 1000 || c.SampleRate > 768000:
		return fmt.Errorf("frontend: sample rate %d", c.SampleRate)
	case c.FrameMs <= 0 || c.HopMs <= 0 || c.HopMs > c.FrameMs:
		return fmt.Errorf("frontend: frame %g ms, hop %g ms", c.FrameMs, c.HopMs)
	case c.Mels < 1 || c.Ceps < 0 || c.Ceps > c.Mels:
		return fmt.Errorf("frontend: %d mels, %d cepstra", c.Mels, c.Ceps)
	case c.Deltas < 0 || c.Deltas > 2 || c.Splice < 0 || c.Splice > 50:
		return fmt.Errorf("frontend: deltas %d, splice %d", c.Deltas, c.Splice)
	case c.PreEmph < 0 || c.PreEmph >= 1:
		return fmt.Errorf("frontend: pre-emphasis %g", c.PreEmph)
	case c.CMVN != "none" && c.CMVN != "" && c.CMVN != "utterance" && c.CMVN != "sliding":
		return fmt.Errorf("frontend: CMVN %q (none, utterance, sliding)", c.CMVN)
	case c.CMVN == "sliding" && c.CMVNWindow < 2:
		return fmt.Errorf("frontend: sliding CMVN window of %d frames", c.CMVNWindow)
	case c.Warp != 0 && !(c.Warp >= MinWarp && c.Warp <= MaxWarp):
		return fmt.Errorf("frontend: vocal-tract warp %g (%g to %g, or 0 for none)", c.Warp, MinWarp, MaxWarp)
	}
	hi := c.highHz()
	if c.LowHz < 0 || hi <= c.LowHz || hi > float64(c.SampleRate)/2 {
		return fmt.Errorf("frontend: mel range %g..%g Hz at %d Hz", c.LowHz, hi, c.SampleRate)
	}
	return nil
}

// MinWarp and MaxWarp bound AudioConfig.Warp: a tract 40 % longer or
// shorter than the voices a model learnt is past what a warp can mend.
const (
	MinWarp = 0.7
	MaxWarp = 1.4
)

// warpCut is the share of the top edge below which WarpHz is linear (for
// warps above 1 it shrinks by the warp, so the warped cut stays below the
// edge).
const warpCut = 0.8

// WarpHz is where a filterbank warped by alpha (AudioConfig.Warp) reads the
// band a model knows at f Hz, with the filters' top edge at hi Hz: alpha·f
// up to a cut, then the straight line to (hi, hi), so the warped bank
// still covers the same range and no band falls off its end. Alpha 0 or 1
// is the identity.
func WarpHz(f, alpha, hi float64) float64 {
	if alpha == 0 || alpha == 1 {
		return f
	}
	cut := warpCut * hi * min(1, 1/alpha)
	if f <= cut {
		return alpha * f
	}
	return alpha*cut + (f-cut)*(hi-alpha*cut)/(hi-cut)
}

func (c AudioConfig) highHz() float64 {
	if c.HighHz > 0 {
		return c.HighHz
	}
	return float64(c.SampleRate) / 2
}

// FrameLen and Hop are the window and shift in samples.
func (c AudioConfig) FrameLen() int { return int(math.Round(c.FrameMs * float64(c.SampleRate) / 1000)) }
func (c AudioConfig) Hop() int      { return int(math.Round(c.HopMs * float64(c.SampleRate) / 1000)) }

// StaticDim is the size of one frame before deltas and splicing.
func (c AudioConfig) StaticDim() int {
	if c.Ceps > 0 {
		return c.Ceps
	}
	return c.Mels
}

// Dim is the size of an output frame.
func (c AudioConfig) Dim() int { return c.StaticDim() * (1 + c.Deltas) * (2*c.Splice + 1) }

// MarshalJSON-friendly copy for model files.
func (c AudioConfig) JSON() json.RawMessage {
	b, _ := json.Marshal(c)
	return b
}

// analyser computes one frame's static features (log-mel or MFCC) and log
// energy from FrameLen samples. Not safe for concurrent use.
type analyser struct {
	cfg     AudioConfig
	nfft    int
	hamming []float64
	fft     *fourier.FFT
	in      []float64
	coef    []complex128
	power   []float64
	mel     [][]melWeight // per band: the FFT bins it covers
	logmel  []float64
	dct     [][]float64 // Ceps × Mels
}

type melWeight struct {
	bin int
	w   float64
}

func hzToMel(f float64) float64 { return 2595 * math.Log10(1+f/700) }
func melToHz(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }

func newAnalyser(c AudioConfig) *analyser {
	k := keyOf(c)
	t := tablesFor(k)
	return &analyser{cfg: c, nfft: k.nfft, hamming: t.hamming, mel: t.mel, dct: t.dct, fft: fourier.NewFFT(k.nfft),
		in: make([]float64, k.nfft), power: make([]float64, k.nfft/2+1), logmel: make([]float64, c.Mels)}
}

// keyOf is what c's analyser tables depend on; the FFT is the smallest
// power of two that holds a frame.
func keyOf(c AudioConfig) tableKey {
	n := c.FrameLen()
	nfft := 1
	for nfft < n {
		nfft *= 2
	}
	return tableKey{frameLen: n, nfft: nfft, rate: c.SampleRate, mels: c.Mels, lowHz: c.LowHz, highHz: c.highHz(), ceps: c.Ceps, warp: c.Warp}
}

// analyserTables are the parts of an analyser that depend on its
// configuration alone and are only read: the live pipeline starts an
// analyser for every stream and every word, and building the filterbank
// cost more than the FFT plan and buffers together.
type analyserTables struct {
	hamming []float64
	mel     [][]melWeight
	dct     [][]float64
}

// tableKey is what analyserTables depend on.
type tableKey struct {
	frameLen, nfft, rate, mels int
	lowHz, highHz              float64
	ceps                       int
	warp                       float64
}

// tables caches analyserTables by tableKey. A process sees a handful of
// configurations, so entries are never evicted.
var tables sync.Map

func tablesFor(k tableKey) *analyserTables {
	if t, ok := tables.Load(k); ok {
		return t.(*analyserTables)
	}
	t, _ := tables.LoadOrStore(k, buildTables(k))
	return t.(*analyserTables)
}

func buildTables(k tableKey) *analyserTables {
	t := &analyserTables{hamming: hammingWindow(k.frameLen)}
	// Triangular filters equally spaced on the mel scale.
	lo, hi := hzToMel(k.lowHz), hzToMel(k.highHz)
	edges := make([]float64, k.mels+2)
	for i := range edges {
		edges[i] = WarpHz(melToHz(lo+(hi-lo)*float64(i)/float64(k.mels+1)), k.warp, k.highHz)
	}
	binHz := float64(k.rate) / float64(k.nfft)
	t.mel = make([][]melWeight, k.mels)
	for b := 0; b < k.mels; b++ {
		l, m, r := edges[b], edges[b+1], edges[b+2]
		for i := 0; i <= k.nfft/2; i++ {
			f := float64(i) * binHz
			var w float64
			switch {
			case f > l && f <= m:
				w = (f - l) / (m - l)
			case f > m && f < r:
				w = (r - f) / (r - m)
			}
			if w > 0 {
				t.mel[b] = append(t.mel[b], melWeight{i, w})
			}
		}
		if len(t.mel[b]) == 0 {
			// A band narrower than a bin takes the nearest bin.
			t.mel[b] = []melWeight{{int(math.Round(m / binHz)), 1}}
		}
	}
	if k.ceps > 0 {
		t.dct = make([][]float64, k.ceps)
		for i := range t.dct {
			t.dct[i] = make([]float64, k.mels)
			s := math.Sqrt(2 / float64(k.mels))
			if i == 0 {
				s = math.Sqrt(1 / float64(k.mels))
			}
			for j := range t.dct[i] {
				t.dct[i][j] = s * math.Cos(math.Pi*float64(i)*(float64(j)+0.5)/float64(k.mels))
			}
		}
	}
	return t
}

func hammingWindow(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.54 - 0.46*math.Cos(2*math.Pi*float64(i)/float64(n-1))
	}
	return w
}

// melFloor keeps the logarithm finite on digital silence.
const melFloor = 1e-10

// frame fills out (StaticDim) from the pre-emphasised samples x and
// returns the frame's log energy.
func (a *analyser) frame(out []float32, x []float32) float64 {
	energy := a.window(x)
	for i := len(x); i < a.nfft; i++ {
		a.in[i] = 0
	}
	a.coef = a.fft.Coefficients(a.coef, a.in)
	for k, c := range a.coef {
		a.power[k] = real(c)*real(c) + imag(c)*imag(c)
	}
	for b, ws := range a.mel {
		var s float64
		for _, w := range ws {
			s += w.w * a.power[w.bin]
		}
		a.logmel[b] = math.Log(math.Max(s, melFloor))
	}
	if a.dct == nil {
		for i, v := range a.logmel {
			out[i] = float32(v)
		}
	} else {
		for i, row := range a.dct {
			var s float64
			for j, v := range a.logmel {
				s += row[j] * v
			}
			out[i] = float32(s)
		}
	}
	return logEnergy(energy)
}

// window puts the windowed frame x into a.in and returns its energy, the
// sum of its squares.
func (a *analyser) window(x []float32) float64 {
	var energy float64
	for i, v := range x {
		s := float64(v) * a.hamming[i]
		a.in[i] = s
		energy += s * s
	}
	return energy
}

func logEnergy(energy float64) float64 { return math.Log(math.Max(energy, melFloor)) }

// LogMel computes log-mel frames of a whole signal without deltas, CMVN or
// splicing (used for whole-word patches), and each frame's log energy.
func LogMel(c AudioConfig, samples []float32) (blas32.General, []float64) {
	e, err := NewExtractor(logMelConfig(c))
	if err != nil {
		panic(err)
	}
	e.Push(samples)
	e.Flush()
	return e.Pop(), e.PopEnergy()
}

func logMelConfig(c AudioConfig) AudioConfig {
	c.Deltas, c.Splice, c.CMVN, c.Ceps = 0, 0, "none", 0
	return c
}

// WordFrames computes LogMel for the successive segments of one word in a
// stream: partial words, each the one before it with more samples after,
// then the closed word, which may end sooner. Each call analyses only the
// frames past those it has, so a word costs its frames once instead of
// once a partial. The frames and energies equal LogMel's bit for bit;
// samples that neither extend nor begin the ones seen start afresh. The
// zero value is ready; it is not safe for concurrent use.
type WordFrames struct {
	cfg    AudioConfig
	ext    *Extractor
	fed    []float32 // the samples pushed so far
	frames []float32
	energy []float64
}

// LogMel returns LogMel(c, samples).
func (f *WordFrames) LogMel(c AudioConfig, samples []float32) (blas32.General, []float64) {
	c = logMelConfig(c)
	n := min(len(samples), len(f.fed))
	if f.ext == nil || c != f.cfg || !sameBits(samples[:n], f.fed[:n]) {
		e, err := NewExtractor(c)
		if err != nil {
			panic(err)
		}
		// Fresh slices: frames returned before may still be read.
		*f = WordFrames{cfg: c, ext: e}
	}
	if len(samples) > len(f.fed) {
		f.ext.Push(samples[len(f.fed):])
		f.fed = append(f.fed, samples[len(f.fed):]...)
		g := f.ext.Pop()
		f.frames = append(f.frames, g.Data...)
		f.energy = append(f.energy, f.ext.PopEnergy()...)
	}
	// The frames that lie wholly within samples, which may end before the
	// samples seen (a closed word ends where its trailing silence began,
	// before the last partial's end).
	flen, hop := c.FrameLen(), c.Hop()
	if len(samples) < flen {
		// Shorter than a frame: LogMel pads it at Flush, which would end
		// the stream this one continues.
		return LogMel(c, samples)
	}
	rows := min((len(samples)-flen)/hop+1, len(f.energy))
	d := c.Dim()
	return blas32.General{Rows: rows, Cols: d, Stride: d, Data: f.frames[: rows*d : rows*d]}, f.energy[:rows:rows]
}

// sameBits reports whether a and b, of one length, hold the same bits.
func sameBits(a, b []float32) bool {
	for i, v := range b {
		if math.Float32bits(a[i]) != math.Float32bits(v) {
			return false
		}
	}
	return true
}
