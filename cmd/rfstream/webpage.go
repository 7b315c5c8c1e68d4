package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/streaming/web"
)

// webPage is the HTTP server of `rfstream serve --http`.
type webPage struct {
	URL     string
	VoskURL string // the Vosk-protocol WebSocket
	srv     *http.Server
}

// listenWebPage binds the page's address; an address without a host
// (":8080") binds loopback, so the microphone endpoint is reachable from
// elsewhere only when a host is named on purpose. serve calls it before
// anything slow starts, so a busy port fails at once, naming the address.
func listenWebPage(addr string) (net.Listener, error) {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	return ln, nil
}

// pageHosts are the names requests may give in their Host header: the
// listen address's host, the loopback names for a loopback address, and
// extra (--http-host). A page on every interface (0.0.0.0, ::) also takes
// any IP address and this machine's name. Any other name is refused: a
// page reached by a name an attacker's DNS points at this machine (DNS
// rebinding) would otherwise be same-origin with the attacker's page.
func pageHosts(addr string, ln net.Listener, extra []string) (hosts []string, anyIP bool) {
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	ip := ln.Addr().(*net.TCPAddr).IP
	hosts = append(hosts, ip.String())
	switch {
	case ip.IsLoopback():
		hosts = append(hosts, "127.0.0.1", "localhost", "::1")
	case ip.IsUnspecified():
		anyIP = true
		hosts = append(hosts, "localhost")
		if name, err := os.Hostname(); err == nil {
			hosts = append(hosts, name)
		}
	}
	for _, h := range extra {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts, anyIP
}

// startWebPage serves the page on ln, which listenWebPage bound for addr.
func startWebPage(addr string, ln net.Listener, extraHosts []string, nc *nats.Conn, pipeline string, audio frontend.AudioConfig, learnsVoices bool, teach func(voice, word string, samples []float32, rate int) (int, error), sockets socketFlags, logw io.Writer) (*webPage, error) {
	hosts, anyIP := pageHosts(addr, ln, extraHosts)
	h, err := web.New(nc, web.Config{Pipeline: pipeline, Rate: audio.SampleRate, Audio: audio, LearnsVoices: learnsVoices, Teach: teach, Hosts: hosts, AnyIP: anyIP, Log: log.New(logw, "", log.LstdFlags),
		MaxSockets: sockets.max, SocketIdle: sockets.idle, SocketMaxSeconds: sockets.maxSeconds})
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(logw, "web page: %v\n", err)
		}
	}()
	return &webPage{URL: "http://" + ln.Addr().String() + "/", VoskURL: "ws://" + ln.Addr().String() + web.VoskPath, srv: srv}, nil
}

// socketFlags are serve's bounds on the page's WebSockets (web.Config).
type socketFlags struct {
	max        int
	idle       time.Duration
	maxSeconds float64
}

func (f *socketFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.max, "max-sockets", web.DefaultMaxSockets, "with --http: WebSockets open at once, the page's and the Vosk endpoint's together; one more is refused with HTTP 503 and the reason")
	fs.DurationVar(&f.idle, "socket-idle", web.DefaultSocketIdle, "with --http: close a WebSocket that sends no message for this long (close code 1008, the reason)")
	fs.Float64Var(&f.maxSeconds, "socket-max-seconds", web.DefaultSocketMaxSeconds, "with --http: seconds of audio one WebSocket may carry; the stream ends there with its result and the socket closes (code 1009, the reason); a socket is also closed once open twice this long")
}

func (f socketFlags) check() error {
	switch {
	case f.max < 1:
		return fmt.Errorf("--max-sockets %d: want at least 1", f.max)
	case f.idle <= 0:
		return fmt.Errorf("--socket-idle %v: want a positive duration, e.g. 30s", f.idle)
	case !(f.maxSeconds > 0):
		return fmt.Errorf("--socket-max-seconds %g: want a positive number of seconds", f.maxSeconds)
	}
	return nil
}

// Close stops accepting requests and gives open ones a moment to finish.
func (p *webPage) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if p.srv.Shutdown(ctx) != nil {
		p.srv.Close()
	}
}
