// Package sox runs the SoX command-line tool on audio held in memory: its
// effects (pitch, tempo, band filters, reverberation) and its codecs
// (μ-law, GSM full rate), through temporary files.
package sox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rfstream/rfstream/frontend"
)

// Available says whether sox is on the PATH, with an install hint if not.
func Available() error {
	if _, err := exec.LookPath("sox"); err != nil {
		return errors.New("sox is not installed (Debian: apt-get install sox)")
	}
	return nil
}

// Effects passes a through sox's effect chain (e.g. "pitch", "200",
// "tempo", "1.1") and returns the result at a's rate. sox's effects that
// draw random numbers (dither, reverb's none) are kept deterministic by -R.
func Effects(a *frontend.Audio, effects ...string) (*frontend.Audio, error) {
	return run(a, "wav", nil, effects)
}

// Codec encodes a with sox in the given container ("wav" with encoding
// "u-law", or "gsm" with encoding "") and decodes it back to 16-bit PCM,
// so the result carries the codec's loss.
func Codec(a *frontend.Audio, container, encoding string) (*frontend.Audio, error) {
	var enc []string
	if encoding != "" {
		enc = []string{"-e", encoding}
	}
	return run(a, container, enc, nil)
}

func run(a *frontend.Audio, container string, enc, effects []string) (*frontend.Audio, error) {
	tmp, err := os.MkdirTemp("", "rfstream-sox-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, "in.wav")
	f, err := os.Create(in)
	if err != nil {
		return nil, err
	}
	if err := frontend.EncodeWAV16(f, a); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	mid := filepath.Join(tmp, "mid."+container)
	args := append([]string{"-R", "-q", in}, enc...)
	args = append(append(args, mid), effects...)
	if err := soxCmd(args); err != nil {
		return nil, err
	}
	out := mid
	if container != "wav" || len(enc) > 0 {
		out = filepath.Join(tmp, "out.wav")
		if err := soxCmd([]string{"-R", "-q", mid, "-e", "signed-integer", "-b", "16", out}); err != nil {
			return nil, err
		}
	}
	return frontend.ReadAudio(out, a.Rate)
}

func soxCmd(args []string) error {
	out, err := exec.Command("sox", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("sox %s: %v: %s", strings.Join(args[2:], " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
