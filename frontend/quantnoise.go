package frontend

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// An 8-bit recording's quantisation step is 1/128 of full scale, so a quiet
// voice (FSDD has words peaking at 2 % of full scale) spans a few steps and
// sits about 8 dB above the step's noise. The recogniser's features were
// never trained on that noise and lose such words: of 200 FSDD strings,
// the 8-bit copies sox makes were heard as the 16-bit originals 86 times
// (dithered) and 107 (not); with the noise suppressed here, 152 and 141
// (experiments/journal/audio.md, "8-bit recordings").
// The noise is known before any sample is read, white with the variance of
// the step's rounding error plus the TPDF dither most converters add, so a
// Wiener filter can take it out without estimating it from the signal.

// lowBitDepth is the deepest integer PCM whose quantisation noise the
// decoders suppress; 16-bit noise lies 48 dB lower, below any microphone's.
const lowBitDepth = 8

// Wiener filter settings: chosen once on 8-bit copies of FSDD training
// takes (the journal's round), never per recording.
const (
	quantWindowMs  = 32   // analysis window, rounded up to a power of two
	quantSmoothing = 0.98 // decision-directed a-priori SNR smoothing (Ephraim-Malah)
	quantGainFloor = 0.01 // least gain of a bin: residual noise kept, not zeroed
)

// suppressQuantisationNoise filters, in place, the noise of quantising x to
// bits-bit integers (bits ≤ lowBitDepth; deeper ones are left as they are).
// It uses only a window of extra memory: each output sample is final, and
// written back, once the last window that covers it has been filtered.
func suppressQuantisationNoise(x []float32, rate, bits int) {
	if bits > lowBitDepth || len(x) == 0 || rate <= 0 {
		return
	}
	n := 1
	for n*1000 < rate*quantWindowMs {
		n *= 2
	}
	n = max(n, 16)
	hop := n / 4
	// sqrt-Hann for analysis and synthesis: the squared windows of four
	// frames a hop apart sum to exactly 2 at every sample.
	win := make([]float64, n)
	var energy float64
	for i := range win {
		win[i] = math.Sqrt(0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n)))
		energy += win[i] * win[i]
	}
	step := math.Ldexp(1, 1-bits) // full scale [-1, 1) in 2^bits steps
	noise := step * step / 4 * energy
	fft := fourier.NewFFT(n)
	frame := make([]float64, n)
	acc := make([]float64, n) // output samples [s, s+n) of the current frame
	prev := make([]float64, n/2+1)
	var spec []complex128
	for s := hop - n; s < len(x); s += hop {
		for i := range frame {
			frame[i] = 0
			if j := s + i; j >= 0 && j < len(x) {
				frame[i] = float64(x[j]) * win[i]
			}
		}
		spec = fft.Coefficients(spec, frame)
		for k, y := range spec {
			power := real(y)*real(y) + imag(y)*imag(y)
			post := power / noise
			prior := quantSmoothing*prev[k]/noise + (1-quantSmoothing)*math.Max(post-1, 0)
			g := math.Max(prior/(1+prior), quantGainFloor)
			spec[k] = y * complex(g, 0)
			prev[k] = g * g * power
		}
		fft.Sequence(frame, spec)
		for i := range frame {
			acc[i] += frame[i] / float64(n) * win[i]
		}
		for i := 0; i < hop; i++ {
			if j := s + i; j >= 0 && j < len(x) {
				x[j] = float32(acc[i] / 2)
			}
		}
		copy(acc, acc[hop:])
		clear(acc[n-hop:])
	}
}
