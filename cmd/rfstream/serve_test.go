package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"
)

// A serve whose NATS port or --http address is taken fails at once,
// before loading any model, naming the address and saying it is in use.
func TestServeOnABusyPortFailsFast(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	port := addr[strings.LastIndex(addr, ":")+1:]
	for _, args := range [][]string{{"--port", port}, {"--port", "0", "--http", addr}} {
		var log bytes.Buffer
		start := time.Now()
		sv, err := startServe(append(args, "--model", "/nonexistent.rfm"), &log, &log)
		took := time.Since(start)
		if err == nil {
			sv.Close(&log)
			t.Fatalf("serve %v on a busy port started", args)
		}
		if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "in use") || took > 2*time.Second {
			t.Fatalf("serve %v on a busy port: %v after %v, want an error naming %s as in use at once", args, err, took, addr)
		}
	}
}
