//go:build unix

package engine

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

// benchConnected builds a connected recogniser of the evaluated shape (10
// digits × 8 states + 3 silence states, maxout m = 2000, q = 4, softmax):
// speed depends on the shapes, not on trained weights.
func benchConnected(b *testing.B) *Connected {
	in := DefaultConnectedInput()
	mp, err := maxout.New(in.Audio.Dim(), maxout.Params{M: 2000, Q: 4}, 1)
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	classes := in.Classes(len(words))
	r := rand.New(rand.NewPCG(1, 1))
	w := linalg.NewGeneral32(mp.OutDim(), classes)
	for i := range w.Data {
		w.Data[i] = float32(r.NormFloat64() * 0.01)
	}
	prior := linalg.NewGeneral32(1, classes)
	for i := range prior.Data {
		prior.Data[i] = -4.4
	}
	m := &Model{Task: TaskConnected, Labels: words, Input: mustMarshal(in), Decoder: mustMarshal(DefaultConnectedDecoder()), Map: mp.Recipe(),
		Blobs: map[string]blas32.General{BlobSoftmaxW: w, BlobSoftmaxB: linalg.NewGeneral32(1, classes), BlobLogPrior: prior}}
	c, err := NewConnected(m)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkConnectedRTF times frontend + features + classifier + decoder
// over 5 s of audio and reports the real-time factor (seconds of compute
// per second of audio): "rtf" by the wall clock and "cpu-rtf" by the CPU
// time the process used, which stays meaningful on a loaded machine. On one
// core: OPENBLAS_NUM_THREADS=1 go test -cpu 1 (make bench-connected).
func BenchmarkConnectedRTF(b *testing.B) {
	c := benchConnected(b)
	a := &frontend.Audio{Rate: 8000, Samples: benchToneWords()}
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := c.Recognize(a); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/a.Duration(), "rtf")
	b.ReportMetric(cpu.Seconds()/float64(b.N)/a.Duration(), "cpu-rtf")
}

// BenchmarkStreamLengths times a stream of 15, 30 and 60 s of tone words
// with pauses shorter than the endpointer's, so utterances run to
// MaxWordMs (20 s), through the connected model of the evaluated shape:
// offline (NewLiveRecognizer: final results only) and live (100 ms chunks,
// a partial result every 300 ms). "cpu-rtf" is CPU seconds per second of
// audio: linear time keeps it flat as the audio grows.
func BenchmarkStreamLengths(b *testing.B) {
	c := benchConnected(b)
	words := benchToneWords()
	for _, secs := range []int{15, 30, 60} {
		var s []float32
		for len(s) < secs*8000 {
			s = append(s, words...)
		}
		s = s[:secs*8000]
		for _, live := range []bool{false, true} {
			name := fmt.Sprintf("offline/%ds", secs)
			if live {
				name = fmt.Sprintf("live/%ds", secs)
			}
			b.Run(name, func(b *testing.B) {
				cpu0 := cpuTime()
				for b.Loop() {
					st, err := NewConnectedStream(c, c.StreamConfig(), 8000)
					if err != nil {
						b.Fatal(err)
					}
					if !live {
						st.seg.FinalsOnly()
						if _, err := endOfStream(st, s); err != nil {
							b.Fatal(err)
						}
						continue
					}
					for i := 0; i < len(s); i += 800 {
						st.Push(s[i:min(i+800, len(s))])
					}
					st.Flush()
				}
				b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N)/float64(secs), "cpu-rtf")
			})
		}
	}
}

// benchToneWords is 5 s at 8 kHz of seven tone words, 0.4 s each, between
// stretches of background: the audio the speed benchmarks run on.
func benchToneWords() []float32 {
	rng := rand.New(rand.NewPCG(2, 2))
	var s []float32
	for _, w := range []string{"lo", "hi", "lo", "hi", "lo", "hi", "lo"} {
		s = append(s, datasets.Silence(2400, fixtures.ToneFloor, rng)...)
		s = append(s, fixtures.ToneWord(w, 0.4, 0.2, 8000)...)
	}
	return append(s, datasets.Silence(40000-len(s), fixtures.ToneFloor, rng)...)
}

// cpuTime is the user + system time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
