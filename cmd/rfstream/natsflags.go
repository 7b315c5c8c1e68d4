package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/streaming"
)

// natsFlags choose where the pipeline's subjects live: an embedded
// server (the default) or an existing NATS deployment, with its
// credentials.
type natsFlags struct {
	url            string
	pipeline       string
	user, password string
	token          string
	nkeySeed       string
	tlsCA, tlsCert string
	tlsKey         string
	port           int
	durable        bool
	storeDir       string
}

func (f *natsFlags) register(fs *flag.FlagSet, serve bool) {
	fs.StringVar(&f.url, "nats", "", "join this NATS server or cluster (nats://host:4222,…) instead of starting an embedded one")
	fs.StringVar(&f.pipeline, "pipeline", "rfs", "pipeline name: the subjects are rfs.v1.<pipeline>.*")
	fs.StringVar(&f.user, "user", "", "NATS user name (with --password)")
	fs.StringVar(&f.password, "password", "", "NATS password ($RFSTREAM_NATS_PASSWORD)")
	fs.StringVar(&f.token, "token", "", "NATS token ($RFSTREAM_NATS_TOKEN)")
	fs.StringVar(&f.nkeySeed, "nkey-seed", "", "file holding an NKey seed to authenticate with")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "CA certificate (PEM) to verify the server")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "client certificate (PEM) for mutual TLS")
	fs.StringVar(&f.tlsKey, "tls-key", "", "client key (PEM) for mutual TLS")
	fs.BoolVar(&f.durable, "durable", false, "store the pipeline's subjects in JetStream; workers ack after publishing, so a killed worker loses nothing (docs/streaming.md)")
	if serve {
		fs.IntVar(&f.port, "port", 4222, "embedded server: the loopback port other processes connect to (0: any free port)")
		fs.StringVar(&f.storeDir, "store", "", "embedded server with --durable: JetStream directory (default: $RFSTREAM_DATA/jetstream)")
	}
}

// checkTLS refuses TLS flags that do not make a whole: a key alone (or a
// certificate alone) was once silently ignored, and the client then
// connected without the mutual TLS it was asked for.
func (f *natsFlags) checkTLS() error {
	switch {
	case f.tlsKey != "" && f.tlsCert == "":
		return errors.New("--tls-key needs --tls-cert: the key is for a client certificate")
	case f.tlsCert != "" && f.tlsKey == "":
		return errors.New("--tls-cert needs --tls-key: a client certificate is presented with its key")
	case (f.tlsCA != "" || f.tlsCert != "") && f.url == "":
		return errors.New("--tls-ca, --tls-cert and --tls-key are for --nats (a tls:// server); the embedded server is loopback-only and plain")
	}
	return nil
}

// options turns the credential flags into client options.
func (f *natsFlags) options(name string) ([]nats.Option, error) {
	if err := f.checkTLS(); err != nil {
		return nil, err
	}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	if f.password == "" {
		f.password = os.Getenv("RFSTREAM_NATS_PASSWORD")
	}
	if f.token == "" {
		f.token = os.Getenv("RFSTREAM_NATS_TOKEN")
	}
	if f.user != "" {
		opts = append(opts, nats.UserInfo(f.user, f.password))
	}
	if f.token != "" {
		opts = append(opts, nats.Token(f.token))
	}
	if f.nkeySeed != "" {
		o, err := nats.NkeyOptionFromSeed(f.nkeySeed)
		if err != nil {
			return nil, fmt.Errorf("--nkey-seed: %w", err)
		}
		opts = append(opts, o)
	}
	if f.tlsCA != "" || f.tlsCert != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if f.tlsCA != "" {
			pem, err := os.ReadFile(f.tlsCA)
			if err != nil {
				return nil, err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--tls-ca %s holds no PEM certificate", f.tlsCA)
			}
			cfg.RootCAs = pool
		}
		if f.tlsCert != "" {
			cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
			if err != nil {
				return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		opts = append(opts, nats.Secure(cfg))
	}
	return opts, nil
}

// session is a connection to the pipeline's NATS, with the embedded
// server when there is one.
type session struct {
	nc       *nats.Conn
	embedded *streaming.Embedded
	tmpStore string // removed on Close
}

func (s *session) Close() {
	if s.nc != nil {
		s.nc.Drain()
		s.nc.Close()
	}
	if s.embedded != nil {
		s.embedded.Close()
	}
	if s.tmpStore != "" {
		os.RemoveAll(s.tmpStore)
	}
}

// connect joins --nats, or starts an embedded server (listening on
// loopback when listen is set, else reachable only in process).
func (f *natsFlags) connect(name string, listen bool, log io.Writer) (*session, error) {
	if err := streaming.CheckName("pipeline", f.pipeline); err != nil {
		return nil, err
	}
	opts, err := f.options(name)
	if err != nil {
		return nil, err
	}
	if f.url != "" {
		nc, err := nats.Connect(f.url, opts...)
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", f.url, err)
		}
		return &session{nc: nc}, nil
	}
	if f.user != "" || f.token != "" || f.nkeySeed != "" || f.tlsCA != "" {
		return nil, errors.New("credentials are for --nats; the embedded server is loopback-only and open to this machine")
	}
	eo := streaming.EmbeddedOptions{Listen: listen, Port: f.port, JetStream: f.durable, StoreDir: f.storeDir}
	tmp := ""
	if f.durable && eo.StoreDir == "" {
		if listen {
			// A serving process keeps its store across restarts.
			eo.StoreDir = filepath.Join(cli.DataDir(), "jetstream")
		} else {
			// A one-shot client with its own server stores only for its run.
			if tmp, err = os.MkdirTemp("", "rfstream-js-"); err != nil {
				return nil, err
			}
			eo.StoreDir = tmp
		}
	}
	e, err := streaming.StartEmbedded(eo)
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, err
	}
	nc, err := e.Connect(name)
	if err != nil {
		e.Close()
		return nil, err
	}
	if listen {
		fmt.Fprintf(log, "embedded NATS server on %s (loopback only)\n", e.ClientURL())
	}
	if f.durable {
		fmt.Fprintf(log, "JetStream store in %s\n", eo.StoreDir)
	}
	return &session{nc: nc, embedded: e, tmpStore: tmp}, nil
}

// another opens one more connection to the session's server: the embedded
// one, or --nats with the same credentials.
func (f *natsFlags) another(sess *session, name string) (*nats.Conn, error) {
	if sess.embedded != nil {
		return sess.embedded.Connect(name)
	}
	opts, err := f.options(name)
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(f.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", f.url, err)
	}
	return nc, nil
}
