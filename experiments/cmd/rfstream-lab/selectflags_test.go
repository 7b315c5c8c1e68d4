package main

import (
	"bytes"
	"strings"
	"testing"
)

// Tasks that do not select refuse --select instead of ignoring it (train
// connected is the product's: its test is there).
func TestSelectRefusedByMNISTSizes(t *testing.T) {
	args := []string{"eval", "mnist-sizes", "--select", "elss2"}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "does not select features") {
		t.Errorf("%v: exit %d, %q", args, code, errb.String())
	}
}
