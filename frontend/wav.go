package frontend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
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
	wavALaw       = 6
	wavULaw       = 7
	wavExtensible = 0xFFFE
)

// wavCodecNames names the compressed WAV codecs met in practice (telephone
// systems and old recorders write ADPCM and GSM), for the message that
// refuses them.
var wavCodecNames = map[int]string{
	0x0002: "Microsoft ADPCM",
	0x0011: "IMA ADPCM",
	0x0022: "TrueSpeech",
	0x0031: "GSM 6.10",
	0x0040: "G.721 ADPCM",
	0x0050: "MPEG audio",
	0x0055: "MP3",
	0x0064: "G.726 ADPCM",
	0x0200: "Creative ADPCM",
}

// maxWAVBytes bounds what we read: an hour of 8-channel 48 kHz float audio.
const maxWAVBytes = 1 << 31

// wavFormat is what the fmt chunk says, after resolving WAVE_FORMAT_EXTENSIBLE.
type wavFormat struct {
	tag      int // wavPCM, wavFloat, wavALaw or wavULaw
	channels int
	rate     int
	bits     int // bits of each sample's container: 8, 16, 24, 32 or 64
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
	// A sample's container is whole bytes; fewer valid bits (12 in 16,
	// 20 in 24) are left-justified in it, so the container's full scale
	// is theirs too.
	f.bits = (f.bits + 7) / 8 * 8
	switch {
	case f.tag == wavPCM && (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32):
	case f.tag == wavFloat && (f.bits == 32 || f.bits == 64):
	case (f.tag == wavULaw || f.tag == wavALaw) && f.bits == 8:
	case f.tag == wavPCM || f.tag == wavFloat || f.tag == wavULaw || f.tag == wavALaw:
		return f, nil, wavErr("%d-bit samples are not supported for format %d", f.bits, f.tag)
	case wavCodecNames[f.tag] != "":
		return f, nil, &unsupported{what: fmt.Sprintf("a WAV file of %s audio (format tag %#04x)", wavCodecNames[f.tag], f.tag), ext: "wav"}
	default:
		return f, nil, wavErr("format tag %#04x is not supported (PCM 1, IEEE float 3, A-law 6 and mu-law 7 are)", f.tag)
	}
	frame := f.channels * f.bits / 8
	if len(data)%frame != 0 {
		return f, nil, wavErr("data chunk of %d bytes is not a whole number of %d-byte frames", len(data), frame)
	}
	return f, data, nil
}

// ReadWAV decodes a WAV file: 8/16/24/32-bit integer PCM, 32/64-bit IEEE
// float and G.711 mu-law and A-law, in any number of channels, averaged
// to mono. 8-bit PCM comes out with its quantisation noise suppressed
// (quantnoise.go): a quiet voice is only a few 8-bit steps loud.
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
func DecodeWAV(b []byte) (*Audio, error) { return decodeWAV(b, bound{}) }

// decodeWAV decodes a WAV file of at most most seconds (0: no bound but
// maxDecodedSamples), checking the length before allocating any sample.
func decodeWAV(b []byte, most bound) (*Audio, error) {
	f, data, err := parseRIFF(b)
	if err != nil {
		return nil, err
	}
	step := f.bits / 8
	frames := len(data) / (f.channels * step)
	if frames > most.frames(f.rate) {
		return nil, most.tooLong(f.rate)
	}
	out := &Audio{Rate: f.rate, Samples: make([]float32, frames)}
	sample := wavSampleReader(f)
	inv := 1 / float64(f.channels)
	for i := range out.Samples {
		var s float64
		for c := range f.channels {
			s += sample(data[(i*f.channels+c)*step:])
		}
		v := s * inv
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, wavErr("sample %d is not finite", i)
		}
		out.Samples[i] = float32(v)
	}
	if f.tag == wavPCM {
		suppressQuantisationNoise(out.Samples, f.rate, f.bits)
	}
	return out, nil
}

// wavSampleReader returns the function that reads one sample of format f
// as a value in [-1, 1]. Integer full scale is 2^(bits-1); 8-bit WAV is
// unsigned around 128, wider ones signed little-endian.
func wavSampleReader(f wavFormat) func(p []byte) float64 {
	switch {
	case f.tag == wavFloat && f.bits == 32:
		return func(p []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(p))) }
	case f.tag == wavFloat:
		return func(p []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(p)) }
	case f.tag == wavULaw:
		return func(p []byte) float64 { return float64(ULawSample(p[0])) / 32768 }
	case f.tag == wavALaw:
		return func(p []byte) float64 { return float64(ALawSample(p[0])) / 32768 }
	case f.bits == 8:
		return func(p []byte) float64 { return float64(int(p[0])-128) / 128 }
	case f.bits == 16:
		return func(p []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(p))) / (1 << 15) }
	case f.bits == 24:
		return func(p []byte) float64 {
			v := int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24) >> 8 // sign-extended
			return float64(v) / (1 << 23)
		}
	default:
		return func(p []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(p))) / (1 << 31) }
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
