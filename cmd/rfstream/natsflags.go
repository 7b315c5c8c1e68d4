package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/localcreds"
	"github.com/rfstream/rfstream/streaming"
)

// natsFlags choose where the pipeline's subjects live: an embedded
// server (the default) or an existing NATS deployment, with its
// credentials. Each connection flag not on the command line comes from its
// environment variable (natsEnv), so a deployment names its server once
// and never puts a secret where ps shows it.
type natsFlags struct {
	url            string
	pipeline       string
	user, password string
	token          string
	nkey           string // a seed file
	creds          string // a JWT .creds file
	users          string // serve's embedded server: a clients file
	tlsCA, tlsCert string
	tlsKey         string
	port           int
	durable        bool
	storeDir       string
	open           bool // serve: --open-all-subjects

	fs      *flag.FlagSet // to tell flags given from defaults
	local   bool          // ignore $NATS_URL (embedded)
	serving bool          // serve: the embedded server takes the credentials
	// staleSeed: the local tools' seed found for the server's port was
	// refused by the server now there, so it is not presented again.
	staleSeed bool
}

// natsEnv names the environment variable that gives each connection flag
// when the command line does not. NATS_URL is the one the NATS tools read.
var natsEnv = map[string]string{
	"nats":     "NATS_URL",
	"user":     "RFSTREAM_NATS_USER",
	"password": "RFSTREAM_NATS_PASSWORD",
	"token":    "RFSTREAM_NATS_TOKEN",
	"nkey":     "RFSTREAM_NATS_NKEY",
	"creds":    "RFSTREAM_NATS_CREDS",
	"users":    "RFSTREAM_NATS_USERS",
	"tls-ca":   "RFSTREAM_NATS_TLS_CA",
	"tls-cert": "RFSTREAM_NATS_TLS_CERT",
	"tls-key":  "RFSTREAM_NATS_TLS_KEY",
}

func (f *natsFlags) register(fs *flag.FlagSet, serve bool) {
	f.fs = fs
	// The defaults stay empty and the variables are read after parsing:
	// -h must not print a password or a URL with credentials in it.
	fs.StringVar(&f.url, "nats", "", "join this NATS server or cluster (nats://host:4222,…) instead of starting an embedded one (default $NATS_URL; --nats '' starts the embedded one even when it is set)")
	fs.StringVar(&f.pipeline, "pipeline", "rfs", "pipeline name: the subjects are rfs.v1.<pipeline>.*")
	f.serving = serve
	embedded, embeddedKey := "", ""
	if serve {
		embedded = "; without --nats, the embedded server requires it"
		embeddedKey = "; without --nats, the embedded server requires its public key"
	}
	fs.StringVar(&f.user, "user", "", "NATS user name, with --password (default $RFSTREAM_NATS_USER)"+embedded)
	fs.StringVar(&f.password, "password", "", "NATS password (default $RFSTREAM_NATS_PASSWORD, which keeps it off the command line)")
	fs.StringVar(&f.token, "token", "", "NATS token (default $RFSTREAM_NATS_TOKEN, which keeps it off the command line)"+embedded)
	fs.StringVar(&f.nkey, "nkey", "", "file holding an nkey seed (S…) to authenticate with (default $RFSTREAM_NATS_NKEY)"+embeddedKey)
	fs.StringVar(&f.creds, "creds", "", "JWT user credentials file (.creds) for a --nats server in operator mode (default $RFSTREAM_NATS_CREDS)")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "CA certificate (PEM) to verify the server (default $RFSTREAM_NATS_TLS_CA)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "client certificate (PEM) for mutual TLS (default $RFSTREAM_NATS_TLS_CERT)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "client key (PEM) for mutual TLS (default $RFSTREAM_NATS_TLS_KEY)")
	fs.BoolVar(&f.durable, "durable", false, "store the pipeline's subjects in JetStream; workers ack after publishing, so a killed worker loses nothing (docs/streaming.md)")
	if serve {
		fs.IntVar(&f.port, "port", 4222, "embedded server: the loopback port other processes connect to (0: any free port)")
		fs.StringVar(&f.users, "users", "", "embedded server: a clients file (JSON) whose clients may publish only their own streams and read only their results (docs/streaming.md; default $RFSTREAM_NATS_USERS)")
		fs.BoolVar(&f.open, "open-all-subjects", false, "embedded server: let every local process connect without credentials and publish and read every subject, other clients' audio, results and replies included (by default such a process is a guest that can touch nothing of the pipeline, while rfstream's own commands find generated credentials in the data cache; docs/streaming.md)")
		fs.StringVar(&f.storeDir, "store", "", "embedded server with --durable: JetStream directory (default: jetstream/ in the data cache, $RFSTREAM_DATA or ~/.cache/rfstream)")
	}
}

// checkTLS refuses TLS flags that do not make a whole: a key alone (or a
// certificate alone) was once silently ignored, and the client then
// connected without the mutual TLS it was asked for.
func (f *natsFlags) checkTLS() error {
	f.resolve() // $NATS_URL and the RFSTREAM_NATS_TLS_* variables count as flags
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

// given reports whether the command line set the flag (value is its
// current value): a flag set in code, with no flag set parsed, is given
// when it is not empty.
func (f *natsFlags) given(name, value string) bool {
	if f.fs == nil {
		return value != ""
	}
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// resolve fills each connection flag the command line left out from its
// environment variable (again at each call: it is idempotent). Credentials
// reach a --nats server, or serve's embedded server, which requires them
// (embeddedAuth); another command's embedded server is in process only, so
// those from the environment are dropped and connect refuses those on the
// command line.
func (f *natsFlags) resolve() {
	creds := map[string]*string{"user": &f.user, "password": &f.password, "token": &f.token,
		"nkey": &f.nkey, "creds": &f.creds, "users": &f.users, "tls-ca": &f.tlsCA, "tls-cert": &f.tlsCert, "tls-key": &f.tlsKey}
	if !f.given("nats", f.url) {
		f.url = ""
		if !f.local {
			f.url = os.Getenv(natsEnv["nats"])
		}
	}
	for name, p := range creds {
		if !f.given(name, *p) {
			*p = ""
			if f.fromEnv(name) {
				*p = os.Getenv(natsEnv[name])
			}
		}
	}
}

// fromEnv reports whether the environment variable of a credential flag
// applies: every one but the clients file for a --nats server, and those
// the embedded server can require for serve's.
func (f *natsFlags) fromEnv(name string) bool {
	if f.url != "" {
		return name != "users"
	}
	switch name {
	case "user", "password", "token", "nkey", "users":
		return f.serving
	}
	return false
}

// serverURL is the NATS server to join: --nats, else $NATS_URL; "" is the
// embedded server.
func (f *natsFlags) serverURL() string {
	f.resolve()
	return f.url
}

// embedded makes the session start the embedded server although $NATS_URL
// names one: for commands whose own flags (--voices) ask for a local
// pipeline. Beside them only an explicit --nats is an error.
func (f *natsFlags) embedded() {
	f.local = true
	f.resolve()
}

// options turns the credential flags into client options.
func (f *natsFlags) options(name string) ([]nats.Option, error) {
	f.resolve()
	if err := f.checkTLS(); err != nil {
		return nil, err
	}
	opts := append([]nats.Option{nats.Name(name), nats.MaxReconnects(-1)}, connectionEvents(name)...)
	if f.user != "" {
		opts = append(opts, nats.UserInfo(f.user, f.password))
	}
	if f.token != "" {
		opts = append(opts, nats.Token(f.token))
	}
	if f.creds != "" && (f.user != "" || f.token != "" || f.nkey != "") {
		return nil, errors.New("--creds is an identity of its own: give it without --user, --token or --nkey")
	}
	if f.nkey != "" {
		o, err := nats.NkeyOptionFromSeed(f.nkey)
		if err != nil {
			return nil, fmt.Errorf("--nkey %s: %w", f.nkey, err)
		}
		opts = append(opts, o)
	}
	if !f.hasCredentials() && f.url != "" && !f.staleSeed {
		// A serve on this machine left its local tools' seed (localcreds.go).
		if seed := localcreds.SeedFor(f.url); seed != "" {
			o, err := nats.NkeyOptionFromSeed(seed)
			if err != nil {
				return nil, fmt.Errorf("the local credentials %s: %w", seed, err)
			}
			opts = append(opts, o)
		}
	}
	if f.creds != "" {
		// nats reads the file at each connect; a missing one is named now.
		if _, err := os.Stat(f.creds); err != nil {
			return nil, fmt.Errorf("--creds: %w", err)
		}
		opts = append(opts, nats.UserCredentials(f.creds))
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
	seedFile string // the local tools' seed (localcreds.go), removed on Close
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
	if s.seedFile != "" {
		os.Remove(s.seedFile)
	}
}

// connect joins --nats, or starts an embedded server (listening on
// loopback when listen is set, else reachable only in process).
func (f *natsFlags) connect(name string, listen bool, log io.Writer) (*session, error) {
	if err := streaming.CheckName("pipeline", f.pipeline); err != nil {
		return nil, err
	}
	f.resolve()
	opts, err := f.options(name)
	if err != nil {
		return nil, err
	}
	if f.url != "" {
		if f.users != "" {
			return nil, errors.New("--users configures the embedded server; a --nats server has authorization of its own")
		}
		nc, err := f.dial(name, opts)
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", f.url, err)
		}
		return &session{nc: nc}, nil
	}
	auth, local, err := f.embeddedAuth(listen)
	if err != nil {
		return nil, err
	}
	eo := streaming.EmbeddedOptions{Listen: listen, Port: f.port, JetStream: f.durable, StoreDir: f.storeDir, Auth: auth}
	tmp := ""
	if f.durable && eo.StoreDir == "" {
		if listen {
			// A serving process keeps its store across restarts.
			eo.StoreDir = filepath.Join(defaults.DataDir(), "jetstream")
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
	sess := &session{nc: nc, embedded: e, tmpStore: tmp}
	if local != nil {
		seed, err := local.Seed()
		if err == nil {
			sess.seedFile, err = localcreds.WriteSeed(e.Addr().(*net.TCPAddr).Port, seed)
		}
		if err != nil {
			sess.Close()
			return nil, err
		}
	}
	if listen {
		fmt.Fprintf(log, "embedded NATS server on %s (loopback only)\n", e.ClientURL())
		switch {
		case sess.seedFile != "":
			fmt.Fprintf(log, "embedded NATS server requires credentials: rfstream's commands on this machine find theirs in %s (this user's only); other clients are guests who can neither hear nor send the pipeline's subjects, only discover its stages (--open-all-subjects opens them to every local process)\n", sess.seedFile)
		case auth != nil:
			fmt.Fprintf(log, "embedded NATS server requires credentials: %s\n", auth.Describe())
		default:
			fmt.Fprintf(log, "embedded NATS server open: every local process may publish and read every subject, other clients' streams included (--open-all-subjects)\n")
		}
	}
	if f.durable {
		fmt.Fprintf(log, "JetStream store in %s\n", eo.StoreDir)
	}
	return sess, nil
}

// embeddedAuth turns the credential flags into what serve's embedded
// server requires of its clients. Only a server that listens takes them;
// another command's embedded server is reachable in process only, and
// needs none. A listening server given none makes the local tools' nkey
// (returned, for its seed file: localcreds.go) and takes everyone else as
// a guest, unless --open-all-subjects opens it (auth nil).
func (f *natsFlags) embeddedAuth(listen bool) (auth *streaming.Auth, local nkeys.KeyPair, err error) {
	if f.creds != "" {
		return nil, nil, errors.New("--creds (a JWT .creds file) is for --nats: the embedded server has no operator to trust JWTs; give it --users, a user and password, --nkey or a token")
	}
	none := f.user == "" && f.password == "" && f.token == "" && f.nkey == "" && f.users == ""
	switch {
	case f.open && !none:
		return nil, nil, errors.New("--open-all-subjects lets every local process in without credentials: give it without --user, --password, --token, --nkey or --users")
	case none && (!listen || f.open):
		return nil, nil, nil
	case none:
		if local, err = nkeys.CreateUser(); err != nil {
			return nil, nil, err
		}
		pub, err := local.PublicKey()
		if err != nil {
			return nil, nil, err
		}
		return &streaming.Auth{NKey: pub, Guests: true, Pipeline: f.pipeline}, local, nil
	case !listen:
		return nil, nil, errors.New("credentials are for --nats or serve's embedded server; this command's embedded server is in process only and takes none")
	}
	a := &streaming.Auth{Token: f.token, User: f.user, Password: f.password, Pipeline: f.pipeline}
	if f.nkey != "" {
		pub, err := nkeyPublic(f.nkey)
		if err != nil {
			return nil, nil, err
		}
		a.NKey = pub
	}
	if f.users != "" {
		if a.Clients, err = streaming.ReadClients(f.users); err != nil {
			return nil, nil, fmt.Errorf("--users: %w", err)
		}
	}
	return a, nil, nil
}

// nkeyPublic reads an nkey seed file and returns its public key.
func nkeyPublic(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--nkey: %w", err)
	}
	kp, err := nkeys.ParseDecoratedNKey(b)
	if err != nil {
		return "", fmt.Errorf("--nkey %s: %w", path, err)
	}
	pub, err := kp.PublicKey()
	if err != nil || !nkeys.IsValidPublicUserKey(pub) {
		return "", fmt.Errorf("--nkey %s: not a user nkey seed (SU…)", path)
	}
	return pub, nil
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
	nc, err := f.dial(name, opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", f.url, err)
	}
	return nc, nil
}

// dial connects to the --nats server with opts, without the local tools'
// seed when that was refused (localcreds.Stale).
func (f *natsFlags) dial(name string, opts []nats.Option) (*nats.Conn, error) {
	nc, err := nats.Connect(f.url, opts...)
	if err != nil && !f.staleSeed && !f.hasCredentials() && localcreds.Stale(f.url, err) {
		f.staleSeed = true
		if opts, err = f.options(name); err != nil {
			return nil, err
		}
		return nats.Connect(f.url, opts...)
	}
	return nc, err
}

// hasCredentials reports whether any credentials were given.
func (f *natsFlags) hasCredentials() bool {
	return f.user != "" || f.token != "" || f.nkey != "" || f.creds != ""
}
