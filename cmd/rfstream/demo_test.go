package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDemoPartsFlag: a part number that does not exist is refused before
// anything is fetched or trained, naming the parts there are.
func TestDemoPartsFlag(t *testing.T) {
	for _, bad := range []string{"0", "99", "x", "1,,y"} {
		var out, errb bytes.Buffer
		if code := run([]string{"demo", "--parts", bad}, &out, &errb); code == 0 {
			t.Fatalf("--parts %q accepted", bad)
		}
		if !strings.Contains(errb.String(), "is not a part number 1-") || out.Len() != 0 {
			t.Fatalf("--parts %q: stdout %q, stderr %q", bad, out.String(), errb.String())
		}
	}
}
