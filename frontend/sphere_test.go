package frontend

import (
	"bytes"
	"errors"
	"fmt"
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
		if a.Rate != 16000 || !slices.Equal(a.Samples, samples) {
			t.Fatalf("big-endian %v: %d Hz %v, want 16000 Hz %v", big, a.Rate, a.Samples, samples)
		}
	}
}

// sphereFile builds a SPHERE file whose header holds lines (one field
// each) in size bytes, followed by data.
func sphereFile(size int, data []byte, lines ...string) []byte {
	h := fmt.Sprintf("NIST_1A\n%7d\n%s\nend_head\n", size, strings.Join(lines, "\n"))
	b := make([]byte, size, size+len(data))
	copy(b, h)
	for i := len(h); i < size; i++ {
		b[i] = ' '
	}
	return append(b, data...)
}

// The header variants real corpora carry decode to the samples they hold:
// closed forms for each coding, byte order, width and channel layout.
func TestSphereVariants(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		rate int
		want []float32 // exactly
	}{
		{"no optional fields (2-byte little-endian PCM, count from the data)",
			sphereFile(1024, []byte{0x00, 0x40, 0x00, 0xc0}, "sample_rate -i 20000"), 20000, []float32{0.5, -0.5}},
		{"TIDIGITS-like big-endian, 512-byte header",
			sphereFile(512, []byte{0x40, 0x00, 0xc0, 0x00}, "database_id -s8 TIDIGITS", "sample_count -i 2", "sample_rate -i 20000",
				"sample_n_bytes -i 2", "sample_byte_format -s2 10", "sample_coding -s3 pcm", "sample_sig_bits -i 16"), 20000, []float32{0.5, -0.5}},
		{"a 2048-byte header with a string holding spaces",
			sphereFile(2048, []byte{0x00, 0x20}, "utterance_id -s11 ae 1a take", "sample_rate -i 16000", "sample_byte_format -s2 01"), 16000, []float32{0.25}},
		{"stereo interleaved, averaged",
			sphereFile(1024, []byte{0x00, 0x40, 0x00, 0x00, 0x00, 0xc0, 0x00, 0xc0}, "sample_rate -i 8000", "channel_count -i 2", "sample_count -i 2"), 8000, []float32{0.25, -0.5}},
		{"8-bit linear PCM",
			sphereFile(1024, []byte{0x40, 0xc0, 0x00}, "sample_rate -i 8000", "sample_n_bytes -i 1", "sample_byte_format -s1 1"), 8000, quantised8([]float32{0.5, -0.5, 0}, 8000)},
		{"μ-law",
			sphereFile(1024, []byte{0xff, 0x80, 0x00}, "sample_rate -i 8000", "sample_coding -s4 ulaw", "sample_byte_format -s1 1"), 8000,
			[]float32{0, 32124.0 / 32768, -32124.0 / 32768}},
		{"μ-law, mu-law spelling, no width",
			sphereFile(1024, []byte{0x7f}, "sample_rate -i 8000", "sample_coding -s6 mu-law"), 8000, []float32{0}},
		{"A-law",
			sphereFile(1024, []byte{0xd5, 0x55, 0xaa}, "sample_rate -i 8000", "sample_coding -s4 alaw", "sample_n_bytes -i 1"), 8000,
			[]float32{8.0 / 32768, -8.0 / 32768, 32256.0 / 32768}},
		{"sample_count shorter than the data",
			sphereFile(1024, []byte{0x00, 0x40, 0x00, 0xc0}, "sample_rate -i 8000", "sample_count -i 1"), 8000, []float32{0.5}},
		{"a rate given as a real",
			sphereFile(1024, []byte{0x00, 0x40}, "sample_rate -r 16000.000"), 16000, []float32{0.5}},
		{"CRLF header lines and a comment",
			sphereFile(1024, []byte{0x00, 0x40}, "; a comment\r", "sample_rate -i 8000\r", "sample_coding -s3 pcm\r"), 8000, []float32{0.5}},
	}
	for _, c := range cases {
		a, err := DecodeSphere(c.b)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if a.Rate != c.rate || !slices.Equal(a.Samples, c.want) {
			t.Errorf("%s: %d Hz %v, want %d Hz %v", c.name, a.Rate, a.Samples, c.rate, c.want)
		}
	}
}

// G.711 expansion: the end points and zero of both laws, and μ-law's
// positive codes rising strictly as the code falls from 0xff to 0x80.
func TestCompandingLaws(t *testing.T) {
	if ULawSample(0xff) != 0 || ULawSample(0x7f) != 0 || ULawSample(0x80) != 32124 || ULawSample(0x00) != -32124 {
		t.Fatalf("μ-law end points: %d %d %d %d", ULawSample(0xff), ULawSample(0x7f), ULawSample(0x80), ULawSample(0x00))
	}
	if ALawSample(0xd5) != 8 || ALawSample(0x55) != -8 || ALawSample(0xaa) != 32256 || ALawSample(0x2a) != -32256 {
		t.Fatalf("A-law end points: %d %d %d %d", ALawSample(0xd5), ALawSample(0x55), ALawSample(0xaa), ALawSample(0x2a))
	}
	for c := 0xfe; c >= 0x80; c-- {
		if ULawSample(byte(c)) <= ULawSample(byte(c+1)) {
			t.Fatalf("μ-law %#x → %d is not above %#x → %d", c, ULawSample(byte(c)), c+1, ULawSample(byte(c+1)))
		}
		if ULawSample(byte(c&0x7f)) != -ULawSample(byte(c)) {
			t.Fatalf("μ-law %#x is not the negative of %#x", c&0x7f, c)
		}
	}
}

// A compressed file is refused with the tools that expand it named.
func TestSphereShortenNamesTheTools(t *testing.T) {
	for _, b := range [][]byte{
		sphereFile(1024, []byte("ajkg\x02..."), "sample_rate -i 20000", "sample_coding -s26 pcm,embedded-shorten-v2.00"),
		sphereFile(1024, []byte("ajkg\x02..."), "sample_rate -i 20000"),
		sphereFile(1024, []byte("xx"), "sample_rate -i 16000", "sample_coding -s24 ulaw,embedded-wavpack-1"),
	} {
		_, err := DecodeSphere(b)
		if err == nil || !errors.Is(err, ErrSphere) || !strings.Contains(err.Error(), "sph2pipe") || !strings.Contains(err.Error(), "w_decode") {
			t.Errorf("compressed file: %v", err)
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
		{"no end_head", edit("end_head", "        "), "no end_head"},
		{"field without type", edit("sample_rate -i 8000", "sample_rate        "), "header line 4"},
		{"unknown type", edit("sample_rate -i 8000", "sample_rate -q 8000"), "unknown type"},
		{"bad string length", edit("-s3 pcm", "-sx pcm"), "string type"},
		{"unknown coding", edit("sample_coding -s3 pcm", "sample_coding -s3 shn"), "not read"},
		{"3-byte", edit("sample_n_bytes -i 2", "sample_n_bytes -i 3"), "3-byte PCM"},
		{"2-byte μ-law", edit("sample_coding -s3 pcm", "sample_coding -s4 ulaw"), "companded samples are 1 byte"},
		{"no channels", edit("channel_count -i 1", "channel_count -i 0"), "0 channels"},
		{"rate", edit("sample_rate -i 8000", "sample_rate -i 80"), "sample rate 80"},
		{"no rate", edit("sample_rate -i 8000", "sample_xate -i 8000"), "must give sample_rate"},
		{"byte format", edit("-s2 01", "-s2 99"), "byte format"},
		{"one-byte format for 2-byte samples", edit("-s2 01", "-s1 1"), "for 2-byte samples"},
		{"count", edit("sample_count -i 2", "sample_count -i 9"), "9 samples announced"},
		{"count not a number", edit("sample_count -i 2", "sample_count -i x"), "not a whole number"},
		{"rate not whole", edit("sample_rate -i 8000", "sample_rate -r 8e3.5"), "not a whole number"},
		{"count that doubles past int64", edit("sample_count -i 2", "sample_count -i 4611686018427387904"), "samples announced"},
	}
	for _, c := range cases {
		_, err := DecodeSphere(c.b)
		if err == nil || !errors.Is(err, ErrSphere) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.msg)
		}
	}
}

// FuzzDecodeSphere: any input is decoded or refused, never a panic; the
// samples stay in [-1, 1) and never outnumber the input's bytes (memory
// is bounded by the file, whatever the header announces).
func FuzzDecodeSphere(f *testing.F) {
	f.Add(fixtures.EncodeSphere([]float32{0.1, -0.2, 0.3}, 8000, false))
	f.Add(fixtures.EncodeSphere([]float32{0.1}, 16000, true))
	f.Add([]byte("NIST_1A\n   20\nend_head\n"))
	f.Add(sphereFile(64, []byte{1, 2, 3, 4}, "sample_rate -i 8000", "channel_count -i 2", "sample_n_bytes -i 1"))
	f.Add(sphereFile(64, []byte{1, 2, 3}, "sample_rate -i 8000", "sample_coding -s4 ulaw"))
	f.Add(sphereFile(96, []byte("ajkg"), "sample_rate -i 8000", "sample_coding -s26 pcm,embedded-shorten-v2.00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeSphere(b)
		if err != nil {
			if !errors.Is(err, ErrSphere) {
				t.Fatalf("error %v does not wrap ErrSphere", err)
			}
			return
		}
		if len(a.Samples) > len(b) {
			t.Fatalf("%d samples from %d bytes", len(a.Samples), len(b))
		}
		for _, v := range a.Samples {
			if v < -1 || v >= 1 {
				t.Fatalf("sample %v outside [-1, 1)", v)
			}
		}
	})
}

// EncodeSphere16 and DecodeSphere are inverse on 16-bit values, in both
// byte orders, and clip outside [-1, 1].
func TestEncodeSphere16RoundTrip(t *testing.T) {
	in := []float32{0, 0.5, -0.5, 1234.0 / 32768, -1, 32767.0 / 32768}
	for _, big := range []bool{false, true} {
		var b bytes.Buffer
		if err := EncodeSphere16(&b, &Audio{Rate: 20000, Samples: append(slices.Clone(in), 2, -3)}, big); err != nil {
			t.Fatal(err)
		}
		a, err := DecodeAudio(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		want := append(slices.Clone(in), 32767.0/32768, -1)
		if a.Rate != 20000 || !slices.Equal(a.Samples, want) {
			t.Fatalf("big-endian %v: %d Hz %v, want %v", big, a.Rate, a.Samples, want)
		}
	}
}
