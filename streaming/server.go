package streaming

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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
	// storeFault is told each JetStream store write error the server
	// reports (OnStoreFault).
	storeFault *atomic.Pointer[func(error)]
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
	storeFault := new(atomic.Pointer[func(error)])
	s.SetLogger(serverLogger{fatal, storeFault}, false, false)
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
	return &Embedded{Server: s, listening: o.Listen, auth: o.Auth, identity: identity, storeFault: storeFault}, nil
}

// serverLogger passes on the server's fatal complaints (a port in use,
// JetStream that cannot start) and its JetStream store's write errors, and
// drops the rest, as NoLog would. A full disk under --durable was silent
// before: the server logged the failed writes to no one, never answered
// the publishes it could not store, and the streams timed out.
type serverLogger struct {
	fatal      chan<- string
	storeFault *atomic.Pointer[func(error)]
}

func (l serverLogger) Fatalf(format string, v ...any) {
	select {
	case l.fatal <- fmt.Sprintf(format, v...):
	default: // the first is the one StartEmbedded reports
	}
}

func (l serverLogger) Errorf(format string, v ...any) { l.maybeStoreFault(format, v) }
func (l serverLogger) Warnf(format string, v ...any)  { l.maybeStoreFault(format, v) }
func (serverLogger) Noticef(string, ...any)           {}
func (serverLogger) Debugf(string, ...any)            {}
func (serverLogger) Tracef(string, ...any)            {}

// maybeStoreFault hands a line about the store failing to write to
// OnStoreFault's function.
func (l serverLogger) maybeStoreFault(format string, v []any) {
	f := l.storeFault.Load()
	if f == nil {
		return
	}
	if msg := fmt.Sprintf(format, v...); isStoreFault(msg) {
		(*f)(errors.New(msg))
	}
}

// isStoreFault reports whether a line of the server's log says that the
// JetStream store failed to write (nats-server's wordings: a file store's
// "critical write error", a stream that "failed to store a msg", a server
// "out of resources").
func isStoreFault(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "jetstream") && (strings.Contains(m, "write error") || strings.Contains(m, "failed to store") || strings.Contains(m, "out of resources")) ||
		strings.Contains(m, "filestore") && strings.Contains(m, "write error")
}

// OnStoreFault has f told, from the server's goroutines, of every write
// error of the JetStream store (nil: no one). serve counts them in the
// stages' storage errors and logs them (Stages.StoreFault).
func (e *Embedded) OnStoreFault(f func(error)) {
	if f == nil {
		e.storeFault.Store(nil)
		return
	}
	e.storeFault.Store(&f)
}

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
