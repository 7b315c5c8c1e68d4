package frontend

import (
	"errors"
	"fmt"
	"math"
)

// A compressed file's size says little about its length: a few kilobytes
// of FLAC or Vorbis can hold hours of silence, and a header can claim any
// length at all. So no decoder allocates from what a header claims; each
// hands its samples, a block at a time, to a monoSink, which mixes them
// down and refuses to grow past a bound.

// ErrTooLong is wrapped by the error for a recording longer than the
// bound its reader was given (or than maxDecodedSamples).
var ErrTooLong = errors.New("recording too long")

// maxDecodedSamples bounds any decoder's output when the caller gives no
// length: 2^28 mono samples (1 GiB as float32), 9 hours at 8 kHz, 93
// minutes at 48 kHz.
const maxDecodedSamples = 1 << 28

// bound is the longest recording a reader accepts: seconds (0: no bound
// of its own) and samples (0: maxDecodedSamples), whichever comes first.
type bound struct {
	seconds float64
	samples int
}

// most is the bound's sample count, maxDecodedSamples at most.
func (b bound) most() int {
	if b.samples <= 0 || b.samples > maxDecodedSamples {
		return maxDecodedSamples
	}
	return b.samples
}

// frames is the bound in frames at rate.
func (b bound) frames(rate int) int {
	if b.seconds <= 0 || b.seconds*float64(rate) >= float64(b.most()) {
		return b.most()
	}
	return int(math.Ceil(b.seconds * float64(rate)))
}

func (b bound) tooLong(rate int) error {
	if b.seconds > 0 && b.seconds*float64(rate) < float64(b.most()) {
		return fmt.Errorf("%w: longer than %g s", ErrTooLong, b.seconds)
	}
	return fmt.Errorf("%w: more than %d samples (%.0f s at %d Hz)", ErrTooLong, b.most(), float64(b.most())/float64(rate), rate)
}

// monoSink collects interleaved samples as their channels' average.
type monoSink struct {
	channels int
	rate     int
	limit    int // most frames taken
	most     bound
	out      []float32
}

func newMonoSink(channels, rate int, most bound) *monoSink {
	return &monoSink{channels: channels, rate: rate, limit: most.frames(rate), most: most}
}

// room says whether n more frames fit under the bound.
func (s *monoSink) room(n int) error {
	if n > s.limit-len(s.out) {
		return s.most.tooLong(s.rate)
	}
	return nil
}

// addFloat takes interleaved samples in [-1, 1]. A sample that is not a
// finite number (a damaged stream can decode to one) is an error: the
// features of a NaN are NaN.
func (s *monoSink) addFloat(x []float32) error {
	n := len(x) / s.channels
	if err := s.room(n); err != nil {
		return err
	}
	inv := 1 / float32(s.channels)
	for i := range n {
		var v float32
		for _, c := range x[i*s.channels : (i+1)*s.channels] {
			v += c
		}
		v *= inv
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("sample %d is not a finite number", len(s.out))
		}
		s.out = append(s.out, v)
	}
	return nil
}

// addPlanar takes n frames of integer samples, one slice a channel, full
// scale at ±2^(bits-1).
func (s *monoSink) addPlanar(ch [][]int32, n, bits int) error {
	if err := s.room(n); err != nil {
		return err
	}
	scale := 1 / (float64(len(ch)) * math.Ldexp(1, bits-1))
	for i := range n {
		var v int64
		for _, c := range ch {
			v += int64(c[i])
		}
		s.out = append(s.out, float32(float64(v)*scale))
	}
	return nil
}

// audio is what was collected.
func (s *monoSink) audio() *Audio { return &Audio{Rate: s.rate, Samples: s.out} }
