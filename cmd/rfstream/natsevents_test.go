package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/streaming"
)

// holdNATSEvents runs the tests with the NATS events of in-process
// commands kept aside instead of on the test binary's stderr: the servers
// those commands lose are the tests' own, closed at each test's end or
// restarted on purpose, so the lines are expected and would bury the test
// output. They are printed after the run only when a test failed. Commands
// the tests start as processes log into the buffers the tests keep.
func holdNATSEvents(run func() int) int {
	var held syncBuffer
	natsEventsMu.Lock()
	natsEvents = &held
	natsEventsMu.Unlock()
	code := run()
	if code != 0 {
		natsEventsMu.Lock()
		defer natsEventsMu.Unlock()
		if s := held.String(); s != "" {
			fmt.Fprintf(os.Stderr, "NATS events of the in-process commands (kept aside while the tests ran):\n%s", s)
		}
	}
	return code
}

// A connection made from --nats logs losing its server and getting it back:
// serve said nothing while its server restarted.
func TestConnectionsLogDisconnectsAndReconnects(t *testing.T) {
	log := captureNATSEvents(t)
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	port := srv.Addr().(*net.TCPAddr).Port
	nc, err := nats.Connect(srv.ClientURL(), append([]nats.Option{nats.MaxReconnects(-1)}, connectionEvents("test conn")...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	srv.Close()
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), what); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the log:\n%s", what, log.String())
			}
		}
	}
	waitFor("test conn: NATS disconnected")
	again, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	waitFor("test conn: NATS reconnected to nats://127.0.0.1:" + strconv.Itoa(port))
}

// A client closing its own connection is not reported as a disconnect:
// stream printed "NATS disconnected (connection closed by the server)"
// after some runs that went well.
func TestOwnCloseIsNotADisconnect(t *testing.T) {
	log := captureNATSEvents(t)
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for range 20 {
		closed := make(chan struct{})
		opts := append(connectionEvents("own close"), nats.ClosedHandler(func(*nats.Conn) { close(closed) }))
		nc, err := nats.Connect(srv.ClientURL(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
		<-closed // callbacks run in order: the disconnect one has run
	}
	if s := log.String(); strings.Contains(s, "disconnected") {
		t.Fatalf("a client's own close was logged as a disconnect:\n%s", s)
	}
}

// captureNATSEvents sends the NATS connection events to a buffer until the
// test ends. The writer is swapped under the lock the callbacks write
// under: a connection's closed callback runs on its own goroutine after
// Close.
func captureNATSEvents(t *testing.T) *syncBuffer {
	var log syncBuffer
	natsEventsMu.Lock()
	old := natsEvents
	natsEvents = &log
	natsEventsMu.Unlock()
	t.Cleanup(func() {
		natsEventsMu.Lock()
		natsEvents = old
		natsEventsMu.Unlock()
	})
	return &log
}
