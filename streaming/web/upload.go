package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/streaming"
)

// Bounds of a recording posted to /api/recognize. A file is held whole
// while it is decoded, so both its bytes and its decoded samples are
// bounded, and only a few are decoded at once: the worst case is
// maxUploads × (MaxUploadBytes + 4 B × MaxUploadSamples) and what the
// pipeline holds of them (cmd/rfstream hostile_test.go measures it).
const (
	// MaxUploadBytes bounds the posted file: an hour of 32 kbit/s MP3, or
	// 17 minutes of 8 kHz 16-bit WAV.
	MaxUploadBytes = 16 << 20
	// MaxUploadSamples bounds its decoded length, whatever its rate: 17
	// minutes at 8 kHz, 2.9 at 48 kHz (the page's audio is also bounded by
	// Config.SocketMaxSeconds).
	MaxUploadSamples = 1 << 23
	// maxUploads is how many files are decoded and heard at once, all
	// addresses together; uploadsPerHost of them from one address.
	maxUploads     = 2
	uploadsPerHost = 1
	// uploadReadTime is how long a posted recording may take to arrive
	// (Server.uploadRead): 16 MiB at 560 KB/s.
	uploadReadTime = 30 * time.Second
)

// uploadShares bounds the recordings being heard: per address and in all.
type uploadShares struct {
	perHost *shares
	all     chan struct{}
}

func newUploadShares() *uploadShares {
	return &uploadShares{perHost: newShares(uploadsPerHost), all: make(chan struct{}, maxUploads)}
}

// recognize hears one posted audio file (any format frontend.DecodeAudio
// reads, told apart by its first bytes, never its name) through the
// pipeline as a stream of its own, as the page's microphone is heard, and
// answers with the end-of-stream result: the recording's words.
// ?voice= names the voice speaking, as on /ws/audio. Refused with the
// reason: 400 (empty, malformed or truncated), 413 (over the bounds), 415
// (a format not decoded here, with the command that converts it), 408 (the
// body took longer than uploadReadTime to arrive), 429 (the
// address has a file being heard), 503 (maxUploads being heard, or the
// audio pool too far behind), 504 (no answer from the pipeline).
func (s *Server) recognize(w http.ResponseWriter, r *http.Request) {
	voice := r.URL.Query().Get("voice")
	if voice != "" {
		if err := streaming.CheckName("voice", voice); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	release, ok := s.uploads.perHost.take(r.RemoteAddr)
	if !ok {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "this address has a recording being heard already; send the next when it is answered", http.StatusTooManyRequests)
		return
	}
	defer release()
	select {
	case s.uploads.all <- struct{}{}:
		defer func() { <-s.uploads.all }()
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("%d recordings are being heard; try again in a moment", maxUploads), http.StatusServiceUnavailable)
		return
	}
	// A slot is held while the body arrives: a sender that drips it is cut
	// off, so it cannot hold one of the few for long.
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.uploadRead))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxUploadBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("recording larger than %d bytes", MaxUploadBytes), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		s.cfg.Log.Printf("web: recording refused: %v", err)
		http.Error(w, fmt.Sprintf("the recording did not arrive within %v: %v", s.uploadRead, err), http.StatusRequestTimeout)
		return
	}
	if len(body) == 0 {
		http.Error(w, "empty recording", http.StatusBadRequest)
		return
	}
	a, err := frontend.DecodeAudioWithin(body, s.cfg.SocketMaxSeconds, MaxUploadSamples)
	body = nil // the samples are all that is kept while the pipeline hears them
	if err != nil {
		s.cfg.Log.Printf("web: recording refused: %v", err)
		http.Error(w, err.Error(), uploadStatus(err))
		return
	}
	res, err := s.hear(r.Context(), a, voice)
	switch {
	case errors.Is(err, errTooFast):
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("this server is taking audio as fast as it can (%.0f KiB/s beyond real time, all clients); try again later", s.pool.b.rate/1024), http.StatusServiceUnavailable)
	case err != nil:
		s.cfg.Log.Printf("web: hearing a recording: %v", err)
		http.Error(w, err.Error(), http.StatusGatewayTimeout)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(res)
	}
}

// uploadChunkSeconds is the audio in each message of a posted recording.
const uploadChunkSeconds = 1

// hear sends a recording through the pipeline as a stream of its own and
// returns its end-of-stream result. Its audio draws on the pool the
// WebSockets share (pace.go), so files cannot flood the pipeline's NATS
// clients where sockets may not; a pool further behind than maxPaceWait
// ends the stream and returns errTooFast.
func (s *Server) hear(ctx context.Context, a *frontend.Audio, voice string) (engine.Result, error) {
	st, err := s.openStream("webfile-", voice, a.Rate)
	if err != nil {
		return engine.Result{}, err
	}
	defer st.close()
	eos := make(chan engine.Result, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-st.results:
				var res engine.Result
				if json.Unmarshal(m.Data, &res) == nil && res.EOS {
					eos <- res
					return
				}
			}
		}
	}()
	chunk := uploadChunkSeconds * a.Rate
	for off := 0; off < len(a.Samples); off += chunk {
		pcm, err := streaming.EncodePCM(a.Samples[off:min(off+chunk, len(a.Samples))], streaming.EncS16)
		if err != nil {
			return engine.Result{}, err
		}
		if err := s.pool.await(ctx, len(pcm)); err != nil {
			return engine.Result{}, err
		}
		if err := st.send(pcm); err != nil {
			return engine.Result{}, err
		}
	}
	if err := st.end(); err != nil {
		return engine.Result{}, err
	}
	select {
	case res := <-eos:
		return res, nil
	case <-time.After(s.cfg.Timeout):
		return engine.Result{}, fmt.Errorf("no end-of-stream result within %v", s.cfg.Timeout)
	case <-ctx.Done():
		return engine.Result{}, ctx.Err()
	}
}

// uploadStatus is the HTTP status of a recording the decoders refused.
func uploadStatus(err error) int {
	switch {
	case errors.Is(err, frontend.ErrTooLong):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, frontend.ErrUnsupported), errors.Is(err, frontend.ErrUnknownFormat):
		return http.StatusUnsupportedMediaType
	default:
		return http.StatusBadRequest
	}
}
