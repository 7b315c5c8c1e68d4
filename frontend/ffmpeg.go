package frontend

import (
	"bytes"
	gocontext "context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// A file the decoders here recognise but do not read (an MPEG-2.5 MP3 at
// 8-12 kHz, M4A/AAC, WebM, a video's sound) is what people have, and
// ffmpeg reads all of them: ReadAudio, which reads a file the user named,
// has ffmpeg convert it to WAV when ffmpeg is on the PATH, and otherwise
// fails naming the command that converts it. Only files the user names
// take this path: audio that arrives over the network (the page, the Vosk
// endpoint, NATS) is decoded here or refused, never handed to another
// program.

// ffmpegTimeout bounds one conversion.
const ffmpegTimeout = 5 * time.Minute

// lookFFmpeg finds ffmpeg (tests replace it).
var lookFFmpeg = func() (string, error) { return exec.LookPath("ffmpeg") }

// convertWithFFmpeg has ffmpeg decode the file at path to 16-bit mono WAV
// at the file's own rate and decodes that, up to most seconds, holding
// ffmpeg's output to the most samples a recording may have. It returns errNoFFmpeg when ffmpeg is
// not installed.
func convertWithFFmpeg(path string, most bound) (*Audio, error) {
	bin, err := lookFFmpeg()
	if err != nil {
		return nil, errNoFFmpeg
	}
	ctx, cancel := gocontext.WithTimeout(gocontext.Background(), ffmpegTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-nostdin", "-v", "error", "-i", path, "-vn", "-ac", "1", "-c:a", "pcm_s16le", "-f", "wav", "-")
	out := &cappedBuffer{max: 2*maxDecodedSamples + 1<<20}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Run(); err != nil {
		if out.over {
			return nil, fmt.Errorf("ffmpeg's conversion: %w", ErrTooLong)
		}
		return nil, fmt.Errorf("ffmpeg could not convert it: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return decodeWAV(pipedWAVSized(out.Bytes()), most)
}

// pipedWAVSized sets the RIFF and data chunk sizes of a WAV written to a
// pipe: ffmpeg cannot seek back to fill them in and leaves 0xFFFFFFFF
// ("as long as the stream"), which the WAV reader here refuses as a lie.
// The data chunk is the last, so its size is what follows its header.
func pipedWAVSized(b []byte) []byte {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return b
	}
	for i := 12; i+8 <= len(b); {
		size := int(binary.LittleEndian.Uint32(b[i+4:]))
		if string(b[i:i+4]) == "data" {
			binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
			binary.LittleEndian.PutUint32(b[i+4:], uint32(len(b)-i-8))
			return b
		}
		if size > len(b) {
			return b
		}
		i += 8 + size + size&1
	}
	return b
}

var errNoFFmpeg = errors.New("ffmpeg is not installed")

// cappedBuffer is a bytes.Buffer that refuses to grow past max.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		c.over = true
		return 0, io.ErrShortWrite
	}
	return c.Buffer.Write(p)
}
