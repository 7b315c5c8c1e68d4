package frontend

import (
	"math"
	"math/cmplx"
	"syscall"
	"testing"

	dspfft "github.com/mjibson/go-dsp/fft"
	"gonum.org/v1/gonum/dsp/fourier"
)

// benchSeconds of test signal per benchmark iteration.
const benchSeconds = 10

// cpuSeconds is the CPU time this process has used (user + system, all
// threads, so the garbage collector's work counts too). Unlike wall time it
// does not grow when other processes share the cores.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// reportRTF adds the real-time factor: seconds of CPU per second of audio
// processed. The work runs on one goroutine, so this is one core's share.
func reportRTF(b *testing.B, startCPU float64) {
	audio := float64(b.N) * benchSeconds
	b.ReportMetric((cpuSeconds()-startCPU)/audio, "cpu-s/audio-s")
}

// reportCPUPerOp adds CPU nanoseconds per operation beside the wall-clock
// ns/op, for comparisons on a busy machine.
func reportCPUPerOp(b *testing.B, startCPU float64) {
	b.ReportMetric((cpuSeconds()-startCPU)*1e9/float64(b.N), "cpu-ns/op")
}

// BenchmarkFrontendRTF measures the frontend's real-time factor on 8 kHz
// audio pushed in 10 ms chunks, as a live stream arrives.
func BenchmarkFrontendRTF(b *testing.B) {
	x := chirpish(8000, benchSeconds)
	cases := []struct {
		name string
		cfg  AudioConfig
	}{
		{"logmel40", DefaultAudioConfig()},
		{"mfcc13+d+dd+splice5+slidingCMVN", func() AudioConfig {
			c := fullConfig()
			c.CMVN = "sliding"
			return c
		}()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuSeconds()
			for i := 0; i < b.N; i++ {
				e, err := NewExtractor(c.cfg)
				if err != nil {
					b.Fatal(err)
				}
				for j := 0; j < len(x); j += 80 {
					e.Push(x[j:min(j+80, len(x))])
					e.Pop()
				}
				e.Flush()
				e.Pop()
			}
			reportRTF(b, start)
		})
	}
	// 44.1 kHz input resampled to 8 kHz in the same chunks of 10 ms, then
	// log-mel: the cost a CD-rate microphone adds.
	b.Run("resample44k1+logmel40", func(b *testing.B) {
		hi := chirpish(44100, benchSeconds)
		start := cpuSeconds()
		for i := 0; i < b.N; i++ {
			r, _ := NewResampler(44100, 8000)
			e, _ := NewExtractor(DefaultAudioConfig())
			var buf []float32
			for j := 0; j < len(hi); j += 441 {
				buf = r.Push(buf[:0], hi[j:min(j+441, len(hi))])
				e.Push(buf)
				e.Pop()
			}
			e.Push(r.Flush(buf[:0]))
			e.Flush()
			e.Pop()
		}
		reportRTF(b, start)
	})
	// The speech detector's energies, the input pushed 10 s at a time:
	// what the streaming frontend does with a client's big messages.
	b.Run("energymeter-whole-pushes", func(b *testing.B) {
		b.ReportAllocs()
		start := cpuSeconds()
		for i := 0; i < b.N; i++ {
			e, err := NewEnergyMeter(DefaultAudioConfig())
			if err != nil {
				b.Fatal(err)
			}
			e.Push(x)
			e.PopEnergy()
			e.Flush()
		}
		reportRTF(b, start)
	})
	// The isolated-word representation of a whole recording.
	b.Run("wordvector", func(b *testing.B) {
		wc := DefaultWordConfig()
		start := cpuSeconds()
		for i := 0; i < b.N; i++ {
			if _, err := WordVector(wc, x); err != nil {
				b.Fatal(err)
			}
		}
		reportRTF(b, start)
	})
}

// BenchmarkFFT512 compares gonum's dsp/fourier with go-dsp on the
// frontend's transform: a real 512-point FFT of a zero-padded 200-sample
// (25 ms at 8 kHz) or 400-sample (25 ms at 16 kHz) frame.
func BenchmarkFFT512(b *testing.B) {
	frame := make([]float64, 512)
	for i := 0; i < 400; i++ {
		frame[i] = math.Sin(float64(i)*0.3) + 0.5*math.Cos(float64(i)*1.7)
	}
	b.Run("gonum-fourier", func(b *testing.B) {
		f := fourier.NewFFT(512)
		var out []complex128
		start := cpuSeconds()
		for i := 0; i < b.N; i++ {
			out = f.Coefficients(out, frame)
		}
		reportCPUPerOp(b, start)
	})
	b.Run("go-dsp", func(b *testing.B) {
		start := cpuSeconds()
		for i := 0; i < b.N; i++ {
			dspfft.FFTReal(frame)
		}
		reportCPUPerOp(b, start)
	})
}

// TestFFTBackendsAgree makes the benchmark a fair one: both compute the
// same spectrum.
func TestFFTBackendsAgree(t *testing.T) {
	frame := make([]float64, 512)
	for i := 0; i < 400; i++ {
		frame[i] = math.Sin(float64(i)*0.3) + 0.5*math.Cos(float64(i)*1.7)
	}
	g := fourier.NewFFT(512).Coefficients(nil, frame)
	d := dspfft.FFTReal(frame)
	for k := range g {
		if cmplx.Abs(g[k]-d[k]) > 1e-9*float64(len(frame)) {
			t.Fatalf("bin %d: gonum %v, go-dsp %v", k, g[k], d[k])
		}
	}
}
