package frontend

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The decoders are held to the reference tools: each file is made by sox
// or ffmpeg from one source, and what a decoder here gives is compared
// with what sox or ffmpeg decodes from the same file (exactly for the
// lossless formats, within a signal-to-noise floor at zero lag for the
// lossy ones, so that a shifted or gain-changed decode fails).

// needTools skips a test when sox or ffmpeg is missing, saying how to
// get them.
func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"sox", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install sox ffmpeg); the format decoders are not compared with it", tool)
		}
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// ffmpegMono is ffmpeg's decoding of path at rate, its channels averaged.
func ffmpegMono(t *testing.T, path string, rate, channels int) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-loglevel", "error", "-i", path, "-ar", strconv.Itoa(rate), "-ac", strconv.Itoa(channels), "-f", "f64le", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg decoding %s: %v", path, err)
	}
	n := len(out) / 8 / channels
	m := make([]float64, n)
	for i := range m {
		for c := range channels {
			m[i] += math.Float64frombits(binary.LittleEndian.Uint64(out[8*(i*channels+c):]))
		}
		m[i] /= float64(channels)
	}
	return m
}

// snr is 10 log10(|ref|² / |ref - x|²) over ref's length at zero lag.
func snr(ref []float64, x []float32) float64 {
	var s, e float64
	for i, r := range ref {
		v := 0.0
		if i < len(x) {
			v = float64(x[i])
		}
		s += r * r
		e += (r - v) * (r - v)
	}
	return 10 * math.Log10(s/e)
}

func decodeFile(t *testing.T, path string) *Audio {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeAudio(b)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return a
}

func TestFormatsMatchTheReferenceDecoders(t *testing.T) {
	needTools(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	// A second and a half of a rising tone over noise: every band busy,
	// like speech, and no silence for an offset to hide in.
	run(t, "sox", "-R", "-n", "-r", "8000", "-c", "1", "-b", "16", src, "synth", "1.5", "sine", "200-3000", "whitenoise", "remix", "-", "gain", "-6")
	orig := decodeFile(t, src)
	cases := []struct {
		file     string
		make     []string // the command that makes file from src
		rate, ch int      // the file's rate and channels, as ffmpeg decodes it
		minSNR   float64  // dB against ffmpeg's decoding; +Inf: sample-exact
	}{
		{"a.flac", []string{"ffmpeg", "-i", src, "$OUT"}, 8000, 1, math.Inf(1)},
		{"s24.flac", []string{"sox", src, "-r", "44100", "-c", "2", "-b", "24", "$OUT"}, 44100, 2, math.Inf(1)},
		{"ulaw.wav", []string{"sox", src, "-e", "mu-law", "$OUT"}, 8000, 1, math.Inf(1)},
		{"alaw.wav", []string{"sox", src, "-e", "a-law", "$OUT"}, 8000, 1, math.Inf(1)},
		// ffmpeg keeps the 8-bit noise that the decoder here filters out
		// (quantnoise.go): the -6 dB tone and noise lie 40 dB above it.
		{"u8odd.wav", []string{"sox", src, "-b", "8", "$OUT", "trim", "0s", "11999s"}, 8000, 1, 35},
		{"s24.wav", []string{"sox", src, "-r", "44100", "-c", "2", "-b", "24", "$OUT"}, 44100, 2, 140},
		{"s32.wav", []string{"sox", src, "-c", "3", "-b", "32", "$OUT"}, 8000, 3, 140},
		{"f64.wav", []string{"sox", src, "-e", "floating-point", "-b", "64", "$OUT"}, 8000, 1, 140},
		{"a.ogg", []string{"ffmpeg", "-i", src, "-c:a", "libvorbis", "$OUT"}, 8000, 1, 60},
		{"s.ogg", []string{"ffmpeg", "-i", src, "-ar", "44100", "-ac", "2", "-c:a", "libvorbis", "$OUT"}, 44100, 2, 60},
		{"a.opus", []string{"ffmpeg", "-i", src, "-c:a", "libopus", "$OUT"}, 48000, 1, 40},
		{"s.opus", []string{"ffmpeg", "-i", src, "-ac", "2", "-c:a", "libopus", "$OUT"}, 48000, 2, 40},
		{"m2.mp3", []string{"ffmpeg", "-i", src, "-ar", "16000", "-c:a", "libmp3lame", "-b:a", "64k", "$OUT"}, 16000, 1, 40},
		{"m1.mp3", []string{"ffmpeg", "-i", src, "-ar", "44100", "-ac", "2", "-c:a", "libmp3lame", "$OUT"}, 44100, 2, 40},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			out := filepath.Join(dir, c.file)
			args := append([]string(nil), c.make[1:]...)
			for i, a := range args {
				if a == "$OUT" {
					args[i] = out
				}
			}
			if c.make[0] == "ffmpeg" {
				args = append([]string{"-loglevel", "error", "-y"}, args...)
			}
			run(t, c.make[0], args...)
			a := decodeFile(t, out)
			// The path reader (train --train-manifest's) reads it too.
			if r, err := ReadAudio(out, 8000); err != nil || r.Rate != 8000 {
				t.Fatalf("ReadAudio: %v", err)
			}
			if a.Rate != c.rate {
				t.Fatalf("rate %d, want %d", a.Rate, c.rate)
			}
			ref := ffmpegMono(t, out, c.rate, c.ch)
			if d := len(a.Samples) - len(ref); d < -1 || d > 1 {
				t.Fatalf("%d samples, ffmpeg gives %d", len(a.Samples), len(ref))
			}
			got := snr(ref, a.Samples)
			t.Logf("%s: %d Hz, %d samples, %.1f dB against ffmpeg", c.file, a.Rate, len(a.Samples), got)
			if got < c.minSNR {
				t.Errorf("%.1f dB against ffmpeg's decoding, want at least %g", got, c.minSNR)
			}
			if c.rate == orig.Rate && c.ch == 1 && !strings.HasSuffix(c.file, ".wav") {
				// Lossy or not, the file still is the source.
				if s := snr(toF64(orig.Samples), a.Samples); s < 6 {
					t.Errorf("%.1f dB against the source", s)
				}
			}
		})
	}
}

func toF64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// Formats that are recognised but not decoded are named, with the
// command that converts them.
func TestUndecodedFormatsNameThemselvesAndTheFix(t *testing.T) {
	needTools(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	run(t, "sox", "-R", "-n", "-r", "8000", "-c", "1", "-b", "16", src, "synth", "0.5", "sine", "440")
	for _, c := range []struct{ file, codec, want string }{
		{"a.m4a", "aac", "M4A"},
		{"a.webm", "libopus", "WebM"},
		{"a.mp3", "libmp3lame", "MPEG-2.5"}, // LAME writes 8 kHz as MPEG-2.5
		{"a.aiff", "pcm_s16be", "AIFF"},
		{"a.mp2", "mp2", "layer II"},
		{"a.oga", "flac", "Ogg FLAC"},
	} {
		out := filepath.Join(dir, c.file)
		args := []string{"-loglevel", "error", "-i", src, "-c:a", c.codec}
		if c.codec == "mp2" {
			args = append(args, "-ar", "16000")
		}
		run(t, "ffmpeg", append(args, out)...)
		b, _ := os.ReadFile(out)
		_, err := DecodeAudio(b)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "ffmpeg -i") {
			t.Errorf("%s: %v; want ErrUnsupported naming %q and the ffmpeg command", c.file, err, c.want)
		}
	}
}

// BenchmarkDecodeFormats decodes 30 s of a chirp over noise in each
// format (made by sox and ffmpeg at 8 kHz mono and 44.1 kHz stereo) and
// reports seconds of audio decoded per second: the numbers in
// experiments/journal/audio.md ("Audio file formats").
func BenchmarkDecodeFormats(b *testing.B) {
	for _, tool := range []string{"sox", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not installed", tool)
		}
	}
	dir := b.TempDir()
	src := filepath.Join(dir, "src.wav")
	if out, err := exec.Command("sox", "-R", "-n", "-r", "8000", "-c", "1", "-b", "16", src, "synth", "30", "sine", "200-3000", "whitenoise", "remix", "-", "gain", "-6").CombinedOutput(); err != nil {
		b.Fatalf("sox: %v %s", err, out)
	}
	for _, layout := range []struct{ name, rate, ch string }{{"8k-mono", "8000", "1"}, {"44k-stereo", "44100", "2"}} {
		for _, f := range []struct{ ext, codec string }{{"wav", "pcm_s16le"}, {"u8.wav", "pcm_u8"}, {"flac", "flac"}, {"ogg", "libvorbis"}, {"opus", "libopus"}, {"mp3", "libmp3lame"}} {
			rate := layout.rate
			switch {
			case f.ext == "mp3" && rate == "8000":
				rate = "16000" // 8 kHz MP3 is MPEG-2.5, not decoded here
			case f.ext == "opus" && rate == "44100":
				rate = "48000" // libopus takes 8, 12, 16, 24 or 48 kHz
			}
			path := filepath.Join(dir, layout.name+"."+f.ext)
			if out, err := exec.Command("ffmpeg", "-loglevel", "error", "-i", src, "-ar", rate, "-ac", layout.ch, "-c:a", f.codec, path).CombinedOutput(); err != nil {
				b.Fatalf("ffmpeg %s: %v %s", path, err, out)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(layout.name+"/"+f.ext, func(b *testing.B) {
				var a *Audio
				for b.Loop() {
					if a, err = DecodeAudio(data); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(a.Duration()*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
			})
		}
	}
}
