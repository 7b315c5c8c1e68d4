package frontend

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadAudio reads an audio file (any format DecodeAudio reads, told apart
// by its first bytes) and resamples it to rate (0 keeps the file's own).
// Raw PCM has no header to tell it by: its reader is DecodePCM16, given
// the rate.
func ReadAudio(path string, rate int) (*Audio, error) {
	a, err := ReadFileUpTo(path, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, NamePath(err, path))
	}
	if rate != 0 && a.Rate != rate {
		if a, err = Resample(a, rate); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return a, nil
}

// ReadFileUpTo reads the audio file at path as ReadAudioFromUpTo reads
// one; a format the decoders here recognise but do not read (an 8 kHz
// MP3, M4A, WebM) is converted by ffmpeg when it is installed (ffmpeg.go).
// Its errors do not name the file (NamePath does).
func ReadFileUpTo(path string, maxSeconds float64) (*Audio, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ReadAudioFromUpTo(f, maxSeconds)
	if errors.Is(err, ErrUnsupported) {
		if converted, cerr := convertWithFFmpeg(path, bound{seconds: maxSeconds}); cerr == nil {
			a, err = converted, nil
		} else if !errors.Is(cerr, errNoFFmpeg) {
			err = fmt.Errorf("%w; %w", err, cerr)
		}
	}
	return a, err
}

// DecodeAudio decodes an audio file held in memory: WAV (integer, float,
// mu-law and A-law, any channel count), NIST SPHERE, FLAC, Ogg Vorbis,
// Ogg Opus or MP3 (MPEG-1/2 layer III), told apart by their first bytes,
// never by a file name. Channels are averaged to mono. A format that is
// recognised but not decoded (M4A, WebM, AIFF, ...) gets an error wrapping
// ErrUnsupported that names it and the command that converts it; bytes
// that announce no known format get one wrapping ErrUnknownFormat.
func DecodeAudio(b []byte) (*Audio, error) { return DecodeAudioUpTo(b, 0) }

// DecodeAudioUpTo is DecodeAudio refusing, with an error wrapping
// ErrTooLong, a recording longer than maxSeconds (0: no bound but
// maxDecodedSamples). The bound holds while decoding: a small compressed
// file that unpacks to hours costs the bound's memory, not the hours'.
func DecodeAudioUpTo(b []byte, maxSeconds float64) (*Audio, error) {
	return decodeAudio(b, bound{seconds: maxSeconds})
}

// DecodeAudioWithin is DecodeAudioUpTo refusing also a recording of more
// than maxSamples samples a channel, whatever its rate: what audio from
// the network is held to, since a file's rate (up to 768 kHz) is the
// sender's choice and seconds alone do not bound the memory.
func DecodeAudioWithin(b []byte, maxSeconds float64, maxSamples int) (*Audio, error) {
	return decodeAudio(b, bound{seconds: maxSeconds, samples: maxSamples})
}

func decodeAudio(b []byte, most bound) (*Audio, error) {
	format, err := sniff(b)
	if err != nil {
		return nil, err
	}
	var a *Audio
	switch format {
	case formatWAV:
		return decodeWAV(b, most)
	case formatSphere:
		a, err = DecodeSphere(b)
	case formatFLAC:
		return decodeFLAC(b, most)
	case formatVorbis:
		return decodeVorbis(b, most)
	case formatOpus:
		return decodeOpus(b, most)
	case formatMP3:
		return decodeMP3(b, most)
	}
	if err != nil {
		return nil, err
	}
	if len(a.Samples) > most.frames(a.Rate) {
		return nil, most.tooLong(a.Rate)
	}
	return a, nil
}

// ReadAudioFrom reads an audio file from r (at most 2 GiB), as
// DecodeAudio tells its format.
func ReadAudioFrom(r io.Reader) (*Audio, error) { return ReadAudioFromUpTo(r, 0) }

// ReadAudioFromUpTo is ReadAudioFrom with DecodeAudioUpTo's bound.
func ReadAudioFromUpTo(r io.Reader, maxSeconds float64) (*Audio, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxWAVBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxWAVBytes {
		return nil, fmt.Errorf("audio file larger than %d bytes", maxWAVBytes)
	}
	return DecodeAudioUpTo(b, maxSeconds)
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
