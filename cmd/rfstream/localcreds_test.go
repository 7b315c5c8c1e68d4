package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/rfstream/rfstream/internal/localcreds"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// localCreds presents the local tools' seed of an in-process serve.
func localCreds(t *testing.T, sv *serving) nats.Option {
	t.Helper()
	o, err := nats.NkeyOptionFromSeed(sv.sess.seedFile)
	if err != nil {
		t.Fatalf("the local tools' seed: %v", err)
	}
	return o
}

// serve given no credentials leaves the local tools' seed where only this
// user reads it, and stream finds it with no flag; a client that presents
// nothing is a guest refused the pipeline's subjects; the seed goes with
// serve. --open-all-subjects says what it opens, leaves no seed, and takes
// no credentials beside it.
func TestServeByDefaultTakesGuestsAndLocalTools(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	words, _ := hostileModels(t)
	dir := t.TempDir()
	wav := filepath.Join(dir, "updown.wav")
	writeWAV(t, wav, toymodels.UpDown())
	var log bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--stages", "frontend,features,decoder", "--model", words}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	url := sv.sess.embedded.ClientURL()
	seed := sv.sess.seedFile
	if fi, err := os.Stat(seed); err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(log.String(), seed) {
		t.Fatalf("the local seed %q: %v %v; serve said:\n%s", seed, fi, err, log.String())
	}
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", "--nats", url, wav}, &out, &errb); code != 0 || !strings.Contains(out.String(), "up down") {
		t.Fatalf("stream with no credential flag: exit %d: %s%s", code, out.String(), errb.String())
	}
	// Where the seed is not (another data cache: another user, or another
	// $RFSTREAM_DATA), stream is a guest, told so at once, with where it
	// looked.
	data := os.Getenv("RFSTREAM_DATA")
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	out.Reset()
	errb.Reset()
	start := time.Now()
	if code := run([]string{"stream", "--fast", "--nats", url, wav}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "guest of serve's embedded server") || time.Since(start) > 10*time.Second {
		t.Fatalf("stream without the seed: exit %d after %v: %s", code, time.Since(start), errb.String())
	}
	t.Setenv("RFSTREAM_DATA", data)
	refused := make(chan error, 4)
	guest, err := nats.Connect(url, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused <- err }))
	if err != nil {
		t.Fatal(err)
	}
	defer guest.Close()
	guest.Publish(streaming.Subject("rfs", streaming.KindPCM, "forged"), []byte{0, 0})
	select {
	case err := <-refused:
		if !errors.Is(err, nats.ErrPermissionViolation) {
			t.Fatalf("a guest's audio: %v, want a permissions violation", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a guest's audio was not refused")
	}
	sv.Close(io.Discard)
	if _, err := os.Stat(seed); !os.IsNotExist(err) {
		t.Fatalf("serve stopped and left its seed: %v", err)
	}

	log.Reset()
	open, err := startServe([]string{"--port", "0", "--stages", "frontend,features,decoder", "--model", words, "--open-all-subjects"}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close(io.Discard)
	if open.sess.seedFile != "" || !strings.Contains(log.String(), "every local process may publish and read every subject") {
		t.Fatalf("--open-all-subjects: seed %q, serve said:\n%s", open.sess.seedFile, log.String())
	}
	nc, err := nats.Connect(open.sess.embedded.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.SubscribeSync(streaming.Wildcard("rfs", streaming.KindResult)); err != nil || nc.Flush() != nil || nc.LastError() != nil {
		t.Fatalf("--open-all-subjects refused a plain client the results: %v %v", err, nc.LastError())
	}
	t.Setenv("RFSTREAM_NATS_TOKEN", "t0k")
	if _, err := startServe([]string{"--port", "0", "--model", words, "--open-all-subjects"}, &log, &log); err == nil || !strings.Contains(err.Error(), "--open-all-subjects") {
		t.Fatalf("--open-all-subjects with a token: %v", err)
	}
}

// A seed a killed serve left for a port that a plain NATS server now has
// does not keep a command from connecting to it: the server refuses nkeys,
// and the command connects as it would have with no seed on the disk.
func TestAStaleLocalSeedIsPassedOver(t *testing.T) {
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	port := srv.Addr().(*net.TCPAddr).Port
	if _, err := localcreds.WriteSeed(port, seed); err != nil {
		t.Fatal(err)
	}
	if _, err := nats.Connect(srv.ClientURL(), func() nats.Option {
		o, _ := nats.NkeyOptionFromSeed(localcreds.SeedPath(port))
		return o
	}()); !errors.Is(err, nats.ErrNkeysNotSupported) {
		t.Fatalf("the plain server took the stale seed: %v", err)
	}
	f := natsFlags{url: srv.ClientURL(), pipeline: "rfs"}
	sess, err := f.connect("stale seed", false, io.Discard)
	if err != nil {
		t.Fatalf("with a stale local seed: %v", err)
	}
	sess.Close()
}
