package frontend

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
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
	a, err := DecodeAudio(b)
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

// DecodeAudio decodes a WAV or NIST SPHERE file held in memory, telling
// them apart by their first bytes (never by a file name).
func DecodeAudio(b []byte) (*Audio, error) {
	if IsSphere(b) {
		return DecodeSphere(b)
	}
	return DecodeWAV(b)
}

// ReadAudioFrom reads a WAV or NIST SPHERE file from r (at most 2 GiB),
// as DecodeAudio tells them apart.
func ReadAudioFrom(r io.Reader) (*Audio, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxWAVBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxWAVBytes {
		return nil, fmt.Errorf("audio file larger than %d bytes", maxWAVBytes)
	}
	return DecodeAudio(b)
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
