package frontend

import (
	"fmt"
	"math"
)

// Resampler converts a stream from one sample rate to another with a
// polyphase windowed-sinc filter whose cut-off sits below the lower Nyquist
// frequency, so downsampling does not alias. Pushing a signal in chunks of
// any size gives exactly the samples of pushing it whole.
type Resampler struct {
	up, down int         // output/input rate ratio up/down in lowest terms
	half     int         // filter half-width in input samples
	taps     [][]float32 // per phase: 2·half+1 taps for input offsets -half..half
	buf      []float32   // input samples from absolute index bufStart on
	bufStart int64
	inCount  int64 // input samples pushed so far
	next     int64 // index of the next output sample
	flushed  bool
}

// zeroCrossings of the sinc kept on each side: sets transition width.
const zeroCrossings = 16

// MaxFilterTaps bounds a resampler's filter table: one phase per step of
// the output rate over the input's, in lowest terms, each 2·half+1 taps
// long, half growing with the input rate over the output's. The table's
// cost follows the rates' common factors, not their size: 768000 → 8000 Hz
// needs 3341 taps, 767998 → 8000 Hz 13.4 million (53 MB and half a second
// to build, under the frontend stage's lock). Every common rate needs far
// fewer: the most found was 193000, for 44056 → 8000 Hz.
const MaxFilterTaps = 1 << 18

// NewResampler returns a resampler from rate from to rate to.
func NewResampler(from, to int) (*Resampler, error) {
	if from < 1000 || to < 1000 || from > 768000 || to > 768000 {
		return nil, fmt.Errorf("resample %d → %d Hz: rates must lie in 1000..768000", from, to)
	}
	g := gcd(from, to)
	up, down := to/g, from/g
	if up > 4096 {
		return nil, fmt.Errorf("resample %d → %d Hz: ratio %d/%d needs too many filter phases", from, to, up, down)
	}
	// Cut-off in cycles per input sample, 8% below the lower Nyquist.
	fc := 0.5 * math.Min(1, float64(to)/float64(from)) * 0.92
	width := zeroCrossings / (2 * fc)
	half := int(math.Ceil(width))
	if n := up * (2*half + 1); n > MaxFilterTaps {
		return nil, fmt.Errorf("resample %d → %d Hz: the ratio %d/%d needs a filter of %d taps, more than the %d allowed; send a common rate (8000, 16000, 44100, 48000 Hz, …)", from, to, up, down, n, MaxFilterTaps)
	}
	r := &Resampler{up: up, down: down, half: half, taps: make([][]float32, up)}
	for p := 0; p < up; p++ {
		frac := float64(p) / float64(up) // output time minus its base input index
		t := make([]float32, 2*half+1)
		var sum float64
		v := make([]float64, len(t))
		for j := range t {
			x := frac - float64(j-half) // distance from input sample base+j-half
			if math.Abs(x) >= width {
				continue
			}
			s := 2 * fc
			if x != 0 {
				s = math.Sin(2*math.Pi*fc*x) / (math.Pi * x)
			}
			w := x / width
			v[j] = s * (0.42 + 0.5*math.Cos(math.Pi*w) + 0.08*math.Cos(2*math.Pi*w))
			sum += v[j]
		}
		for j := range t {
			t[j] = float32(v[j] / sum) // unit DC gain in every phase
		}
		r.taps[p] = t
	}
	return r, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Push adds input samples and appends every output sample now computable.
func (r *Resampler) Push(dst, in []float32) []float32 {
	if r.flushed {
		panic("frontend: Push after Flush on a Resampler")
	}
	r.buf = append(r.buf, in...)
	r.inCount += int64(len(in))
	return r.emit(dst, r.inCount)
}

// Flush treats the input as ended (zeros beyond it) and appends the
// remaining output: ⌈inputs·up/down⌉ samples in all.
func (r *Resampler) Flush(dst []float32) []float32 {
	if r.flushed {
		return dst
	}
	r.flushed = true
	r.buf = append(r.buf, make([]float32, r.half+1)...)
	return r.emit(dst, r.inCount+int64(r.half)+1)
}

// emit produces outputs whose filter support ends before index avail.
func (r *Resampler) emit(dst []float32, avail int64) []float32 {
	total := (r.inCount*int64(r.up) + int64(r.down) - 1) / int64(r.down)
	for {
		if r.flushed && r.next >= total {
			break
		}
		pos := r.next * int64(r.down)
		base, phase := pos/int64(r.up), int(pos%int64(r.up))
		if base+int64(r.half) >= avail {
			break
		}
		taps := r.taps[phase]
		var s float32
		for j, t := range taps {
			k := base + int64(j-r.half) - r.bufStart
			if k >= 0 {
				s += t * r.buf[k]
			}
		}
		dst = append(dst, s)
		r.next++
	}
	// Drop input no future output can reach.
	keepFrom := r.next*int64(r.down)/int64(r.up) - int64(r.half) - 1
	if drop := keepFrom - r.bufStart; drop > 4096 {
		r.buf = append(r.buf[:0], r.buf[drop:]...)
		r.bufStart += drop
	}
	return dst
}

// Resample converts a whole signal to rate to.
func Resample(a *Audio, to int) (*Audio, error) {
	if a.Rate == to {
		return &Audio{Rate: to, Samples: append([]float32(nil), a.Samples...)}, nil
	}
	r, err := NewResampler(a.Rate, to)
	if err != nil {
		return nil, err
	}
	out := r.Push(nil, a.Samples)
	out = r.Flush(out)
	return &Audio{Rate: to, Samples: out}, nil
}
