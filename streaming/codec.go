package streaming

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/nats-io/nats.go"
)

// Encodings of PCM payloads.
const (
	EncS16 = "s16le" // signed 16-bit little-endian
	EncF32 = "f32le" // IEEE float32 little-endian
)

// MaxChunkBytes bounds one PCM message: a second of 48 kHz float audio is
// 192 kB, so real clients stay far below it.
const MaxChunkBytes = 256 << 10

// EncodePCM encodes samples in [-1, 1].
func EncodePCM(samples []float32, enc string) ([]byte, error) {
	switch enc {
	case EncS16:
		b := make([]byte, 2*len(samples))
		for i, v := range samples {
			x := math.Round(float64(v) * 32768)
			x = math.Max(-32768, math.Min(32767, x))
			binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(x)))
		}
		return b, nil
	case EncF32:
		return EncodeF32(samples), nil
	}
	return nil, fmt.Errorf("streaming: unknown PCM encoding %q (%s, %s)", enc, EncS16, EncF32)
}

// DecodePCM decodes a PCM payload; float samples must be finite.
func DecodePCM(b []byte, enc string) ([]float32, error) {
	switch enc {
	case EncS16:
		if len(b)%2 != 0 {
			return nil, fmt.Errorf("streaming: %d-byte s16le payload", len(b))
		}
		out := make([]float32, len(b)/2)
		for i := range out {
			out[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
		}
		return out, nil
	case EncF32:
		out, err := DecodeF32(b)
		if err != nil {
			return nil, err
		}
		for i, v := range out {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("streaming: sample %d is %v", i, v)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("streaming: unknown PCM encoding %q (%s, %s)", enc, EncS16, EncF32)
}

// EncodeF32 encodes float32 values little-endian.
func EncodeF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeF32 decodes little-endian float32 values.
func DecodeF32(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("streaming: %d-byte float32 payload", len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// MaxSeq bounds HdrSeq: a stream of 20 ms messages reaches it after more
// than a year, and lost messages counted up to it cannot overflow the
// counters (one such value once wrapped the loss counter negative).
const MaxSeq = 1<<31 - 1

// maxLostPerGap bounds what one gap adds to the lost counter: a stream
// that jumps from message 5 to message 2,000,000,000 has not lost two
// billion messages (three such streams once showed 3,147,483,651 lost),
// it numbered them wrongly or is hostile, and the counter should keep
// meaning something. 65,536 messages are over 20 minutes of 20 ms chunks.
const maxLostPerGap = 1 << 16

// countedLost is what the gap of messages from..to adds to the lost
// counter.
func countedLost(from, to int) int64 { return int64(min(to-from+1, maxLostPerGap)) }

// headerSeq reads a message's HdrSeq, which must be 0 … MaxSeq.
func headerSeq(m *nats.Msg) (int, error) {
	if m.Header == nil || m.Header.Get(HdrSeq) == "" {
		return -1, fmt.Errorf("message without a valid %s header refused", HdrSeq)
	}
	v, err := strconv.Atoi(m.Header.Get(HdrSeq))
	if err != nil || v < 0 || v > MaxSeq {
		return -1, fmt.Errorf("message without a valid %s header refused: %s is not an integer from 0 to %d", HdrSeq, clipQuote(m.Header.Get(HdrSeq)), MaxSeq)
	}
	return v, nil
}

// headerInt reads an integer header; missing gives def.
func headerInt(m *nats.Msg, key string, def int) (int, error) {
	if m.Header == nil || m.Header.Get(key) == "" {
		return def, nil
	}
	v, err := strconv.Atoi(m.Header.Get(key))
	if err != nil {
		return 0, fmt.Errorf("streaming: header %s=%s is not an integer", key, clipQuote(m.Header.Get(key)))
	}
	return v, nil
}

func headerFloat(m *nats.Msg, key string) float64 {
	if m.Header == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m.Header.Get(key), 64)
	return v
}

func headerBool(m *nats.Msg, key string) bool {
	return m.Header != nil && m.Header.Get(key) == "1"
}

func boolHeader(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
