package frontend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// NIST SPHERE files (TIMIT's and TIDIGITS' .wav files) begin with a text
// header: the magic line "NIST_1A", a line giving the header's size in
// bytes (1024 in practice, any size that fits is read), then one
// "name -type value" line per field up to "end_head". Types are -i
// (integer), -r (real) and -sN (a string of N bytes).

// ErrSphere is wrapped by every error about a SPHERE file the decoder
// cannot read.
var ErrSphere = errors.New("sphere")

func sphereErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSphere, fmt.Sprintf(format, args...))
}

// maxSphereHeader bounds the header's declared size; real files use 1024
// bytes, and the header is parsed before any sample is allocated.
const maxSphereHeader = 1 << 20

// sphereMagic opens every SPHERE file.
const sphereMagic = "NIST_1A\n"

// IsSphere says whether b begins as a NIST SPHERE file does.
func IsSphere(b []byte) bool { return bytes.HasPrefix(b, []byte("NIST_1A")) }

// shortenMagic opens a shorten-compressed stream; some SPHERE files hold
// one without saying so in sample_coding.
const shortenMagic = "ajkg"

// expandHint names the tools that turn a compressed SPHERE file into one
// this decoder reads.
const expandHint = "expand it first with sph2pipe (sph2pipe -f wav IN OUT.wav), NIST's w_decode or the shorten tool"

// sphereHeader is a parsed header: its size and its fields by name.
type sphereHeader struct {
	size   int
	fields map[string]string
}

// parseSphereHeader reads the header of b. Unknown fields are kept and
// ignored; a line that is not "name -type value" is refused.
func parseSphereHeader(b []byte) (sphereHeader, error) {
	var h sphereHeader
	if !bytes.HasPrefix(b, []byte(sphereMagic)) {
		return h, sphereErr("not a NIST_1A file")
	}
	rest := b[len(sphereMagic):]
	nl := bytes.IndexByte(rest[:min(len(rest), 32)], '\n')
	if nl < 0 {
		return h, sphereErr("header size line missing")
	}
	sizeText := strings.TrimSpace(string(rest[:nl]))
	size, err := strconv.Atoi(sizeText)
	first := len(sphereMagic) + nl + 1
	if err != nil || size < first || size > len(b) || size > maxSphereHeader {
		return h, sphereErr("header size %q invalid for a %d-byte file", sizeText, len(b))
	}
	h.size = size
	h.fields = map[string]string{}
	ended := false
	for i, line := range strings.Split(string(b[first:size]), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "end_head" {
			ended = true
			break
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, ";") {
			continue
		}
		name, _, value, err := sphereField(line)
		if err != nil {
			return h, sphereErr("header line %d: %v", i+3, err)
		}
		h.fields[name] = value
	}
	if !ended {
		return h, sphereErr("no end_head within the %d-byte header", size)
	}
	return h, nil
}

// sphereField splits one header line into its name, type and value. A
// -sN string is N bytes long and may hold spaces.
func sphereField(line string) (name, typ, value string, err error) {
	name, rest, ok := strings.Cut(strings.TrimLeft(line, " \t"), " ")
	if !ok || name == "" {
		return "", "", "", fmt.Errorf("%q is not \"name -type value\"", clip(line))
	}
	typ, value, ok = strings.Cut(strings.TrimLeft(rest, " "), " ")
	if !ok || len(typ) < 2 || typ[0] != '-' {
		return "", "", "", fmt.Errorf("field %q has no -i, -r or -sN type", clip(name))
	}
	switch {
	case typ == "-i" || typ == "-r":
		return name, typ, strings.TrimSpace(value), nil
	case typ[1] == 's':
		n, err := strconv.Atoi(typ[2:])
		if err != nil || n < 0 {
			return "", "", "", fmt.Errorf("field %q has string type %q", clip(name), clip(typ))
		}
		if n <= len(value) {
			value = value[:n]
		}
		return name, typ, strings.TrimSpace(value), nil
	}
	return "", "", "", fmt.Errorf("field %q has unknown type %q", clip(name), clip(typ))
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// int reads an integer field, def when it is absent.
func (h sphereHeader) int(name string, def int) (int, error) {
	v, ok := h.fields[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err == nil {
		return n, nil
	}
	// Some writers give whole numbers as reals (sample_rate -r 16000.0).
	f, ferr := strconv.ParseFloat(v, 64)
	if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, sphereErr("%s %q is not a whole number", name, clip(v))
	}
	return int(f), nil
}

// sphereCoding is how the samples are stored.
type sphereCoding int

const (
	codingPCM sphereCoding = iota
	codingULaw
	codingALaw
)

// sphereFormat is what the header says about the samples.
type sphereFormat struct {
	rate, width, channels, count int
	coding                       sphereCoding
	order                        binary.ByteOrder
}

// format reads and checks the fields that say how the samples lie after
// the header (data are the bytes after it).
func (h sphereHeader) format(data []byte) (sphereFormat, error) {
	var f sphereFormat
	coding := strings.ToLower(h.fields["sample_coding"])
	parts := strings.Split(coding, ",")
	for _, p := range parts[1:] {
		if strings.Contains(p, "shorten") || strings.Contains(p, "wavpack") || strings.Contains(p, "shortpack") {
			return f, sphereErr("the samples are compressed (sample_coding %q): %s", clip(coding), expandHint)
		}
	}
	if bytes.HasPrefix(data, []byte(shortenMagic)) {
		return f, sphereErr("the samples are a shorten stream: %s", expandHint)
	}
	defWidth := 2
	switch parts[0] {
	case "", "pcm", "linear":
		f.coding = codingPCM
	case "ulaw", "mu-law", "mulaw", "u-law":
		f.coding, defWidth = codingULaw, 1
	case "alaw", "a-law":
		f.coding, defWidth = codingALaw, 1
	default:
		return f, sphereErr("sample coding %q is not read (pcm, ulaw, alaw; convert the file, e.g. sox IN -e signed -b 16 OUT.wav)", clip(coding))
	}
	var err error
	if f.rate, err = h.int("sample_rate", 0); err != nil {
		return f, err
	}
	if f.width, err = h.int("sample_n_bytes", defWidth); err != nil {
		return f, err
	}
	if f.channels, err = h.int("channel_count", 1); err != nil {
		return f, err
	}
	switch {
	case f.rate < 1000 || f.rate > 768000:
		return f, sphereErr("sample rate %d Hz (the header must give sample_rate, 1000..768000)", f.rate)
	case f.channels < 1 || f.channels > 64:
		return f, sphereErr("%d channels (1..64)", f.channels)
	case f.coding == codingPCM && f.width != 1 && f.width != 2:
		return f, sphereErr("%d-byte PCM samples (1 or 2 bytes are read)", f.width)
	case f.coding != codingPCM && f.width != 1:
		return f, sphereErr("%d-byte %s samples (companded samples are 1 byte)", f.width, parts[0])
	}
	f.order = binary.LittleEndian
	switch bf := h.fields["sample_byte_format"]; {
	case bf == "" || bf == "01" || bf == "1" && f.width == 1:
	case bf == "10":
		f.order = binary.BigEndian
	case bf == "1" || bf == "0":
		// "1" is a one-byte format; with 2-byte samples it says nothing
		// about their order.
		return f, sphereErr("sample byte format %q for %d-byte samples (01, 10)", bf, f.width)
	default:
		return f, sphereErr("sample byte format %q (01, 10, or 1 for one-byte samples)", clip(bf))
	}
	frame := f.width * f.channels
	f.count, err = h.int("sample_count", len(data)/frame)
	if err != nil {
		return f, err
	}
	// Compare against the frames present, not count*frame, which a huge
	// count would wrap negative.
	if f.count < 0 || f.count > len(data)/frame {
		return f, sphereErr("%d samples announced, %d bytes present", f.count, len(data))
	}
	return f, nil
}

// DecodeSphere decodes a NIST SPHERE file: linear PCM of 1 or 2 bytes in
// either byte order, μ-law or A-law, in any number of channels (averaged
// to mono). Shorten- or wavpack-compressed files are refused with an error
// naming the tools that expand them.
func DecodeSphere(b []byte) (*Audio, error) {
	h, err := parseSphereHeader(b)
	if err != nil {
		return nil, err
	}
	data := b[h.size:]
	f, err := h.format(data)
	if err != nil {
		return nil, err
	}
	a := &Audio{Rate: f.rate, Samples: make([]float32, f.count)}
	inv := 1 / float32(f.channels)
	for i := range a.Samples {
		var s float32
		for c := 0; c < f.channels; c++ {
			s += f.sample(data[(i*f.channels+c)*f.width:])
		}
		a.Samples[i] = s * inv
	}
	if f.coding == codingPCM {
		suppressQuantisationNoise(a.Samples, f.rate, 8*f.width)
	}
	return a, nil
}

// sample decodes one sample at the start of p into [-1, 1).
func (f sphereFormat) sample(p []byte) float32 {
	switch {
	case f.coding == codingULaw:
		return float32(ULawSample(p[0])) / 32768
	case f.coding == codingALaw:
		return float32(ALawSample(p[0])) / 32768
	case f.width == 1:
		return float32(int8(p[0])) / 128
	}
	return float32(int16(f.order.Uint16(p))) / 32768
}

// ULawSample expands a G.711 μ-law byte to a 16-bit linear sample.
func ULawSample(u byte) int16 {
	u = ^u
	exp := (u >> 4) & 7
	mag := ((int(u&0x0f) << 3) + 0x84) << exp
	if u&0x80 != 0 {
		return int16(0x84 - mag)
	}
	return int16(mag - 0x84)
}

// ALawSample expands a G.711 A-law byte to a 16-bit linear sample.
func ALawSample(a byte) int16 {
	a ^= 0x55
	t := int(a&0x0f) << 4
	switch seg := (a >> 4) & 7; seg {
	case 0:
		t += 8
	case 1:
		t += 0x108
	default:
		t = (t + 0x108) << (seg - 1)
	}
	if a&0x80 != 0 {
		return int16(t)
	}
	return int16(-t)
}

// EncodeSphere16 writes a mono NIST SPHERE file of 16-bit linear PCM with
// a 1024-byte header, big-endian ("10") or little-endian ("01"), clipping
// to [-1, 1].
func EncodeSphere16(w io.Writer, a *Audio, bigEndian bool) error {
	var order binary.AppendByteOrder = binary.LittleEndian
	format := "01"
	if bigEndian {
		order, format = binary.BigEndian, "10"
	}
	h := fmt.Sprintf("%s   1024\nsample_count -i %d\nsample_rate -i %d\nchannel_count -i 1\nsample_n_bytes -i 2\nsample_sig_bits -i 16\n"+
		"sample_byte_format -s2 %s\nsample_coding -s3 pcm\nend_head\n", sphereMagic, len(a.Samples), a.Rate, format)
	b := make([]byte, 1024, 1024+2*len(a.Samples))
	copy(b, h)
	for i := len(h); i < len(b); i++ {
		b[i] = ' '
	}
	for _, v := range a.Samples {
		x := math.Round(float64(v) * 32768)
		b = order.AppendUint16(b, uint16(int16(max(-32768, min(x, 32767)))))
	}
	_, err := w.Write(b)
	return err
}
