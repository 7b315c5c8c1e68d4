package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestUnknownCommandIsAUsageError(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "frobnicate"`) {
		t.Fatalf("stderr does not name the command: %q", errb.String())
	}
}

func TestVersionNamesBackend(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit code %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "blas=") {
		t.Fatalf("version output %q lacks the backend", out.String())
	}
}

// The command and task lists keep every summary in one column, however
// long the longest name.
func TestListsAlignSummaries(t *testing.T) {
	for _, args := range [][]string{nil, {"eval"}, {"train"}} {
		var out, errb bytes.Buffer
		run(args, &out, &errb)
		col, rows := -1, 0
		for _, line := range strings.Split(out.String()+errb.String(), "\n") {
			if !strings.HasPrefix(line, "  ") {
				continue
			}
			name := strings.Fields(line)[0]
			at := strings.Index(line[2+len(name):], strings.Fields(line)[1]) + 2 + len(name)
			if col >= 0 && at != col {
				t.Fatalf("%v: %q starts its summary at column %d, the others at %d", args, name, at, col)
			}
			col, rows = at, rows+1
		}
		if rows < 4 {
			t.Fatalf("%v: %d listed lines in %q", args, rows, out.String()+errb.String())
		}
	}
}
