package streaming

import (
	"net"
	"strings"
	"testing"
	"time"
)

// An embedded server whose port is taken says so at once, naming the
// address, instead of waiting 10 s for a server that never becomes ready.
func TestEmbeddedServerOnABusyPortFailsFast(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().(*net.TCPAddr)
	start := time.Now()
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true, Port: addr.Port})
	took := time.Since(start)
	if err == nil {
		srv.Close()
		t.Fatal("embedded server started on a busy port")
	}
	if !strings.Contains(err.Error(), addr.String()) || !strings.Contains(err.Error(), "in use") || took > 2*time.Second {
		t.Fatalf("busy port: %v after %v, want an error naming %s as in use at once", err, took, addr)
	}
}
