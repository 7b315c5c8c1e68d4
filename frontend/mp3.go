package frontend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// MP3 is decoded by github.com/hajimehoshi/go-mp3, the one pure-Go MP3
// decoder the module proxy serves here. It reads MPEG-1 (32-48 kHz) and
// MPEG-2 (16-24 kHz) layer III, not MPEG-2.5 (8-12 kHz), which is what
// LAME writes for 8 kHz telephone audio: such a file is refused with the
// command that converts it. go-mp3 decodes the Xing/LAME header frame as
// silence and keeps the encoder's delay; both are cut here using the
// LAME header, as ffmpeg does, so that times match the original's.

// ErrMP3 is wrapped by every error about MP3 audio that cannot be decoded.
var ErrMP3 = errors.New("malformed MP3")

func mp3Err(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMP3, fmt.Sprintf(format, args...))
}

// mp3DecoderDelay is the delay of the standard layer III synthesis, in
// samples, which the LAME header's encoder delay does not include.
const mp3DecoderDelay = 529

// gapless is what a Xing/LAME header frame says about the stream.
type gapless struct {
	skip   int // samples to drop at the start: the header frame and the delays
	frames int // audio frames in the stream, 0 if not given
	length int // samples in the stream once delay and padding are cut; 0 if unknown
}

func decodeMP3(b []byte, most bound) (a *Audio, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, mp3Err("decoder failed: %v", r)
		}
	}()
	first := b
	for range 4 {
		n, ok := id3Length(first)
		if !ok || n >= len(first) {
			break
		}
		first = first[n:]
	}
	h, ok := parseMPEGHeader(first)
	if !ok || h.layer != 3 {
		return nil, mp3Err("no MPEG layer III frame header")
	}
	if h.version == 25 {
		return nil, &unsupported{what: fmt.Sprintf("an MPEG-2.5 MP3 (%d Hz)", h.rate), ext: "mp3", why: "which the pure-Go MP3 decoder here does not read (it reads MPEG-1 and MPEG-2 MP3, 16-48 kHz)"}
	}
	g := readGapless(first, h)
	// Hiding bytes.Reader's Seek keeps go-mp3 from indexing every frame
	// of the file before decoding the first.
	d, err := mp3.NewDecoder(struct{ io.Reader }{bytes.NewReader(b)})
	if err != nil {
		return nil, mp3Err("%v", err)
	}
	rate := d.SampleRate()
	if rate < 8000 || rate > 48000 {
		return nil, mp3Err("sample rate %d Hz", rate)
	}
	sink := newMonoSink(2, rate, most) // go-mp3 always gives 16-bit stereo
	raw := make([]byte, 4*4096)
	f := make([]float32, 2*4096)
	skip := g.skip
	for {
		n, err := io.ReadFull(d, raw)
		n &^= 3
		for i := range n / 2 {
			f[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / 32768
		}
		out := f[:n/2]
		drop := min(skip, len(out)/2)
		skip -= drop
		if addErr := sink.addFloat(out[2*drop:]); addErr != nil {
			return nil, addErr
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, mp3Err("at sample %d: %v", len(sink.out), err)
		}
	}
	if g.length > 0 {
		if len(sink.out)+2*h.samples < g.length {
			return nil, mp3Err("truncated: the LAME header counts %d samples, the file holds %d", g.length, len(sink.out))
		}
		if len(sink.out) > g.length {
			sink.out = sink.out[:g.length]
		}
	}
	return sink.audio(), nil
}

// readGapless reads the Xing ("Xing" or "Info") and LAME headers that
// LAME writes in a first frame of silence. Without them nothing is cut.
func readGapless(frame []byte, h mpegHeader) gapless {
	var g gapless
	mono := frame[3]>>6 == 3
	side := map[[2]bool]int{{true, true}: 17, {true, false}: 32, {false, true}: 9, {false, false}: 17}[[2]bool{h.version == 1, mono}]
	off := 4 + side
	if frame[1]&1 == 0 {
		off += 2 // a CRC follows the header
	}
	if len(frame) < off+8 || (string(frame[off:off+4]) != "Xing" && string(frame[off:off+4]) != "Info") {
		return g
	}
	flags := binary.BigEndian.Uint32(frame[off+4:])
	p := off + 8
	if flags&1 != 0 && len(frame) >= p+4 {
		g.frames = int(binary.BigEndian.Uint32(frame[p:]))
		p += 4
	}
	for bit, size := range map[uint32]int{2: 4, 4: 100, 8: 4} {
		if flags&bit != 0 {
			p += size // byte count, seek table, quality: not needed here
		}
	}
	g.skip = h.samples // the header frame itself decodes to silence
	if len(frame) < p+24 || string(frame[p:p+4]) != "LAME" && string(frame[p:p+4]) != "Lavc" && string(frame[p:p+4]) != "Lavf" {
		return g
	}
	dp := frame[p+21:]
	delay := int(dp[0])<<4 | int(dp[1])>>4
	padding := int(dp[1]&15)<<8 | int(dp[2])
	g.skip += delay + mp3DecoderDelay
	if g.frames > 0 {
		g.length = max(0, g.frames*h.samples-delay-padding)
	}
	return g
}
