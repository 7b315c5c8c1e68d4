package web

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/rfstream/rfstream/frontend"
)

// The page draws its level meter and spectrogram from the frontend's own
// log-mel frames, computed here from the PCM the socket bridges, so what a
// person sees is what the model hears (after the same resampling,
// pre-emphasis, window and filterbank), not the browser's idea of it.
//
// A frames message is one binary WebSocket message, server to page:
//
//	byte 0      FramesKind (1)
//	byte 1      B, mel bands per frame (1..255)
//	bytes 2-3   n, frames in this message (uint16 LE, 1..FramesPerMessage)
//	bytes 4-7   index of the first frame in the stream (uint32 LE)
//	bytes 8-11  FramesLow as float32 LE
//	bytes 12-15 FramesStep as float32 LE
//	then n rows of 1+B bytes: the frame's log energy, then its B log-mel
//	bands from the lowest; each byte q stands for FramesLow + q·FramesStep
//	(natural-log units, clamped to 0..255).
const (
	FramesKind       = 1
	FramesHeader     = 16
	FramesPerMessage = 5     // 50 ms of 10 ms frames: 20 messages a second of audio (and the stream's first, early)
	FramesLow        = -20.0 // ln units: below anything but digital silence
	FramesStep       = 0.125 // ≈ 0.54 dB a step; 255 steps reach +11.9, above a full-scale tone
	// framesQueue bounds the messages waiting for a slow page; past it new
	// ones are dropped (the page sees the gap in the frame indices) rather
	// than hold up the audio.
	framesQueue = 32
)

// frameSender turns one socket's PCM into frames messages.
type frameSender struct {
	rs    *frontend.Resampler // nil when the PCM is at the model's rate
	ext   *frontend.Extractor
	bands int
	next  uint32 // index of the next frame to send
	rows  []byte // quantised frames not yet sent, 1+bands bytes each
	buf   []float32
}

// logMelOf is the model's frontend reduced to its log-mel stage: no
// cepstra, deltas, CMVN or splicing, which are not pictures of sound.
// frontend.LogMel computes the same frames for a whole signal.
func logMelOf(audio frontend.AudioConfig) frontend.AudioConfig {
	audio.Ceps, audio.Deltas, audio.Splice, audio.CMVN = 0, 0, 0, "none"
	return audio
}

// newFrameSender starts the frames of a stream at rate Hz for a model
// whose frontend is audio.
func newFrameSender(audio frontend.AudioConfig, rate int) (*frameSender, error) {
	cfg := logMelOf(audio)
	if cfg.Mels > 255 {
		return nil, fmt.Errorf("web: %d mel bands do not fit a frames message", cfg.Mels)
	}
	ext, err := frontend.NewExtractor(cfg)
	if err != nil {
		return nil, err
	}
	f := &frameSender{ext: ext, bands: cfg.Mels}
	if rate != cfg.SampleRate {
		if f.rs, err = frontend.NewResampler(rate, cfg.SampleRate); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// push takes samples at the stream's rate and returns the messages whose
// frames are complete.
func (f *frameSender) push(pcm []float32) [][]byte {
	if f.rs != nil {
		f.buf = f.rs.Push(f.buf[:0], pcm)
		pcm = f.buf
	}
	f.ext.Push(pcm)
	f.take()
	return f.messages(false)
}

// flush ends the stream and returns the messages of the frames left.
func (f *frameSender) flush() [][]byte {
	if f.rs != nil {
		f.buf = f.rs.Flush(f.buf[:0])
		f.ext.Push(f.buf)
	}
	f.ext.Flush()
	f.take()
	return f.messages(true)
}

// take quantises the frames the extractor has completed.
func (f *frameSender) take() {
	g := f.ext.Pop()
	energy := f.ext.PopEnergy()
	for i := 0; i < g.Rows; i++ {
		f.rows = append(f.rows, quantise(energy[i]))
		for _, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
			f.rows = append(f.rows, quantise(float64(v)))
		}
	}
}

// messages cuts the held rows into messages of FramesPerMessage frames,
// and at the end one of what is left. The stream's first message goes as
// soon as a frame is complete, so the page's meter moves at once.
func (f *frameSender) messages(last bool) [][]byte {
	row := 1 + f.bands
	var out [][]byte
	for len(f.rows) >= FramesPerMessage*row || (len(f.rows) > 0 && (last || f.next == 0)) {
		n := min(FramesPerMessage, len(f.rows)/row)
		m := make([]byte, FramesHeader, FramesHeader+n*row)
		m[0], m[1] = FramesKind, byte(f.bands)
		binary.LittleEndian.PutUint16(m[2:], uint16(n))
		binary.LittleEndian.PutUint32(m[4:], f.next)
		binary.LittleEndian.PutUint32(m[8:], math.Float32bits(FramesLow))
		binary.LittleEndian.PutUint32(m[12:], math.Float32bits(FramesStep))
		out = append(out, append(m, f.rows[:n*row]...))
		f.rows = f.rows[n*row:]
		f.next += uint32(n)
	}
	if len(f.rows) == 0 {
		f.rows = nil // let a long stream's buffer go
	}
	return out
}

// quantise maps a natural-log value onto the message's byte scale.
func quantise(v float64) byte {
	q := math.Round((v - FramesLow) / FramesStep)
	return byte(math.Max(0, math.Min(255, q)))
}

// frameStream sends one socket's frames messages from a goroutine of its
// own, so a page slow to read them never holds up the audio: past
// framesQueue waiting messages, new ones are dropped.
type frameStream struct {
	send   *frameSender
	queue  chan []byte
	done   chan struct{}
	closed bool
}

// frameSender is the frames of a new stream at rate Hz, or why there can
// be none.
func (s *Server) frameSender(rate int) (*frameSender, error) {
	if s.cfg.Audio.SampleRate == 0 {
		return nil, fmt.Errorf("frames: this page does not know the speech model's frontend")
	}
	return newFrameSender(s.cfg.Audio, rate)
}

// startFrames sends send's messages; write sends one binary message (and
// fails once the socket is gone or its context is cancelled, after which
// the rest are dropped).
func startFrames(send *frameSender, write func([]byte) error) *frameStream {
	fs := &frameStream{send: send, queue: make(chan []byte, framesQueue), done: make(chan struct{})}
	go func() {
		defer close(fs.done)
		failed := false
		for m := range fs.queue {
			// After a failed write the rest are drained unsent.
			failed = failed || write(m) != nil
		}
	}()
	return fs
}

// push takes a chunk of samples at the stream's rate.
func (fs *frameStream) push(pcm []float32) { fs.enqueue(fs.send.push(pcm)) }

// end flushes the stream's last frames and waits until every message is
// written, so they reach the page before the socket closes.
func (fs *frameStream) end() {
	if fs.closed {
		return
	}
	fs.enqueue(fs.send.flush())
	fs.close()
	<-fs.done
}

// close stops the stream without its last frames (the socket is
// closing); the writer ends when its context does.
func (fs *frameStream) close() {
	if !fs.closed {
		fs.closed = true
		close(fs.queue)
	}
}

func (fs *frameStream) enqueue(ms [][]byte) {
	for _, m := range ms {
		select {
		case fs.queue <- m:
		default: // the page is behind: this picture is skipped
		}
	}
}
