package main

import (
	"bytes"
	"strings"
	"testing"
)

// Tasks that do not select refuse --select instead of ignoring it (eval
// mnist-sizes is the laboratory's: its test is there).
func TestSelectRefusedByConnected(t *testing.T) {
	args := []string{"train", "connected", "--select", "elss1", "--out", t.TempDir() + "/c.rfm"}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "does not select features") {
		t.Errorf("%v: exit %d, %q", args, code, errb.String())
	}
}
