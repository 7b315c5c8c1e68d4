package rfstream

import (
	"fmt"

	"github.com/rfstream/rfstream/frontend"
)

// ReadAudio reads a recording as `rfstream recognize` reads it: WAV, FLAC,
// Ogg Vorbis, Ogg Opus, MP3 or NIST SPHERE, told apart by its header,
// mixed down to mono; what else ffmpeg reads (an 8 kHz MP3, M4A) when
// ffmpeg is installed. It
// returns the samples in [-1, 1] and their rate in Hz.
func ReadAudio(path string) (samples []float32, rate int, err error) {
	a, err := frontend.ReadFileUpTo(path, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, frontend.NamePath(err, path))
	}
	return a.Samples, a.Rate, nil
}
