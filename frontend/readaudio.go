package frontend

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadAudio reads a WAV (RIFF) or NIST SPHERE file, telling them apart
// by their first bytes, and resamples it to rate (0 keeps the file's own).
// Raw PCM has no header to tell it by: its reader is DecodePCM16, given
// the rate.
func ReadAudio(path string, rate int) (*Audio, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a *Audio
	if bytes.HasPrefix(b, []byte("NIST_1A")) {
		a, err = DecodeSphere(b)
	} else {
		a, err = DecodeWAV(b)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rate != 0 && a.Rate != rate {
		if a, err = Resample(a, rate); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return a, nil
}

// DecodeSphere decodes a NIST SPHERE file (TIMIT's .WAV) holding
// uncompressed 16-bit linear PCM, mono; compressed (shorten) files are
// refused with an error saying to convert them (sox or sph2pipe).
func DecodeSphere(b []byte) (*Audio, error) {
	if !bytes.HasPrefix(b, []byte("NIST_1A\n")) {
		return nil, fmt.Errorf("sphere: not a NIST_1A file")
	}
	rest := b[8:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, fmt.Errorf("sphere: header size line missing")
	}
	hsize, err := strconv.Atoi(strings.TrimSpace(string(rest[:nl])))
	if err != nil || hsize < 8+nl+1 || hsize > len(b) {
		return nil, fmt.Errorf("sphere: header size %q invalid for a %d-byte file", strings.TrimSpace(string(rest[:nl])), len(b))
	}
	fields := map[string]string{}
	for _, l := range strings.Split(string(rest[nl+1:hsize-8]), "\n") {
		f := strings.Fields(l)
		if len(f) >= 1 && f[0] == "end_head" {
			break
		}
		if len(f) >= 3 {
			fields[f[0]] = strings.Join(f[2:], " ")
		}
	}
	num := func(k string, def int) (int, error) {
		v, ok := fields[k]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("sphere: %s %q is not a number", k, v)
		}
		return n, nil
	}
	rate, err := num("sample_rate", 0)
	if err != nil {
		return nil, err
	}
	width, err := num("sample_n_bytes", 2)
	if err != nil {
		return nil, err
	}
	channels, err := num("channel_count", 1)
	if err != nil {
		return nil, err
	}
	if rate < 1000 || rate > 768000 {
		return nil, fmt.Errorf("sphere: sample rate %d Hz", rate)
	}
	if width != 2 || channels != 1 {
		return nil, fmt.Errorf("sphere: %d-byte samples in %d channels; only 16-bit mono is read", width, channels)
	}
	if c := fields["sample_coding"]; c != "" && c != "pcm" {
		return nil, fmt.Errorf("sphere: sample coding %q is not plain PCM (convert the file: sox in.wav -e signed -b 16 out.wav)", c)
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch fields["sample_byte_format"] {
	case "", "01":
	case "10":
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("sphere: sample byte format %q (01, 10)", fields["sample_byte_format"])
	}
	data := b[hsize:]
	if n, err := num("sample_count", len(data)/2); err != nil {
		return nil, err
	} else if n < 0 || n > len(data)/2 { // not 2*n, which a huge count wraps negative
		return nil, fmt.Errorf("sphere: %d samples announced, %d bytes present", n, len(data))
	} else {
		data = data[:2*n]
	}
	a := &Audio{Rate: rate, Samples: make([]float32, len(data)/2)}
	for i := range a.Samples {
		a.Samples[i] = float32(int16(order.Uint16(data[2*i:]))) / 32768
	}
	return a, nil
}

// DecodePCM16 decodes raw little-endian signed 16-bit mono samples.
func DecodePCM16(b []byte, rate int) (*Audio, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("raw PCM of %d bytes is not a whole number of 16-bit samples", len(b))
	}
	if rate < 1000 || rate > 768000 {
		return nil, fmt.Errorf("sample rate %d Hz out of range 1000..768000", rate)
	}
	a := &Audio{Rate: rate, Samples: make([]float32, len(b)/2)}
	for i := range a.Samples {
		a.Samples[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
	}
	return a, nil
}
