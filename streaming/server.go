package streaming

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// EmbeddedOptions configure the in-process NATS server.
type EmbeddedOptions struct {
	// Listen makes the server accept TCP clients on 127.0.0.1:Port (0 picks
	// a free port); otherwise only in-process connections reach it.
	Listen bool
	Port   int
	// JetStream enables persistence under StoreDir.
	JetStream bool
	StoreDir  string
	// Auth, when set, is who may connect and what each may do (auth.go);
	// Connect then presents the stages' own identity.
	Auth *Auth
}

// Embedded is a NATS server running inside this process.
type Embedded struct {
	*server.Server
	listening bool
	auth      *Auth
	identity  nkeys.KeyPair // the stages' nkey when auth is set without a token
}

// StartEmbedded starts a NATS server inside this process. It listens on
// loopback only: a pipeline that should be reachable from other machines
// joins a real NATS deployment with --nats instead.
func StartEmbedded(o EmbeddedOptions) (*Embedded, error) {
	opts := &server.Options{
		Host:       "127.0.0.1",
		Port:       o.Port,
		NoLog:      true,
		NoSigs:     true,
		DontListen: !o.Listen,
		MaxPayload: 1 << 20,
		JetStream:  o.JetStream,
		StoreDir:   o.StoreDir,
	}
	if o.Listen && o.Port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	var identity nkeys.KeyPair
	if o.Auth != nil {
		var err error
		if identity, err = o.Auth.apply(opts); err != nil {
			return nil, err
		}
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("streaming: embedded server: %w", err)
	}
	// The server reports a port it cannot listen on only to its logger and
	// then never becomes ready; without this one, a busy port looked like a
	// server 10 s slow to start.
	fatal := make(chan string, 1)
	s.SetLogger(fatalLogger{fatal}, false, false)
	go s.Start()
	deadline := time.Now().Add(10 * time.Second)
	for !s.ReadyForConnections(20 * time.Millisecond) {
		select {
		case msg := <-fatal:
			s.Shutdown()
			return nil, fmt.Errorf("streaming: embedded server: %s", msg)
		default:
		}
		if time.Now().After(deadline) {
			s.Shutdown()
			return nil, errors.New("streaming: embedded server did not become ready in 10 s")
		}
	}
	if o.Auth != nil {
		if err := o.Auth.linkAccounts(s, o.JetStream); err != nil {
			s.Shutdown()
			return nil, fmt.Errorf("streaming: embedded server: accounts: %w", err)
		}
	}
	return &Embedded{Server: s, listening: o.Listen, auth: o.Auth, identity: identity}, nil
}

// fatalLogger passes on the server's fatal complaints (a port in use,
// JetStream that cannot start) and drops the rest, as NoLog would.
type fatalLogger struct{ fatal chan<- string }

func (l fatalLogger) Fatalf(format string, v ...any) {
	select {
	case l.fatal <- fmt.Sprintf(format, v...):
	default: // the first is the one StartEmbedded reports
	}
}
func (fatalLogger) Noticef(string, ...any) {}
func (fatalLogger) Warnf(string, ...any)   {}
func (fatalLogger) Errorf(string, ...any)  {}
func (fatalLogger) Debugf(string, ...any)  {}
func (fatalLogger) Tracef(string, ...any)  {}

// Confined reports whether the server confines clients to namespaces
// (Auth.Clients): the pipeline must then take voices only by subject
// (Pipeline.VoicesBySubject).
func (e *Embedded) Confined() bool { return e.auth.confines() }

// Connect opens a client connection with the stages' identity, in process
// when the server does not listen on a port.
func (e *Embedded) Connect(name string, opts ...nats.Option) (*nats.Conn, error) {
	opts = append([]nats.Option{nats.Name(name)}, opts...)
	switch {
	case e.identity != nil:
		pub, err := e.identity.PublicKey()
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Nkey(pub, e.identity.Sign))
	case e.auth != nil:
		opts = append(opts, nats.Token(e.auth.Token))
	}
	if !e.listening {
		return nats.Connect("", append(opts, nats.InProcessServer(e.Server))...)
	}
	return nats.Connect(e.ClientURL(), opts...)
}

// Close shuts the server down and waits for it.
func (e *Embedded) Close() {
	e.Shutdown()
	e.WaitForShutdown()
}
