package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// startNATS starts a real NATS server on loopback configured by set.
func startNATS(t *testing.T, set func(*server.Options)) *server.Server {
	t.Helper()
	o := &server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true}
	set(o)
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// roundTrip runs the toy word pipeline on one connection made from f and
// streams audio through it from a second one: the credentials must carry
// real traffic, not just a handshake.
func roundTrip(t *testing.T, f natsFlags) {
	t.Helper()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	f.pipeline = "auth"
	workers, err := f.connect("workers", false, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer workers.Close()
	st, err := streaming.Start(workers.nc, streaming.Pipeline{Name: "auth", Words: words}, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	client, err := f.connect("client", false, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	last, err := streaming.StreamAudio(ctx, client.nc, "auth", "s", &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}, streaming.StreamOptions{}, nil)
	if err != nil || last.Text != "up down" {
		t.Fatalf("through the authenticated server: %+v, %v", last, err)
	}
}

// refused checks that f cannot connect.
func refused(t *testing.T, what string, f natsFlags) {
	t.Helper()
	sess, err := f.connect("intruder", false, &bytes.Buffer{})
	if err == nil {
		sess.Close()
		t.Fatalf("%s: connection accepted", what)
	}
}

func TestRemoteUserPasswordAuth(t *testing.T) {
	s := startNATS(t, func(o *server.Options) { o.Username, o.Password = "rfs", "s3cret" })
	url := s.ClientURL()
	roundTrip(t, natsFlags{url: url, user: "rfs", password: "s3cret"})
	refused(t, "wrong password", natsFlags{url: url, pipeline: "p", user: "rfs", password: "nope"})
	refused(t, "no credentials", natsFlags{url: url, pipeline: "p"})
	// The password may come from the environment instead of the command line.
	t.Setenv("RFSTREAM_NATS_PASSWORD", "s3cret")
	roundTrip(t, natsFlags{url: url, user: "rfs"})
}

func TestRemoteTokenAuth(t *testing.T) {
	s := startNATS(t, func(o *server.Options) { o.Authorization = "tok-123" })
	roundTrip(t, natsFlags{url: s.ClientURL(), token: "tok-123"})
	refused(t, "wrong token", natsFlags{url: s.ClientURL(), pipeline: "p", token: "tok-999"})
	refused(t, "no token", natsFlags{url: s.ClientURL(), pipeline: "p"})
}

func TestRemoteNkeyAuth(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	other, _ := nkeys.CreateUser()
	otherSeed, _ := other.Seed()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "user.nk"), filepath.Join(dir, "other.nk")
	os.WriteFile(good, seed, 0o600)
	os.WriteFile(bad, otherSeed, 0o600)
	s := startNATS(t, func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: pub}} })
	roundTrip(t, natsFlags{url: s.ClientURL(), nkey: good})
	refused(t, "unknown nkey", natsFlags{url: s.ClientURL(), pipeline: "p", nkey: bad})
	refused(t, "no nkey", natsFlags{url: s.ClientURL(), pipeline: "p"})
	if _, err := (&natsFlags{nkey: filepath.Join(dir, "missing")}).options("x"); err == nil {
		t.Fatal("a missing seed file was accepted")
	}
}

// testPKI is a throw-away CA with a server certificate for 127.0.0.1 and
// a client certificate, written as PEM files.
type testPKI struct {
	dir                                  string
	caFile, clientCert, clientKey        string
	serverTLS                            *tls.Config
	otherCAFile, otherClient, otherClKey string
}

func newCert(t *testing.T, tmpl *x509.Certificate, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, []byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kb, _ := x509.MarshalECPrivateKey(key)
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

func newCA(t *testing.T, name string, serial int64) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	ca, key, pemBytes, _ := newCert(t, &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil, nil)
	return ca, key, pemBytes
}

func leaf(t *testing.T, cn string, serial int64, usage x509.ExtKeyUsage, ca *x509.Certificate, caKey *ecdsa.PrivateKey) ([]byte, []byte) {
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	if usage == x509.ExtKeyUsageServerAuth {
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	_, _, c, k := newCert(t, tmpl, ca, caKey)
	return c, k
}

func makePKI(t *testing.T) testPKI {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca, caKey, caPEM := newCA(t, "rfstream test CA", 1)
	srvCert, srvKey := leaf(t, "nats", 2, x509.ExtKeyUsageServerAuth, ca, caKey)
	cliCert, cliKey := leaf(t, "client", 3, x509.ExtKeyUsageClientAuth, ca, caKey)
	other, otherKey, otherPEM := newCA(t, "another CA", 4)
	oCert, oKey := leaf(t, "stranger", 5, x509.ExtKeyUsageClientAuth, other, otherKey)
	pair, err := tls.X509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return testPKI{
		dir: dir, caFile: write("ca.pem", caPEM),
		clientCert: write("client.pem", cliCert), clientKey: write("client.key", cliKey),
		serverTLS: &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
		otherCAFile: write("other-ca.pem", otherPEM),
		otherClient: write("stranger.pem", oCert), otherClKey: write("stranger.key", oKey),
	}
}

func TestRemoteMutualTLS(t *testing.T) {
	pki := makePKI(t)
	s := startNATS(t, func(o *server.Options) {
		o.TLS, o.TLSVerify, o.TLSConfig, o.TLSTimeout = true, true, pki.serverTLS, 5
	})
	url := strings.Replace(s.ClientURL(), "nats://", "tls://", 1)
	roundTrip(t, natsFlags{url: url, tlsCA: pki.caFile, tlsCert: pki.clientCert, tlsKey: pki.clientKey})
	refused(t, "server cert from an untrusted CA", natsFlags{url: url, pipeline: "p", tlsCA: pki.otherCAFile, tlsCert: pki.clientCert, tlsKey: pki.clientKey})
	refused(t, "no client certificate", natsFlags{url: url, pipeline: "p", tlsCA: pki.caFile})
	refused(t, "client certificate from another CA", natsFlags{url: url, pipeline: "p", tlsCA: pki.caFile, tlsCert: pki.otherClient, tlsKey: pki.otherClKey})
	refused(t, "plain TCP", natsFlags{url: s.ClientURL(), pipeline: "p"})
}

// TestEmbeddedServerIsLoopbackOnly: without --nats nothing listens beyond
// 127.0.0.1, and credentials are refused by an embedded server that is
// reachable in process only (serve's takes them: TestServeRequiresCredentials).
func TestEmbeddedServerIsLoopbackOnly(t *testing.T) {
	inproc, err := streaming.StartEmbedded(streaming.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer inproc.Close()
	if a := inproc.Addr(); a != nil {
		t.Fatalf("in-process embedded server listens on %v", a)
	}
	tcp, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	addr, ok := tcp.Addr().(*net.TCPAddr)
	if !ok || !addr.IP.IsLoopback() {
		t.Fatalf("embedded server listens on %v, want loopback", tcp.Addr())
	}
	for _, f := range []natsFlags{{pipeline: "p", token: "x"}, {pipeline: "p", users: "clients.json"}} {
		if _, err := f.connect("x", false, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "in process only") {
			t.Fatalf("credentials with an in-process embedded server: %v", err)
		}
	}
	// A JWT needs an operator the embedded server does not have.
	f := natsFlags{pipeline: "p", creds: "user.creds", serving: true}
	if _, err := f.connect("x", true, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "--creds") {
		t.Fatalf("--creds with the embedded server: %v", err)
	}
	// A clients file is for the embedded server alone.
	f = natsFlags{url: tcp.ClientURL(), pipeline: "p", users: "clients.json"}
	if _, err := f.connect("x", false, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "--users") {
		t.Fatalf("--users with --nats: %v", err)
	}
}

// TLS flags that do not make a whole are refused by every command that
// takes them, before it reads its inputs or connects, instead of being
// silently dropped (a key alone once connected without a certificate).
func TestIncompleteTLSFlagsAreRefused(t *testing.T) {
	const url = "tls://127.0.0.1:1" // never dialled: the flags fail first
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--nats", url, "--tls-key", "k.pem"}, "--tls-key needs --tls-cert"},
		{[]string{"--nats", url, "--tls-cert", "c.pem"}, "--tls-cert needs --tls-key"},
		{[]string{"--nats", url, "--tls-ca", "ca.pem", "--tls-key", "k.pem"}, "--tls-key needs --tls-cert"},
		{[]string{"--tls-ca", "ca.pem"}, "are for --nats"},
		{[]string{"--tls-cert", "c.pem", "--tls-key", "k.pem"}, "are for --nats"},
	} {
		for _, cmd := range [][]string{{"serve", "--port", "0"}, {"stream", "missing.wav"}, {"tag", "missing.png"}, {"forget", "v1", "--voices", t.TempDir()}} {
			args := append(append([]string{cmd[0]}, c.flags...), cmd[1:]...)
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
				t.Fatalf("%v: exit %d, stderr %q; want it refused saying %q", args, code, errb.String(), c.want)
			}
		}
	}
}

// $NATS_URL is every --nats flag's default, and the credentials come from
// the environment: stream joins the server and the pipeline there with
// nothing on its command line but the file.
func TestNATSFromTheEnvironment(t *testing.T) {
	s := startNATS(t, func(o *server.Options) { o.Username, o.Password = "rfs", "s3cret" })
	t.Setenv("NATS_URL", s.ClientURL())
	t.Setenv("RFSTREAM_NATS_USER", "rfs")
	t.Setenv("RFSTREAM_NATS_PASSWORD", "s3cret")
	t.Setenv("RFSTREAM_DATA", t.TempDir()) // the embedded server's default model would be trained here, and fail
	t.Setenv("RFSTREAM_FSDD", t.TempDir())
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	workers := natsFlags{pipeline: "rfs"}
	sess, err := workers.connect("workers", false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	st, err := streaming.Start(sess.nc, streaming.Pipeline{Name: "rfs", Words: words}, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wav := filepath.Join(t.TempDir(), "updown.wav")
	writeWAV(t, wav, toymodels.UpDown())
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", wav}, &out, &errb); code != 0 || !strings.Contains(out.String(), "up down") {
		t.Fatalf("stream with $NATS_URL: exit %d, %q, %s", code, out.String(), errb.String())
	}
	// The secret stays out of the help, which prints the defaults.
	errb.Reset()
	run([]string{"stream", "-h"}, &out, &errb)
	if strings.Contains(errb.String(), "s3cret") || !strings.Contains(errb.String(), "$RFSTREAM_NATS_PASSWORD") {
		t.Fatalf("stream -h: %s", errb.String())
	}
	// --nats '' starts the embedded server whatever $NATS_URL says: its
	// stages hear with the shipped digit model, not the toy stages' words.
	out.Reset()
	errb.Reset()
	if code := run([]string{"stream", "--fast", "--nats", "", wav}, &out, &errb); code != 0 || strings.Contains(out.String(), "up") {
		t.Fatalf("stream --nats '': exit %d, %q, %s", code, out.String(), errb.String())
	}
	// forget --voices works on the directory, $NATS_URL notwithstanding.
	out.Reset()
	errb.Reset()
	if code := run([]string{"forget", "eve", "--voices", t.TempDir()}, &out, &errb); code != 0 {
		t.Fatalf("forget --voices with $NATS_URL set: exit %d, %s", code, errb.String())
	}
}

// Credentials from the environment are meant for a --nats server: with the
// embedded one they are left unused, while those given as flags are
// refused (TestEmbeddedServerIsLoopbackOnly).
func TestEnvironmentCredentialsSpareTheEmbeddedServer(t *testing.T) {
	t.Setenv("RFSTREAM_NATS_TOKEN", "tok")
	f := natsFlags{pipeline: "p"}
	sess, err := f.connect("x", false, io.Discard)
	if err != nil {
		t.Fatalf("embedded server with $RFSTREAM_NATS_TOKEN set: %v", err)
	}
	sess.Close()
}

// credsFile writes the .creds file of a user signed by account, for a
// server that trusts operator.
func credsFile(t *testing.T, dir, name string, account nkeys.KeyPair) string {
	t.Helper()
	user, _ := nkeys.CreateUser()
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	claims := jwt.NewUserClaims(pub)
	userJWT, err := claims.Encode(account)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := jwt.FormatUserConfig(userJWT, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// --creds takes a JWT .creds file (decentralised auth): a server in
// operator mode lets its account's users in and no one else.
func TestRemoteCredsAuth(t *testing.T) {
	operator, _ := nkeys.CreateOperator()
	opPub, _ := operator.PublicKey()
	opJWT, err := jwt.NewOperatorClaims(opPub).Encode(operator)
	if err != nil {
		t.Fatal(err)
	}
	opClaims, err := jwt.DecodeOperatorClaims(opJWT)
	if err != nil {
		t.Fatal(err)
	}
	account, _ := nkeys.CreateAccount()
	accPub, _ := account.PublicKey()
	accJWT, err := jwt.NewAccountClaims(accPub).Encode(operator)
	if err != nil {
		t.Fatal(err)
	}
	resolver := &server.MemAccResolver{}
	if err := resolver.Store(accPub, accJWT); err != nil {
		t.Fatal(err)
	}
	s := startNATS(t, func(o *server.Options) {
		o.TrustedOperators, o.AccountResolver = []*jwt.OperatorClaims{opClaims}, resolver
	})
	dir := t.TempDir()
	good := credsFile(t, dir, "user.creds", account)
	stranger, _ := nkeys.CreateAccount() // an account the operator never signed
	bad := credsFile(t, dir, "stranger.creds", stranger)

	roundTrip(t, natsFlags{url: s.ClientURL(), creds: good})
	refused(t, "an account the operator did not sign", natsFlags{url: s.ClientURL(), pipeline: "p", creds: bad})
	refused(t, "no credentials", natsFlags{url: s.ClientURL(), pipeline: "p"})
	if _, err := (&natsFlags{url: s.ClientURL(), creds: filepath.Join(dir, "missing.creds")}).options("x"); err == nil || !strings.Contains(err.Error(), "--creds") {
		t.Fatalf("a missing creds file: %v", err)
	}
	if _, err := (&natsFlags{url: s.ClientURL(), creds: good, token: "t"}).options("x"); err == nil {
		t.Fatal("--creds with --token accepted")
	}
	// The file may come from the environment instead.
	t.Setenv("RFSTREAM_NATS_CREDS", good)
	roundTrip(t, natsFlags{url: s.ClientURL()})
}

// serve's embedded server requires the credentials in the environment
// (nothing on the command line): an operator's user and password, an
// operator's nkey, and a clients file whose clients stream under their own
// names. The stages connect in process with their own identity.
func TestServeRequiresCredentials(t *testing.T) {
	dir := t.TempDir()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	images, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	wordModel, imageModel := filepath.Join(dir, "words.rfm"), filepath.Join(dir, "images.rfm")
	if err := engine.SaveModel(wordModel, words.Model); err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveModel(imageModel, images.Model); err != nil {
		t.Fatal(err)
	}
	clients := filepath.Join(dir, "clients.json")
	os.WriteFile(clients, []byte(`{"clients": [{"name": "alice", "password": "al"}]}`), 0o600)
	operator, _ := nkeys.CreateUser()
	opSeed, _ := operator.Seed()
	seedFile := filepath.Join(dir, "operator.nk")
	os.WriteFile(seedFile, opSeed, 0o600)
	t.Setenv("NATS_URL", "")
	t.Setenv("RFSTREAM_NATS_USER", "op")
	t.Setenv("RFSTREAM_NATS_PASSWORD", "pw")
	t.Setenv("RFSTREAM_NATS_NKEY", seedFile)
	t.Setenv("RFSTREAM_NATS_USERS", clients)
	var log bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--model", wordModel, "--image-model", imageModel}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)
	if !strings.Contains(log.String(), "requires credentials: user op, nkey U") || !strings.Contains(log.String(), "1 confined clients") {
		t.Fatalf("serve's log does not say what it requires:\n%s", log.String())
	}
	url := sv.sess.embedded.ClientURL()
	// From here on the variables are a client's.
	for _, v := range []string{"RFSTREAM_NATS_USER", "RFSTREAM_NATS_PASSWORD", "RFSTREAM_NATS_NKEY", "RFSTREAM_NATS_USERS"} {
		t.Setenv(v, "")
	}
	refused(t, "no credentials", natsFlags{url: url, pipeline: "p"})
	refused(t, "a wrong password", natsFlags{url: url, pipeline: "p", user: "op", password: "no"})

	wav := filepath.Join(dir, "updown.wav")
	writeWAV(t, wav, toymodels.UpDown())
	png := filepath.Join(dir, "bars.png")
	os.WriteFile(png, barPNG(t, 0, 3), 0o600)
	for _, who := range []struct {
		what string
		env  map[string]string
		args []string
	}{
		{"the operator's password", map[string]string{"RFSTREAM_NATS_USER": "op", "RFSTREAM_NATS_PASSWORD": "pw"}, nil},
		{"the operator's nkey", map[string]string{"RFSTREAM_NATS_NKEY": seedFile}, nil},
		{"alice, in her namespace", map[string]string{"RFSTREAM_NATS_USER": "alice", "RFSTREAM_NATS_PASSWORD": "al"}, []string{"--voice", "alice"}},
	} {
		for _, v := range []string{"RFSTREAM_NATS_USER", "RFSTREAM_NATS_PASSWORD", "RFSTREAM_NATS_NKEY"} {
			t.Setenv(v, who.env[v])
		}
		var out, errb bytes.Buffer
		args := append(append([]string{"stream", "--fast", "--nats", url, "--pipeline", "rfs"}, who.args...), wav)
		if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "up down") {
			t.Fatalf("stream as %s: exit %d, %q, %s", who.what, code, out.String(), errb.String())
		}
	}
	// The operator tags by an image stream, which alice could not.
	t.Setenv("RFSTREAM_NATS_USER", "op")
	t.Setenv("RFSTREAM_NATS_PASSWORD", "pw")
	var out, errb bytes.Buffer
	if code := run([]string{"tag", "--nats", url, png}, &out, &errb); code != 0 || !strings.Contains(out.String(), "horizontal") {
		t.Fatalf("tag as the operator: exit %d, %q, %s", code, out.String(), errb.String())
	}
}
