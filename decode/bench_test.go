package decode

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/rfstream/rfstream/internal/flopmeter"
)

// frameMeter reports frames/s of wall time and, where the OS tells the
// thread's CPU time, frames per CPU-second of the decoding thread: the
// per-core speed, which stays meaningful when other jobs share the cores.
type frameMeter struct {
	cpu0 time.Duration
	ok   bool
}

func startMeter(b *testing.B) *frameMeter {
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	c, ok := flopmeter.ThreadCPU()
	return &frameMeter{c, ok}
}

func (m *frameMeter) report(b *testing.B, frames int) {
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
	if c, ok := flopmeter.ThreadCPU(); ok && m.ok && c > m.cpu0 {
		b.ReportMetric(float64(frames)/(c-m.cpu0).Seconds(), "frames/cpu-s")
	}
}

// The digit loop: 11 words × 5 states + 3-state silence, on noisy frames of
// digit strings. frames/s is per core (the decoder is single-threaded).
func BenchmarkViterbiDigitLoop(b *testing.B) {
	for _, beam := range []float64{0, 10} {
		name := "exact"
		if beam > 0 {
			name = "beam10"
		}
		b.Run(name, func(b *testing.B) {
			g, words, sil := digitLoop(b, 5)
			rng := rand.New(rand.NewPCG(1, 1))
			m, _ := digitString(rng, g, words, sil, 7, 1)
			meter := startMeter(b)
			for b.Loop() {
				if _, err := Viterbi(g, m, Options{Beam: beam}); err != nil {
					b.Fatal(err)
				}
			}
			meter.report(b, b.N*m.Rows)
		})
	}
}

func BenchmarkDecoderPushDigitLoop(b *testing.B) {
	g, words, sil := digitLoop(b, 5)
	rng := rand.New(rand.NewPCG(2, 2))
	m, _ := digitString(rng, g, words, sil, 7, 1)
	d, err := NewDecoder(g, Options{})
	if err != nil {
		b.Fatal(err)
	}
	meter := startMeter(b)
	for b.Loop() {
		// 10-frame chunks (100 ms), as a live stream delivers them.
		for i := 0; i < m.Rows; i += 10 {
			if err := d.Push(rows(m, i, min(m.Rows, i+10))); err != nil {
				b.Fatal(err)
			}
			_ = d.Partial()
		}
		if _, err := d.Final(); err != nil {
			b.Fatal(err)
		}
		d.Reset()
	}
	meter.report(b, b.N*m.Rows)
}

// A phone loop: 40 phones × 3 states + 3-state silence (1 681 loop arcs).
func BenchmarkViterbiPhoneLoop(b *testing.B) {
	names := make([]string, 40)
	for i := range names {
		names[i] = string(rune('A'+i/26)) + string(rune('a'+i%26))
	}
	phones := mustUnits(b, names, 3, 0.6, 0)
	sil := mustSil(b, 3, 0.6, NumClasses(phones...))
	g, err := WordLoop(phones, &sil, LoopConfig{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var seq []Unit
	var durs [][]int
	for range 60 {
		seq = append(seq, phones[rng.IntN(len(phones))])
		durs = append(durs, []int{1 + rng.IntN(4), 1 + rng.IntN(4), 1 + rng.IntN(4)})
	}
	m := synthetic(rng, g.NumClasses(), seq, durs, 3, 1)
	meter := startMeter(b)
	for b.Loop() {
		if _, err := Viterbi(g, m, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	meter.report(b, b.N*m.Rows)
}
