package main

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestLiveProcs(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(was)
	line, err := setLiveProcs(0)
	if err != nil || runtime.GOMAXPROCS(0) != was || !strings.Contains(line, "GOMAXPROCS): "+strconv.Itoa(was)+" ") {
		t.Errorf("--procs 0: %q, %v, GOMAXPROCS %d; want it left at %d", line, err, runtime.GOMAXPROCS(0), was)
	}
	line, err = setLiveProcs(3 * was)
	if err != nil || runtime.GOMAXPROCS(0) != 3*was || !strings.HasPrefix(line, "Go threads (GOMAXPROCS): "+strconv.Itoa(3*was)+" for ") {
		t.Errorf("--procs %d: %q, %v, GOMAXPROCS %d", 3*was, line, err, runtime.GOMAXPROCS(0))
	}
	if _, err := setLiveProcs(-1); err == nil || !strings.Contains(err.Error(), "--procs -1") {
		t.Errorf("--procs -1: %v, want a refusal naming the flag", err)
	}
}
