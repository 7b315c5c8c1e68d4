package frontend

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every decoder is fuzzed from a small real file (made by ffmpeg and sox,
// in testdata/formats): whatever the bytes, a decoder returns finite
// samples within its bound or an error wrapping its format's sentinel,
// and never panics or allocates from a length that the bytes only claim.

// fuzzBound keeps each run's output small: a mutated length field must
// meet the bound, not the machine's memory.
const fuzzBound = 5.0

func seed(f *testing.F, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "formats", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2]) // truncated
	return b
}

// fuzzDecoder runs decode on every input and checks what it returns.
func fuzzDecoder(f *testing.F, decode func([]byte, bound) (*Audio, error), sentinels ...error) {
	sentinels = append(sentinels, ErrTooLong, ErrUnsupported)
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := decode(b, bound{seconds: fuzzBound})
		if err != nil {
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error %q wraps none of %v", err, sentinels)
		}
		if a.Rate < 1000 || a.Rate > 768000 {
			t.Fatalf("rate %d", a.Rate)
		}
		if float64(len(a.Samples)) > fuzzBound*float64(a.Rate)+1 {
			t.Fatalf("%d samples at %d Hz, past the %g s bound", len(a.Samples), a.Rate, fuzzBound)
		}
		for i, v := range a.Samples {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d is %v", i, v)
			}
		}
	})
}

func FuzzDecodeFLAC(f *testing.F) {
	seed(f, "seed.flac")
	fuzzDecoder(f, decodeFLAC, ErrFLAC)
}

func FuzzDecodeVorbis(f *testing.F) {
	seed(f, "seed.ogg")
	fuzzDecoder(f, decodeVorbis, ErrVorbis, ErrOgg)
}

func FuzzDecodeOpus(f *testing.F) {
	seed(f, "seed.opus")
	fuzzDecoder(f, decodeOpus, ErrOpus, ErrOgg)
}

func FuzzDecodeMP3(f *testing.F) {
	seed(f, "seed.mp3")
	fuzzDecoder(f, decodeMP3, ErrMP3)
}

// FuzzDecodeAudio goes through the entry point that tells the formats
// apart, from a seed of each.
func FuzzDecodeAudio(f *testing.F) {
	for _, name := range []string{"seed.flac", "seed.ogg", "seed.opus", "seed.mp3", "seed-ulaw.wav"} {
		seed(f, name)
	}
	fuzzDecoder(f, func(b []byte, most bound) (*Audio, error) { return DecodeAudioUpTo(b, most.seconds) },
		ErrUnknownFormat, ErrWAV, ErrSphere, ErrFLAC, ErrVorbis, ErrOpus, ErrOgg, ErrMP3)
}

// A file whose header claims hours gets ErrTooLong from the header, and
// one whose audio runs past the bound stops there.
func TestBoundsHoldAgainstClaimsAndBombs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "formats", "seed.flac"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"seed.flac": b} {
		if _, err := DecodeAudioUpTo(data, 0.05); !errors.Is(err, ErrTooLong) {
			t.Errorf("%s past a 0.05 s bound: %v", name, err)
		}
	}
	for _, name := range []string{"seed.ogg", "seed.opus", "seed.mp3", "seed-ulaw.wav"} {
		data, err := os.ReadFile(filepath.Join("testdata", "formats", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeAudioUpTo(data, 0.05); !errors.Is(err, ErrTooLong) {
			t.Errorf("%s past a 0.05 s bound: %v", name, err)
		}
		if a, err := DecodeAudioUpTo(data, 1); err != nil || a.Duration() < 0.1 {
			t.Errorf("%s within a 1 s bound: %v", name, err)
		}
	}
	// A WAV whose data chunk claims 4 GiB in a 60-byte file.
	lying := wavBytes(1, 1, 8000, 16, make([]byte, 16))
	lying[40], lying[41], lying[42], lying[43] = 0xf0, 0xff, 0xff, 0xff
	if _, err := DecodeAudio(lying); !errors.Is(err, ErrWAV) || !bytesContain(err.Error(), "truncated") {
		t.Errorf("a WAV claiming 4 GiB: %v", err)
	}
	// A FLAC metadata block claiming 16 MiB in a small file.
	big := append([]byte(nil), b...)
	big[4] &^= 0x80 // STREAMINFO is not the last block
	claim := append(append(big[:42:42], 0x84, 0xff, 0xff, 0xff), big[42:]...)
	if _, err := DecodeAudio(claim); !errors.Is(err, ErrFLAC) {
		t.Errorf("a FLAC block claiming 16 MiB: %v", err)
	}
}

func bytesContain(s, sub string) bool { return strings.Contains(s, sub) }

// The conversion command names the file once a reader knows it, quoted
// for a shell when it must be.
func TestConversionCommandNamesTheFile(t *testing.T) {
	m4a := []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A isommp42")
	_, err := DecodeAudio(m4a)
	if got := err.Error(); !strings.HasSuffix(got, "ffmpeg -i in.m4a -ac 1 out.wav") {
		t.Errorf("without a path: %q", got)
	}
	for path, want := range map[string]string{
		"calls/a.m4a":    "ffmpeg -i calls/a.m4a -ac 1 calls/a.wav",
		"my voice's.m4a": `ffmpeg -i 'my voice'\''s.m4a' -ac 1 'my voice'\''s.wav'`,
		"noext":          "ffmpeg -i noext -ac 1 noext.wav",
		"-":              "ffmpeg -i in.m4a -ac 1 out.wav",
	} {
		_, err := DecodeAudio(m4a)
		if got := NamePath(err, path).Error(); !strings.HasSuffix(got, want) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %q, want it to end %q", path, got, want)
		}
	}
}
