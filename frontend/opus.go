package frontend

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/pion/opus"
)

// Ogg Opus is decoded by github.com/pion/opus, pure Go, with SILK, CELT
// and hybrid frames (what opusenc and ffmpeg write for speech). Ogg
// pages are read by ogg.go. Opus always decodes at 48 kHz here; the
// caller resamples to its model's rate as for any other file. Files of
// more than two channels (Opus multistream) are not read.

// ErrOpus is wrapped by every error about Opus audio that cannot be
// decoded.
var ErrOpus = errors.New("malformed Ogg Opus")

func opusErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrOpus, fmt.Sprintf(format, args...))
}

// opusRate is the rate Opus is decoded at, and its granule positions'.
const opusRate = 48000

// opusMaxFrame is the most samples one packet decodes to, per channel:
// 120 ms at 48 kHz.
const opusMaxFrame = 5760

func decodeOpus(b []byte, most bound) (a *Audio, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, opusErr("decoder failed: %v", r)
		}
	}()
	packets, err := oggPackets(b)
	if err != nil {
		return nil, err
	}
	if len(packets) < 2 {
		return nil, opusErr("%d header packets, need 2", len(packets))
	}
	head := packets[0].data
	if len(head) < 19 || string(head[:8]) != "OpusHead" {
		return nil, opusErr("no OpusHead header")
	}
	if head[8]>>4 != 0 {
		return nil, opusErr("header version %d", head[8])
	}
	ch := int(head[9])
	preSkip := int(binary.LittleEndian.Uint16(head[10:]))
	gainQ8 := int16(binary.LittleEndian.Uint16(head[16:]))
	if ch < 1 {
		return nil, opusErr("%d channels", ch)
	}
	if family := head[18]; ch > 2 || family > 1 {
		return nil, &unsupported{what: fmt.Sprintf("an Ogg Opus file of %d channels (channel mapping family %d)", ch, family), ext: "opus", why: "which the Opus decoder here does not read (it reads mono and stereo)"}
	}
	d, err := opus.NewDecoderWithOutput(opusRate, ch)
	if err != nil {
		return nil, opusErr("%v", err)
	}
	// The output gain is a Q7.8 number of decibels the player applies.
	gain := float32(math.Pow(10, float64(gainQ8)/(20*256)))
	sink := newMonoSink(ch, opusRate, most)
	buf := make([]float32, opusMaxFrame*ch)
	skip := preSkip // decoder warm-up the encoder asks to drop
	end := int64(-1)
	for i, p := range packets[2:] {
		n, err := d.DecodeToFloat32(p.data, buf)
		if err != nil {
			return nil, opusErr("audio packet %d: %v", i, err)
		}
		out := buf[:n*ch]
		drop := min(skip, n)
		skip -= drop
		out = out[drop*ch:]
		if gain != 1 {
			for j := range out {
				out[j] *= gain
			}
		}
		if err := sink.addFloat(out); err != nil {
			return nil, err
		}
		if p.granule >= 0 {
			end = p.granule - int64(preSkip)
		}
	}
	// The last granule position says where the audio ends; the last
	// packet may be padded past it.
	if end >= 0 && end < int64(len(sink.out)) {
		sink.out = sink.out[:end]
	}
	return sink.audio(), nil
}
