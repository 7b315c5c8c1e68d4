package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/vosk"
	"github.com/rfstream/rfstream/streaming"
)

// VoskPath is where the server speaks the Vosk server's WebSocket
// protocol, so a client written for Vosk recognises through the same
// pipeline as the page: ws://HOST:PORT/vosk.
const VoskPath = "/vosk"

// voskReadLimit bounds one message on the Vosk socket. Vosk clients send
// chunks of their own size (the Node example sends a file in 64 KiB
// reads); a chunk larger than the pipeline's message bound goes on in
// several messages.
const voskReadLimit = 4 * streaming.MaxChunkBytes

// vosk serves one stream in the Vosk protocol: an optional first text
// message {"config": {"sample_rate": N, ...}} (default: Config.Rate),
// then binary s16le mono PCM chunks (the first may start with a WAV
// header, which gives the rate and is skipped), each answered by one
// message, a
// {"result": [...], "text": ...} when utterances closed since the last
// answer, else the open utterance's {"partial": ...}; {"eof" : 1} ends the
// stream, is answered by the final result, and the socket closes.
// {"reset" : 1} is answered with the words closed so far (the pipeline's
// endpointer decides where utterances end; a reset cannot cut one).
func (s *Server) vosk(w http.ResponseWriter, r *http.Request) {
	k := s.accept(w, r, voskReadLimit)
	if k == nil {
		return
	}
	defer k.done()
	c := k.c
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st, err := s.openStream("vosk-", "", s.cfg.Rate)
	if err != nil {
		c.Close(websocket.StatusInternalError, "pipeline unavailable")
		return
	}
	defer st.close()
	v := &voskStream{srv: s, c: c, st: st, eos: make(chan struct{})}
	go v.collect(ctx)
	code, reason, err := v.read(ctx, k)
	if err != nil {
		return // the socket is closed, with its reason where there is one
	}
	if err := v.finish(ctx); err != nil {
		s.cfg.Log.Printf("web: vosk stream %s: %v", st.name, err)
		c.Close(websocket.StatusInternalError, "no end-of-stream result")
		return
	}
	c.Close(code, reason)
}

// voskStream is one Vosk socket's state: its pipeline stream and the
// transcript its results build.
type voskStream struct {
	srv     *Server
	c       *websocket.Conn
	st      *pipeStream
	mu      sync.Mutex // guards tr: results come in on their own goroutine
	tr      vosk.Transcript
	eos     chan struct{} // closed at the end-of-stream result
	started bool          // audio has been sent: the rate is fixed
	odd     []byte        // a chunk's odd last byte, the first of the next sample
}

// read takes the client's messages until {"eof" : 1} or the socket's
// audio bound, and says how the socket is to close after the final
// result. An error means the socket is already closed.
func (v *voskStream) read(ctx context.Context, k *socket) (websocket.StatusCode, string, error) {
	for {
		typ, data, err := k.read(ctx)
		if err != nil {
			return 0, "", err
		}
		if typ == websocket.MessageText {
			ctl, err := vosk.ParseControl(data)
			if err == nil {
				err = v.configure(ctl)
			}
			switch {
			case err != nil:
				v.c.Close(websocket.StatusUnsupportedData, closeReason(err))
				return 0, "", err
			case ctl.EOF:
				return websocket.StatusNormalClosure, "", nil
			case ctl.Reset:
				if err := v.answer(ctx, v.final()); err != nil {
					return 0, "", err
				}
			}
			continue
		}
		if !v.started {
			if data, err = v.skipWAVHeader(data); err != nil {
				v.c.Close(websocket.StatusUnsupportedData, closeReason(err))
				return 0, "", err
			}
		}
		pcm := append(v.odd, data...)
		even := len(pcm) &^ 1
		if err := k.admitAudio(ctx, even, v.st.rate); err != nil {
			if ctx.Err() != nil {
				return 0, "", err
			}
			// Past a bound the stream ends: the audio so far keeps its
			// result, then the socket closes saying why.
			code, reason := k.closeFor(err)
			return code, reason, nil
		}
		v.started = true
		if err := v.st.send(pcm[:even]); err != nil {
			v.c.Close(websocket.StatusInternalError, "pipeline unavailable")
			return 0, "", err
		}
		v.odd = append([]byte(nil), pcm[even:]...)
		v.mu.Lock()
		next := v.tr.Next()
		v.mu.Unlock()
		if err := v.answer(ctx, next); err != nil {
			return 0, "", err
		}
	}
}

// configure applies a configuration: the rate only before any audio (as
// Vosk's server fixes it with its recogniser), the word list at any time.
func (v *voskStream) configure(ctl vosk.Control) error {
	if ctl.Config == nil {
		return nil
	}
	if rate := ctl.Config.SampleRate; rate != 0 && !v.started {
		if rate < minRate || rate > maxRate {
			return fmt.Errorf("sample_rate %d: want %d-%d Hz", rate, minRate, maxRate)
		}
		v.st.rate = rate
	}
	if voice := ctl.Config.Voice; voice != "" {
		if v.started {
			return errors.New("voice: name the voice before any audio")
		}
		if err := streaming.CheckName("voice", voice); err != nil {
			return err
		}
		if err := v.st.nameVoice(v.srv.cfg.Pipeline, voice); err != nil {
			return err
		}
	}
	v.mu.Lock()
	v.tr.NoWords = !ctl.Config.Words
	v.mu.Unlock()
	return nil
}

// skipWAVHeader takes a WAV header off the stream's first chunk, as
// Vosk's Node example sends the file as it is read: the header's rate is
// the stream's (it describes the samples, whatever a configuration said).
// A chunk without a header is returned as it is.
func (v *voskStream) skipWAVHeader(chunk []byte) ([]byte, error) {
	rate, data, ok, err := vosk.WAVHeader(chunk)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		if what := compressedFile(chunk); what != "" {
			// Vosk would take these bytes for samples and hear noise.
			return nil, fmt.Errorf("the audio is %s; send 16-bit mono PCM, e.g. ffmpeg -i IN -ac 1 -ar 16000 -f s16le -", what)
		}
		return chunk, nil
	case rate < minRate || rate > maxRate:
		return nil, fmt.Errorf("WAV header: sample rate %d: want %d-%d Hz", rate, minRate, maxRate)
	}
	v.st.rate = rate
	return chunk[data:], nil
}

// compressedFile names the audio file chunk starts with, if its first
// bytes say so beyond doubt; "" otherwise. An MP3 frame header without an
// ID3 tag before it is not taken as proof: two bytes of PCM can look
// like one.
func compressedFile(chunk []byte) string {
	what := frontend.FormatName(chunk)
	if what == "MP3" && !bytes.HasPrefix(chunk, []byte("ID3")) || what == "WAV" {
		return ""
	}
	return what
}

// collect feeds the stream's results to the transcript until its
// end-of-stream result.
func (v *voskStream) collect(ctx context.Context) {
	for {
		var m *nats.Msg
		select {
		case <-ctx.Done():
			return
		case m = <-v.st.results:
		}
		var res engine.Result
		if json.Unmarshal(m.Data, &res) != nil {
			continue
		}
		if res.Error != "" {
			v.srv.cfg.Log.Printf("web: vosk stream %s: the pipeline reports: %s", v.st.name, res.Error)
		}
		v.mu.Lock()
		v.tr.Add(res)
		v.mu.Unlock()
		if res.EOS {
			close(v.eos)
			return
		}
	}
}

// finish ends the stream, waits for its end-of-stream result and sends
// the final result.
func (v *voskStream) finish(ctx context.Context) error {
	if err := v.st.end(); err != nil {
		return err
	}
	select {
	case <-v.eos:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(v.srv.cfg.Timeout):
		return fmt.Errorf("no end-of-stream result within %v", v.srv.cfg.Timeout)
	}
	return v.answer(ctx, v.final())
}

func (v *voskStream) final() vosk.Result {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.tr.Final()
}

// answer sends one message to the client.
func (v *voskStream) answer(ctx context.Context, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, v.srv.cfg.Timeout)
	defer cancel()
	return v.c.Write(wctx, websocket.MessageText, b)
}

// closeReason fits an error into a close frame's 123 bytes.
func closeReason(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = strings.ToValidUTF8(s[:120], "")
	}
	return s
}
