package augment

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/rfstream/rfstream/frontend"
)

// VTLN warps a's spectral envelope along frequency by alpha (a formant at
// f moves to alpha·f, as in a vocal tract 1/alpha times as long) and
// leaves its harmonics, hence its pitch, where they are: each short-time
// spectrum is multiplied by the ratio of the warped envelope to the
// original, the envelope being the cepstrally smoothed log magnitude.
func VTLN(a *frontend.Audio, alpha float64) (*frontend.Audio, error) {
	if !(alpha >= 0.7 && alpha <= 1.4) {
		return nil, fmt.Errorf("augment: vocal-tract warp %g (0.7 to 1.4)", alpha)
	}
	const n, hop, lifter = 256, 64, 24
	x := a.Samples
	fft := fourier.NewFFT(n)
	win := make([]float64, n)
	for i := range win {
		win[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n)
	}
	out := make([]float64, len(x)+n)
	norm := make([]float64, len(x)+n)
	frame := make([]float64, n)
	for start := -n + hop; start < len(x); start += hop {
		for i := range frame {
			frame[i] = 0
			if j := start + i; j >= 0 && j < len(x) {
				frame[i] = float64(x[j]) * win[i]
			}
		}
		spec := fft.Coefficients(nil, frame)
		env := envelope(fft, spec, n, lifter)
		for k := range spec {
			src := float64(k) / alpha
			if src > float64(len(env)-1) {
				src = float64(len(env) - 1)
			}
			lo := int(src)
			hi := min(lo+1, len(env)-1)
			w := src - float64(lo)
			warped := (1-w)*env[lo] + w*env[hi]
			spec[k] *= complex(math.Exp(warped-env[k]), 0)
		}
		y := fft.Sequence(nil, spec)
		for i, v := range y {
			if j := start + i + n; j >= 0 && j < len(out) {
				out[j] += v / n * win[i]
				norm[j] += win[i] * win[i]
			}
		}
	}
	res := make([]float32, len(x))
	for i := range res {
		if w := norm[i+n]; w > 1e-9 {
			res[i] = float32(out[i+n] / w)
		}
	}
	return &frontend.Audio{Rate: a.Rate, Samples: res}, nil
}

// envelope is the log magnitude of spec smoothed by keeping its first
// lifter cepstral coefficients.
func envelope(fft *fourier.FFT, spec []complex128, n, lifter int) []float64 {
	logMag := make([]float64, n)
	for k := 0; k < n; k++ {
		c := spec[min(k, n-k)]
		logMag[k] = math.Log(cmplx.Abs(c) + 1e-9)
	}
	ceps := fourier.NewFFT(n).Coefficients(nil, logMag)
	for q := lifter; q <= n/2; q++ {
		ceps[q] = 0
	}
	smooth := fft.Sequence(nil, ceps)
	env := make([]float64, len(spec))
	for k := range env {
		env[k] = smooth[k] / float64(n)
	}
	return env
}
