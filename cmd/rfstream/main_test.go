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
