package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/streaming/web"
)

// webPage is the HTTP server of `rfstream serve --http`.
type webPage struct {
	URL string
	srv *http.Server
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

// startWebPage serves the page on ln (listenWebPage).
func startWebPage(ln net.Listener, nc *nats.Conn, pipeline string, rate int, learnsVoices bool, logw io.Writer) (*webPage, error) {
	h, err := web.New(nc, web.Config{Pipeline: pipeline, Rate: rate, LearnsVoices: learnsVoices, Log: log.New(logw, "", log.LstdFlags)})
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(logw, "web page: %v\n", err)
		}
	}()
	return &webPage{URL: "http://" + ln.Addr().String() + "/", srv: srv}, nil
}

// Close stops accepting requests and gives open ones a moment to finish.
func (p *webPage) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if p.srv.Shutdown(ctx) != nil {
		p.srv.Close()
	}
}
