package frontend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/go-audio/wav"
)

// Audio is a mono signal with samples in [-1, 1].
type Audio struct {
	Rate    int
	Samples []float32
}

// Duration is the signal's length in seconds.
func (a *Audio) Duration() float64 { return float64(len(a.Samples)) / float64(a.Rate) }

// WAV format tags (the fmt chunk's first field).
const (
	wavPCM        = 1
	wavFloat      = 3
	wavExtensible = 0xFFFE
)

// maxWAVBytes bounds what we read: an hour of 8-channel 48 kHz float audio.
const maxWAVBytes = 1 << 31

// wavFormat is what the fmt chunk says, after resolving WAVE_FORMAT_EXTENSIBLE.
type wavFormat struct {
	tag      int // wavPCM or wavFloat
	channels int
	rate     int
	bits     int
}

// ErrWAV is wrapped by every error about a malformed WAV file.
var ErrWAV = errors.New("malformed WAV")

func wavErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrWAV, fmt.Sprintf(format, args...))
}

// parseRIFF walks the RIFF chunks and returns the format and the data
// chunk's bytes. Every size is checked against what the file holds.
func parseRIFF(b []byte) (wavFormat, []byte, error) {
	var f wavFormat
	if len(b) < 12 {
		return f, nil, wavErr("%d bytes is too short for a RIFF/WAVE header", len(b))
	}
	if string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return f, nil, wavErr("not a RIFF/WAVE file (starts with %q)", b[:min(12, len(b))])
	}
	var data []byte
	haveFmt, haveData := false, false
	for off := 12; off+8 <= len(b); {
		id := string(b[off : off+4])
		size := int64(binary.LittleEndian.Uint32(b[off+4:]))
		body := int64(off + 8)
		if body+size > int64(len(b)) {
			if id == "data" {
				return f, nil, wavErr("truncated: data chunk declares %d bytes, file holds %d", size, int64(len(b))-body)
			}
			return f, nil, wavErr("chunk %q declares %d bytes, file holds %d", id, size, int64(len(b))-body)
		}
		chunk := b[body : body+size]
		switch id {
		case "fmt ":
			if len(chunk) < 16 {
				return f, nil, wavErr("fmt chunk of %d bytes, need 16", len(chunk))
			}
			f.tag = int(binary.LittleEndian.Uint16(chunk[0:]))
			f.channels = int(binary.LittleEndian.Uint16(chunk[2:]))
			f.rate = int(binary.LittleEndian.Uint32(chunk[4:]))
			f.bits = int(binary.LittleEndian.Uint16(chunk[14:]))
			if f.tag == wavExtensible {
				if len(chunk) < 40 {
					return f, nil, wavErr("extensible fmt chunk of %d bytes, need 40", len(chunk))
				}
				// The sub-format GUID starts with the plain format tag.
				f.tag = int(binary.LittleEndian.Uint16(chunk[24:]))
			}
			haveFmt = true
		case "data":
			data, haveData = chunk, true
		}
		off = int(body + size + size&1) // chunks are padded to even length
	}
	switch {
	case !haveFmt:
		return f, nil, wavErr("no fmt chunk")
	case !haveData:
		return f, nil, wavErr("no data chunk")
	case f.channels < 1 || f.channels > 64:
		return f, nil, wavErr("%d channels", f.channels)
	case f.rate < 1000 || f.rate > 768000:
		return f, nil, wavErr("sample rate %d Hz out of range 1000..768000", f.rate)
	}
	switch {
	case f.tag == wavPCM && (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32):
	case f.tag == wavFloat && (f.bits == 32 || f.bits == 64):
	case f.tag == wavPCM || f.tag == wavFloat:
		return f, nil, wavErr("%d-bit samples are not supported for format %d", f.bits, f.tag)
	default:
		return f, nil, wavErr("format tag %d is not supported (only PCM 1 and IEEE float 3)", f.tag)
	}
	frame := f.channels * f.bits / 8
	if len(data)%frame != 0 {
		return f, nil, wavErr("data chunk of %d bytes is not a whole number of %d-byte frames", len(data), frame)
	}
	return f, data, nil
}

// ReadWAV decodes a WAV file: 8/16/24/32-bit integer PCM (through
// go-audio/wav) and 32/64-bit IEEE float (decoded here: go-audio/wav reads
// format 3 as integers). Channels are averaged to mono.
func ReadWAV(r io.Reader) (*Audio, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxWAVBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxWAVBytes {
		return nil, wavErr("larger than %d bytes", maxWAVBytes)
	}
	return DecodeWAV(b)
}

// DecodeWAV decodes a WAV file held in memory.
func DecodeWAV(b []byte) (*Audio, error) {
	f, data, err := parseRIFF(b)
	if err != nil {
		return nil, err
	}
	frames := len(data) / (f.channels * f.bits / 8)
	out := &Audio{Rate: f.rate, Samples: make([]float32, frames)}
	if f.tag == wavFloat {
		decodeFloat(out.Samples, data, f)
		for i, v := range out.Samples {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, wavErr("sample %d is not finite", i)
			}
		}
		return out, nil
	}
	ints, err := decodeIntPCM(b, f, frames)
	if err != nil {
		return nil, err
	}
	// Integer full scale is 2^(bits-1); 8-bit WAV is unsigned around 128.
	scale := 1 / (float64(f.channels) * math.Ldexp(1, f.bits-1))
	offset := 0
	if f.bits == 8 {
		offset = 128
	}
	for i := range out.Samples {
		var s int
		for c := 0; c < f.channels; c++ {
			s += ints[i*f.channels+c] - offset
		}
		out.Samples[i] = float32(float64(s) * scale)
	}
	return out, nil
}

// decodeIntPCM hands the (already validated) file to go-audio/wav and
// checks that it returns exactly the samples the data chunk holds.
func decodeIntPCM(b []byte, f wavFormat, frames int) (ints []int, err error) {
	defer func() {
		// go-audio/wav trusts its input; validation above should make a
		// panic impossible, but a decoder fault must not take down a server.
		if r := recover(); r != nil {
			ints, err = nil, wavErr("decoder failed: %v", r)
		}
	}()
	d := wav.NewDecoder(bytes.NewReader(b))
	buf, err := d.FullPCMBuffer()
	if err != nil {
		return nil, wavErr("%v", err)
	}
	if len(buf.Data) != frames*f.channels {
		return nil, wavErr("decoded %d samples, data chunk holds %d", len(buf.Data), frames*f.channels)
	}
	return buf.Data, nil
}

func decodeFloat(dst []float32, data []byte, f wavFormat) {
	step := f.bits / 8
	inv := 1 / float64(f.channels)
	for i := range dst {
		var s float64
		for c := 0; c < f.channels; c++ {
			p := data[(i*f.channels+c)*step:]
			if f.bits == 32 {
				s += float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
			} else {
				s += math.Float64frombits(binary.LittleEndian.Uint64(p))
			}
		}
		dst[i] = float32(s * inv)
	}
}

// EncodeWAV16 writes a mono 16-bit PCM WAV file, clipping to [-1, 1].
func EncodeWAV16(w io.Writer, a *Audio) error {
	return encodeWAV(w, a, wavPCM, 16)
}

// EncodeWAVFloat32 writes a mono 32-bit IEEE float WAV file.
func EncodeWAVFloat32(w io.Writer, a *Audio) error {
	return encodeWAV(w, a, wavFloat, 32)
}

func encodeWAV(w io.Writer, a *Audio, tag, bits int) error {
	n := len(a.Samples) * bits / 8
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+n))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, binary.LittleEndian, uint32(16))
	binary.Write(&b, binary.LittleEndian, uint16(tag))
	binary.Write(&b, binary.LittleEndian, uint16(1))
	binary.Write(&b, binary.LittleEndian, uint32(a.Rate))
	binary.Write(&b, binary.LittleEndian, uint32(a.Rate*bits/8))
	binary.Write(&b, binary.LittleEndian, uint16(bits/8))
	binary.Write(&b, binary.LittleEndian, uint16(bits))
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(n))
	for _, v := range a.Samples {
		if tag == wavFloat {
			binary.Write(&b, binary.LittleEndian, v)
			continue
		}
		x := math.Round(float64(v) * 32768)
		x = math.Max(-32768, math.Min(32767, x))
		binary.Write(&b, binary.LittleEndian, int16(x))
	}
	_, err := w.Write(b.Bytes())
	return err
}
