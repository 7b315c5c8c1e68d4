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

func TestSphereMatchesWAV(t *testing.T) {
	samples := []float32{0, 0.5, -0.5, 0.25, -1, 32767.0 / 32768}
	for _, big := range []bool{false, true} {
		a, err := DecodeSphere(fixtures.EncodeSphere(samples, 16000, big))
		if err != nil {
			t.Fatal(err)
		}
		if a.Rate != 16000 || len(a.Samples) != len(samples) {
			t.Fatalf("big-endian %v: rate %d, %d samples", big, a.Rate, len(a.Samples))
		}
		for i, v := range samples {
			if a.Samples[i] != v {
				t.Fatalf("big-endian %v: sample %d is %v, want %v", big, i, a.Samples[i], v)
			}
		}
	}
}

func TestSphereErrors(t *testing.T) {
	good := fixtures.EncodeSphere([]float32{0.1, 0.2}, 8000, false)
	edit := func(from, to string) []byte { return bytes.Replace(good, []byte(from), []byte(to), 1) }
	cases := []struct {
		name string
		b    []byte
		msg  string
	}{
		{"not sphere", []byte("RIFF...."), "not a NIST_1A"},
		{"no size", []byte("NIST_1A\n1024"), "header size line missing"},
		{"bad size", edit("   1024", "   abcd"), "header size"},
		{"size past end", edit("   1024", "   9999"), "header size"},
		{"tiny size", edit("   1024", "      9"), "header size"},
		{"shorten", edit("sample_coding -s3 pcm", "sample_coding -s3 shn"), "not plain PCM"},
		{"8-bit", edit("sample_n_bytes -i 2", "sample_n_bytes -i 1"), "only 16-bit mono"},
		{"stereo", edit("channel_count -i 1", "channel_count -i 2"), "only 16-bit mono"},
		{"rate", edit("sample_rate -i 8000", "sample_rate -i 80"), "sample rate 80"},
		{"byte format", edit("-s2 01", "-s2 99"), "byte format"},
		{"count", edit("sample_count -i 2", "sample_count -i 9"), "9 samples announced"},
		{"count not a number", edit("sample_count -i 2", "sample_count -i x"), "not a number"},
		{"count that doubles past int64", edit("sample_count -i 2", "sample_count -i 4611686018427387904"), "samples announced"},
	}
	for _, c := range cases {
		_, err := DecodeSphere(c.b)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.msg)
		}
	}
}

func FuzzDecodeSphere(f *testing.F) {
	f.Add(fixtures.EncodeSphere([]float32{0.1, -0.2, 0.3}, 8000, false))
	f.Add(fixtures.EncodeSphere([]float32{0.1}, 16000, true))
	f.Add([]byte("NIST_1A\n   20\nend_head\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeSphere(b)
		if err != nil {
			return
		}
		for _, v := range a.Samples {
			if v < -1 || v >= 1 {
				t.Fatalf("sample %v outside [-1, 1)", v)
			}
		}
	})
}

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
