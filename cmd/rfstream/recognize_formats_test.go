package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
)

// recognize reads the audio people have, whatever its name: one
// recording, converted by sox and ffmpeg into FLAC, Ogg Vorbis, Ogg Opus,
// MP3, mu-law and A-law WAV, an 8-bit WAV of an odd number of samples and
// a 24-bit stereo 44.1 kHz WAV, gets the original WAV's text (the lossy
// ones too: the decoders' samples are held to ffmpeg's in frontend's
// tests, and here the words must survive the codec). Files are named
// .bin so that only their headers can tell them apart.
func TestRecognizeReadsEveryFormatByItsHeader(t *testing.T) {
	needConverters(t)
	dir, model := toyWordModelFile(t)
	src := filepath.Join(dir, "src.wav")
	x := append(upWord(711), downWord(712)...)
	writeWAV(t, src, x)
	want := recognizeJSON(t, src, "--model", model)
	if want.Text == "" {
		t.Fatalf("the source WAV gives no text: %+v", want)
	}
	for name, out := range convertToEveryFormat(t, dir, src, len(x)) {
		if got := recognizeJSON(t, out, "--model", model); got.Text != want.Text {
			t.Errorf("%s: %q, the WAV gives %q", name, got.Text, want.Text)
		}
	}
	// On standard input too: the header, not a name, tells the format.
	b, err := os.ReadFile(filepath.Join(dir, "flac.bin"))
	if err != nil {
		t.Fatal(err)
	}
	stdin = bytes.NewReader(b)
	got := recognizeJSON(t, "-", "--model", model)
	stdin = os.Stdin
	if got.Text != want.Text {
		t.Errorf("FLAC on standard input: %q, want %q", got.Text, want.Text)
	}
	// What the decoders here do not read, ffmpeg converts (a file named on
	// the command line); on standard input it is named, with the command
	// that converts it.
	for _, c := range []struct{ name, want string }{{"a.m4a", "M4A"}, {"a8k.mp3", "MPEG-2.5"}} {
		out := filepath.Join(dir, c.name)
		if b, err := exec.Command("ffmpeg", "-loglevel", "error", "-i", src, out).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, b)
		}
		if got := recognizeJSON(t, out, "--model", model); got.Text != want.Text {
			t.Errorf("%s through ffmpeg: %q, the WAV gives %q", c.name, got.Text, want.Text)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		stdin = bytes.NewReader(b)
		var stdout, stderr bytes.Buffer
		code := run([]string{"recognize", "--model", model, "-"}, &stdout, &stderr)
		stdin = os.Stdin
		if msg := stderr.String(); code != 1 || !strings.Contains(msg, c.want) || !strings.Contains(msg, "ffmpeg -i") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s on standard input: exit %d, %q; want one line naming %q and the ffmpeg command", c.name, code, msg, c.want)
		}
	}
}

// The default speech model hears an FSDD string (three takes joined by
// 0.3 s of silence; theo's "5" is 19 dB quieter than the other two words)
// as it hears the WAV in every format the issue names: in 8 bits the "5"
// is a few quantisation steps loud and needs the decoders' 8-bit noise
// filter (frontend/quantnoise.go).
func TestDefaultModelHearsAnFSDDStringInEveryFormat(t *testing.T) {
	needConverters(t)
	x := fsddTakesJoined(t, "5_theo_3", "2_jackson_8", "8_lucas_1")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	writeWAV(t, src, x)
	want := recognizeJSON(t, src)
	if want.Text != "5 2 8" {
		t.Fatalf("the 16-bit WAV gives %q, want \"5 2 8\"", want.Text)
	}
	for name, out := range convertToEveryFormat(t, dir, src, len(x)) {
		if got := recognizeJSON(t, out); got.Text != want.Text {
			t.Errorf("%s: %q, the WAV gives %q", name, got.Text, want.Text)
		}
	}
}

// fsddTakesJoined joins FSDD takes (named as their files, without .wav) with
// 0.3 s of silence between them, at 8 kHz; without FSDD the test skips.
func fsddTakesJoined(t *testing.T, takes ...string) []float32 {
	t.Helper()
	fsdd := defaults.FSDDDir()
	if !filepath.IsAbs(fsdd) {
		fsdd = filepath.Join("..", "..", fsdd) // the tests run in cmd/rfstream
	}
	var x []float32
	for i, take := range takes {
		a, err := frontend.ReadAudio(filepath.Join(fsdd, take+".wav"), 8000)
		if err != nil {
			t.Skipf("SKIP: no FSDD recording (%v)", err)
		}
		if i > 0 {
			x = append(x, make([]float32, 2400)...)
		}
		x = append(x, a.Samples...)
	}
	return x
}

func needConverters(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"sox", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install sox ffmpeg): the formats are not made", tool)
		}
	}
}

// convertToEveryFormat converts the n-sample WAV src with sox and ffmpeg
// into FLAC, Ogg Vorbis, Ogg Opus, MP3, mu-law and A-law WAV, an 8-bit WAV
// of n−1 samples (an odd count when n is even) and a 24-bit stereo
// 44.1 kHz WAV, named .bin so that only their headers tell them apart, and
// returns their paths by format.
func convertToEveryFormat(t *testing.T, dir, src string, n int) map[string]string {
	t.Helper()
	conversions := map[string][]string{
		"flac":    {"ffmpeg", "-i", src, "-f", "flac"},
		"vorbis":  {"ffmpeg", "-i", src, "-c:a", "libvorbis", "-f", "ogg"},
		"opus":    {"ffmpeg", "-i", src, "-c:a", "libopus", "-f", "ogg"},
		"mp3":     {"ffmpeg", "-i", src, "-ar", "16000", "-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3"},
		"mu-law":  {"sox", src, "-t", "wav", "-e", "mu-law"},
		"a-law":   {"sox", src, "-t", "wav", "-e", "a-law"},
		"u8-odd":  {"sox", src, "-t", "wav", "-b", "8", "$OUT", "trim", "0s", strconv.Itoa(n-1) + "s"},
		"s24-44k": {"sox", src, "-t", "wav", "-r", "44100", "-c", "2", "-b", "24"},
	}
	paths := make(map[string]string)
	for name, cmd := range conversions {
		out := filepath.Join(dir, name+".bin")
		args := append([]string(nil), cmd[1:]...)
		if !strings.Contains(strings.Join(args, " "), "$OUT") {
			args = append(args, "$OUT")
		}
		for i := range args {
			if args[i] == "$OUT" {
				args[i] = out
			}
		}
		switch cmd[0] {
		case "ffmpeg":
			args = append([]string{"-loglevel", "error", "-y"}, args...)
		case "sox":
			// Repeatable: sox dithers what it writes in fewer bits with
			// noise drawn afresh each run, and a quiet word's fate in
			// 8 bits depends on the draw (the default model heard the
			// 8-bit copy of TestDefaultModelHearsAnFSDDStringInEveryFormat's
			// string right in 46 of 50 draws, Dec 2). -R seeds it.
			args = append([]string{"-R"}, args...)
		}
		if b, err := exec.Command(cmd[0], args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		paths[name] = out
	}
	return paths
}
