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

// The server's lines that say its JetStream store failed to write are told
// apart from the rest of its log (nats-server 2.x wordings).
func TestStoreFaultLinesAreRecognised(t *testing.T) {
	for line, want := range map[string]bool{
		"Filestore [RFS_rfs] Critical write error: write /x/1.blk: file too large":                          true,
		"JetStream failed to store a msg on stream '$G > RFS_rfs': write /x/1.blk: no space left on device": true,
		"JetStream stream '$G > RFS_rfs' critical write error: write /x: file too large":                    true,
		"JetStream out of resources, will be DISABLED":                                                      true,
		"127.0.0.1:1 - cid:24 - Publish Violation - Subject \"$JS.API.STREAM.INFO.RFS_rfs\"":                false,
		"Slow Consumer Detected: WriteDeadline of 10s exceeded":                                             false,
	} {
		if got := isStoreFault(line); got != want {
			t.Errorf("isStoreFault(%q) = %v, want %v", line, got, want)
		}
	}
}
