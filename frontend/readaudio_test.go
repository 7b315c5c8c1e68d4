package frontend

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/fixtures"
)

// ReadAudio tells a WAV file from a SPHERE one by its first bytes, reads
// both to the same samples, resamples on request and names the file in
// its errors.
func TestReadAudioReadsWAVAndSphere(t *testing.T) {
	samples := []float32{0, 0.25, -0.5, 0.125, -1, 0.5, 0, -0.25}
	dir := t.TempDir()
	var wav bytes.Buffer
	if err := EncodeWAV16(&wav, &Audio{Rate: 8000, Samples: samples}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"a.wav": wav.Bytes(), "b.sph": fixtures.EncodeSphere(samples, 8000, true)}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := ReadAudio(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		if a.Rate != 8000 || !slices.Equal(a.Samples, samples) {
			t.Fatalf("%s: %d Hz %v, want 8000 Hz %v", name, a.Rate, a.Samples, samples)
		}
		want, err := Resample(a, 16000)
		if err != nil {
			t.Fatal(err)
		}
		if a, err = ReadAudio(path, 16000); err != nil || a.Rate != 16000 || !slices.Equal(a.Samples, want.Samples) {
			t.Fatalf("%s at 16 kHz: %v", name, err)
		}
		if a, err = ReadAudio(path, 8000); err != nil || !slices.Equal(a.Samples, samples) {
			t.Fatalf("%s at its own rate: %v", name, err)
		}
	}
	bad := filepath.Join(dir, "bad.wav")
	if err := os.WriteFile(bad, []byte("NIST_1A\n   1024\nsample_coding -s3 pcm,embedded-shorten-v2.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAudio(bad, 0); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a damaged SPHERE file: %v", err)
	}
	if err := os.WriteFile(bad, []byte("RIFF but nothing else"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAudio(bad, 0); !errors.Is(err, ErrWAV) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a damaged WAV file: %v", err)
	}
	if _, err := ReadAudio(filepath.Join(dir, "missing.wav"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}

func TestPCM16(t *testing.T) {
	a, err := DecodePCM16([]byte{0x00, 0x40, 0x00, 0xC0}, 8000)
	if err != nil || a.Samples[0] != 0.5 || a.Samples[1] != -0.5 {
		t.Fatalf("%v %v", a, err)
	}
	if _, err := DecodePCM16([]byte{1}, 8000); err == nil {
		t.Fatal("odd byte count accepted")
	}
}

// DecodeAudioWithin holds a recording to a sample count whatever its rate,
// and to its seconds, whichever is less; the error says which.
func TestDecodeAudioWithinBoundsSamples(t *testing.T) {
	for _, c := range []struct {
		rate       int
		seconds    float64
		samples    int
		ok         bool
		errMention string
	}{
		{8000, 0, 1000, true, ""},
		{8000, 0, 999, false, "more than 999 samples"},
		{768000, 600, 999, false, "more than 999 samples"},
		{8000, 0.1, 999, false, "longer than 0.1 s"},
		{8000, 0.125, 1000, true, ""},
	} {
		b := wavBytes(1, 1, c.rate, 16, make([]byte, 2000)) // 1000 samples
		a, err := DecodeAudioWithin(b, c.seconds, c.samples)
		switch {
		case c.ok && (err != nil || len(a.Samples) != 1000):
			t.Errorf("%d Hz within %g s and %d samples: %v", c.rate, c.seconds, c.samples, err)
		case !c.ok && (!errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), c.errMention)):
			t.Errorf("%d Hz within %g s and %d samples: %v; want ErrTooLong saying %q", c.rate, c.seconds, c.samples, err, c.errMention)
		}
	}
}
