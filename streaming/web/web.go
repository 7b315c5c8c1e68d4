package web

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/streaming"
)

//go:embed static
var static embed.FS

// Config describes the pipeline the page talks to.
type Config struct {
	Pipeline string // pipeline name on NATS
	// Rate is the sample rate the page resamples the microphone to: the
	// word model's rate (default 8000 Hz). The frontend stage resamples
	// any other rate, so this only saves bandwidth and keeps the browser's
	// resampling in one place.
	Rate int
	// Audio is the speech model's frontend: /ws/audio?frames=1 sends the
	// page its log-mel frames of the microphone (frames.go). Zero: the
	// model is unknown here and no frames are offered.
	Audio frontend.AudioConfig
	// LearnsVoices says that the audio model follows a voice across the
	// recordings that name it (a voice-normalised word model: the page
	// names one voice per browser, and says so when this is set).
	LearnsVoices bool
	// Timeout bounds how long a request waits for the pipeline (default 30 s).
	Timeout time.Duration
	// Log receives one line per refused request (default: discarded).
	Log *log.Logger
	// Hosts are the host names (without port) a request's Host header may
	// give; any other gets 403, so a page reached through a name an
	// attacker's DNS points at this machine (DNS rebinding) is refused.
	// Default: the loopback names 127.0.0.1, localhost and ::1.
	Hosts []string
	// AnyIP also takes a Host that is an IP address, for a page that
	// listens on every interface: an address cannot be rebound.
	AnyIP bool
	// MaxSockets bounds the WebSockets open at once, the page's and the
	// Vosk endpoint's together; one more is refused with 503 (default
	// DefaultMaxSockets).
	MaxSockets int
	// SocketIdle closes a WebSocket that sends no message for this long,
	// with the reason (default DefaultSocketIdle).
	SocketIdle time.Duration
	// Teach, when set, teaches the voice named voice that samples (mono,
	// at rate Hz) are the word, and says how many words the voice holds
	// (POST /api/teach, the page's "Teach my voice"); an error says why the
	// recording was not learnt. Nil: the page cannot teach.
	Teach func(voice, word string, samples []float32, rate int) (int, error)
	// SocketMaxSeconds bounds the audio one WebSocket may carry, in
	// seconds at its rate: the stream ends there, its final result is
	// sent and the socket closes with the reason (default
	// DefaultSocketMaxSeconds).
	SocketMaxSeconds float64
	// SocketPoolBytes and SocketPoolBurst pace the audio of all
	// WebSockets together beyond each one's real time (pace.go): bytes
	// a second, and at once (defaults DefaultSocketPoolBytes,
	// DefaultSocketPoolBurst).
	SocketPoolBytes, SocketPoolBurst int
}

// Server is an http.Handler for the page, its assets and its endpoints:
// GET /ws/audio (WebSocket), GET /vosk (WebSocket, the Vosk server's
// protocol), POST /api/tag, POST /api/recognize (an audio file),
// POST /api/teach and POST /api/forget-voice.
type Server struct {
	nc      *nats.Conn
	cfg     Config
	mux     *http.ServeMux
	sockets *sockets
	pool    *pool         // the sockets' shared pace (pace.go)
	tags    *shares       // each address's images at the tagger (tagshare.go)
	uploads *uploadShares // the recordings being heard (upload.go)
	// uploadRead bounds the time a posted recording takes to arrive
	// (uploadReadTime; tests shorten it).
	uploadRead time.Duration
}

// New returns the page's handler, publishing through nc.
func New(nc *nats.Conn, cfg Config) (*Server, error) {
	if err := streaming.CheckName("pipeline", cfg.Pipeline); err != nil {
		return nil, err
	}
	if cfg.Rate <= 0 {
		cfg.Rate = 8000
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	if len(cfg.Hosts) == 0 {
		cfg.Hosts = []string{"127.0.0.1", "localhost", "::1"}
	}
	if cfg.MaxSockets <= 0 {
		cfg.MaxSockets = DefaultMaxSockets
	}
	if cfg.SocketIdle <= 0 {
		cfg.SocketIdle = DefaultSocketIdle
	}
	if cfg.SocketMaxSeconds <= 0 {
		cfg.SocketMaxSeconds = DefaultSocketMaxSeconds
	}
	if cfg.SocketPoolBytes <= 0 {
		cfg.SocketPoolBytes = DefaultSocketPoolBytes
	}
	if cfg.SocketPoolBurst <= 0 {
		cfg.SocketPoolBurst = DefaultSocketPoolBurst
	}
	s := &Server{nc: nc, cfg: cfg, mux: http.NewServeMux(), tags: newShares(tagsPerHost), uploads: newUploadShares(), uploadRead: uploadReadTime, sockets: newSockets(cfg.MaxSockets), pool: newPool(cfg.SocketPoolBytes, cfg.SocketPoolBurst)}
	assets, _ := fs.Sub(static, "static")
	s.mux.Handle("GET /", http.FileServerFS(assets))
	s.mux.HandleFunc("GET /api/config", s.config)
	s.mux.HandleFunc("GET /ws/audio", s.audio)
	s.mux.HandleFunc("GET "+VoskPath, s.vosk)
	s.mux.HandleFunc("POST /api/tag", s.tag)
	s.mux.HandleFunc("POST /api/recognize", s.recognize)
	s.mux.HandleFunc("POST /api/forget-voice", s.forgetVoice)
	s.mux.HandleFunc("POST /api/teach", s.teach)
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Nothing the page loads comes from elsewhere; say so to the browser.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if err := s.trusted(r); err != nil {
		s.cfg.Log.Printf("web: %s %s refused: %v", r.Method, r.URL.Path, err)
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// trusted checks a request's Host against Config.Hosts and, when it has
// an Origin, that the origin is the page's own: a browser sends a
// cross-site POST (a form, or fetch with a simple content type) without
// asking first, so without this check any site a visitor opens could tag
// images and forget voices through the visitor's loopback page.
func (s *Server) trusted(r *http.Request) error {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	known := slices.ContainsFunc(s.cfg.Hosts, func(h string) bool { return strings.EqualFold(h, host) })
	if !known && !(s.cfg.AnyIP && net.ParseIP(host) != nil) {
		return fmt.Errorf("host %q is not a name this page serves (serve --http-host adds names)", r.Host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil // not sent by a browser, or a same-origin GET
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if u, err := url.Parse(origin); err != nil || u.Scheme != scheme || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Errorf("cross-origin request from %q refused: this page answers only itself (%s://%s)", origin, scheme, r.Host)
	}
	return nil
}

func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"rate": s.cfg.Rate, "pipeline": s.cfg.Pipeline, "max_image_bytes": streaming.MaxImageBytes,
		"learns_voices": s.cfg.LearnsVoices, "frames": s.cfg.Audio.SampleRate > 0, "teaches": s.cfg.Teach != nil})
}

// streamName is a fresh stream token: a stream name may not be reused
// after its end-of-stream.
func streamName(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// forgetVoice asks the pipeline to forget the voice ?voice= names
// (streaming.ForgetVoice): 200 with {"forgotten":…}, 400 for a malformed
// name, 409 while a live stream names it, 502 when no frontend answers.
func (s *Server) forgetVoice(w http.ResponseWriter, r *http.Request) {
	voice := r.URL.Query().Get("voice")
	if err := streaming.CheckName("voice", voice); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	forgotten, err := streaming.ForgetVoice(ctx, s.nc, s.cfg.Pipeline, voice)
	switch {
	case err != nil && ctx.Err() != nil:
		http.Error(w, "the pipeline did not answer", http.StatusBadGateway)
	case err != nil:
		http.Error(w, err.Error(), http.StatusConflict)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]bool{"forgotten": forgotten})
	}
}

// maxTeachSeconds bounds a recording posted to /api/teach: one word.
const maxTeachSeconds = 10

// teach teaches the voice ?voice= that the posted recording (16-bit
// little-endian mono PCM at ?rate= Hz) is the word ?word= (Config.Teach):
// 200 with {"taught": words the voice holds}, 400 with the reason when the
// request or the recording is refused, 404 when the page cannot teach.
func (s *Server) teach(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Teach == nil {
		http.Error(w, "this server does not teach voices (serve --voices DIR with the connected model does)", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	voice, word := q.Get("voice"), q.Get("word")
	rate, err := strconv.Atoi(q.Get("rate"))
	if err == nil {
		err = streaming.CheckName("voice", voice)
	}
	if err == nil && (rate < minRate || rate > maxRate) {
		err = fmt.Errorf("rate %d: want %d-%d Hz", rate, minRate, maxRate)
	}
	var pcm []byte
	if err == nil {
		pcm, err = io.ReadAll(http.MaxBytesReader(w, r.Body, int64(2*maxTeachSeconds*rate)))
	}
	var samples []float32
	if err == nil {
		samples, err = streaming.DecodePCM(pcm[:len(pcm)&^1], streaming.EncS16)
	}
	var taught int
	if err == nil {
		taught, err = s.cfg.Teach(voice, word, samples, rate)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]int{"taught": taught})
}

// tag publishes one posted image and answers with its tags message.
func (s *Server) tag(w http.ResponseWriter, r *http.Request) {
	release, ok := s.tags.take(r.RemoteAddr)
	if !ok {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("this address has %d images being tagged already; send the next when one is answered", tagsPerHost), http.StatusTooManyRequests)
		return
	}
	defer release()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, streaming.MaxImageBytes))
	if err != nil {
		s.cfg.Log.Printf("web: image refused: %v", err)
		http.Error(w, fmt.Sprintf("image larger than %d bytes", streaming.MaxImageBytes), http.StatusRequestEntityTooLarge)
		return
	}
	if len(body) == 0 {
		http.Error(w, "empty image", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	replies, err := streaming.TagImages(ctx, s.nc, s.cfg.Pipeline, streamName("webimg-"), [][]byte{body}, false, s.cfg.Timeout)
	if err != nil {
		s.cfg.Log.Printf("web: tagging: %v", err)
		http.Error(w, err.Error(), http.StatusGatewayTimeout)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(replies[0])
}

// audio bridges one recording: binary WebSocket messages are s16le PCM
// chunks at ?rate=, the text message "end" closes the stream, and every
// result of the stream goes back as one JSON text message. The socket
// closes after the end-of-stream result. ?voice= names the voice speaking
// (its audio goes to streaming.VoiceSubject). ?frames=1 also sends the
// stream's log-mel frames as binary messages (frames.go).
func (s *Server) audio(w http.ResponseWriter, r *http.Request) {
	rate, err := strconv.Atoi(r.URL.Query().Get("rate"))
	if err != nil || rate < minRate || rate > maxRate {
		http.Error(w, fmt.Sprintf("rate must be a sample rate in Hz (%d-%d)", minRate, maxRate), http.StatusBadRequest)
		return
	}
	voice := r.URL.Query().Get("voice")
	if voice != "" {
		if err := streaming.CheckName("voice", voice); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	var sender *frameSender
	if r.URL.Query().Get("frames") == "1" {
		if sender, err = s.frameSender(rate); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	k := s.accept(w, r, streaming.MaxChunkBytes)
	if k == nil {
		return
	}
	defer k.done()
	c := k.c
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st, err := s.openStream("web-", voice, rate)
	if err != nil {
		c.Close(websocket.StatusInternalError, "pipeline unavailable")
		return
	}
	defer st.close()
	// Results flow back while audio flows in.
	done := make(chan error, 1)
	go func() { done <- s.forward(ctx, c, st.results) }()
	var frames *frameStream
	if sender != nil {
		frames = startFrames(sender, func(m []byte) error {
			wctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
			defer cancel()
			return c.Write(wctx, websocket.MessageBinary, m)
		})
		defer frames.close()
	}
	code, reason := websocket.StatusNormalClosure, ""
	for !st.ended {
		typ, data, err := k.read(ctx)
		if err != nil {
			return
		}
		switch {
		case typ == websocket.MessageBinary && len(data)%2 != 0:
			c.Close(websocket.StatusUnsupportedData, "PCM chunks are 16-bit samples")
			return
		case typ == websocket.MessageBinary:
			if err = k.admitAudio(ctx, len(data), rate); err != nil {
				if ctx.Err() != nil {
					return
				}
				// Past a bound the stream ends: the audio so far keeps
				// its result, then the socket closes saying why.
				code, reason = k.closeFor(err)
				err = st.end()
				break
			}
			err = st.send(data)
			if frames != nil {
				pcm, _ := streaming.DecodePCM(data, streaming.EncS16) // even length: cannot fail
				frames.push(pcm)
			}
		case string(data) == "end":
			err = st.end()
			if frames != nil {
				frames.end()
			}
		default:
			c.Close(websocket.StatusUnsupportedData, `text messages: only "end"`)
			return
		}
		if err != nil {
			c.Close(websocket.StatusInternalError, "pipeline unavailable")
			return
		}
	}
	// Wait for the end-of-stream result, then close.
	select {
	case err = <-done:
	case <-time.After(s.cfg.Timeout):
		err = fmt.Errorf("no end-of-stream result within %v", s.cfg.Timeout)
	}
	if err != nil {
		s.cfg.Log.Printf("web: stream %s: %v", st.name, err)
		c.Close(websocket.StatusInternalError, "no end-of-stream result")
		return
	}
	c.Close(code, reason)
}

// The sample rates the audio endpoints take, in Hz.
const minRate, maxRate = 1000, 768000

// forward sends a stream's results to the browser until its end-of-stream
// result.
func (s *Server) forward(ctx context.Context, c *websocket.Conn, results chan *nats.Msg) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-results:
			var res engine.Result
			if json.Unmarshal(m.Data, &res) != nil {
				continue
			}
			wctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
			err := c.Write(wctx, websocket.MessageText, m.Data)
			cancel()
			if err != nil {
				return err
			}
			if res.EOS {
				return nil
			}
		}
	}
}
