package frontend

import (
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Files the decoders here do not read are converted by ffmpeg when it is
// installed, and give the recording's own length and rate: an 8 kHz MP3
// (MPEG-2.5) and an M4A (AAC). Without ffmpeg they are refused naming the
// command that converts them.
func TestReadAudioConvertsWhatOnlyFFmpegReads(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("no ffmpeg (apt-get install ffmpeg; .ci/run does)")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		file  string
		codec []string
	}{
		{"a.mp3", []string{"-c:a", "libmp3lame", "-b:a", "32k"}},
		{"a.m4a", []string{"-c:a", "aac", "-b:a", "32k"}},
	} {
		path := filepath.Join(dir, c.file)
		args := append([]string{"-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=1.5", "-ac", "1"}, c.codec...)
		if out, err := exec.Command(ffmpeg, append(args, path)...).CombinedOutput(); err != nil {
			t.Skipf("ffmpeg cannot write %s here: %v %s", c.file, err, out)
		}
		a, err := ReadAudio(path, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if a.Rate != 8000 || math.Abs(float64(len(a.Samples))/8000-1.5) > 0.1 {
			t.Fatalf("%s: %d samples at %d Hz, want 1.5 s at 8000 Hz", c.file, len(a.Samples), a.Rate)
		}
		saved := lookFFmpeg
		lookFFmpeg = func() (string, error) { return "", exec.ErrNotFound }
		_, err = ReadAudio(path, 0)
		lookFFmpeg = saved
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "ffmpeg -i") {
			t.Fatalf("%s without ffmpeg: %v, want the command that converts it", c.file, err)
		}
	}
}
