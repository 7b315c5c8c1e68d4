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

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

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
	roundTrip(t, natsFlags{url: s.ClientURL(), nkeySeed: good})
	refused(t, "unknown nkey", natsFlags{url: s.ClientURL(), pipeline: "p", nkeySeed: bad})
	refused(t, "no nkey", natsFlags{url: s.ClientURL(), pipeline: "p"})
	if _, err := (&natsFlags{nkeySeed: filepath.Join(dir, "missing")}).options("x"); err == nil {
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
// 127.0.0.1, and credentials (meant for a remote server) are refused.
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
	f := natsFlags{pipeline: "p", token: "x"}
	if _, err := f.connect("x", true, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("credentials with the embedded server: %v", err)
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
	// default model is then needed, and missing.
	errb.Reset()
	if code := run([]string{"stream", "--fast", "--nats", "", wav}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "RFSTREAM_FSDD") {
		t.Fatalf("stream --nats '': exit %d, %s", code, errb.String())
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
