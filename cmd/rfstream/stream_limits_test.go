package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// `stream` bounds its input as recognize does: an endless raw input stops
// at --max-seconds with an error before anything is published, having read
// no more than the bound and one sample; within the bound it streams.
func TestStreamRefusesInputBeyondMaxSeconds(t *testing.T) {
	_, model := toyWordModelFile(t)
	z := &zeros{}
	stdin = z
	defer func() { stdin = os.Stdin }()
	var out, errb bytes.Buffer
	code := run([]string{"stream", "--fast", "--rate", "8000", "--max-seconds", "3", "--model", model, "-"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "longer than the 3 s --max-seconds allows") {
		t.Fatalf("endless input: exit %d, stderr %q", code, errb.String())
	}
	if bound := int64(3*8000*2 + 2); z.read > bound {
		t.Fatalf("read %d bytes of an endless input, want at most %d (3 s of 8 kHz s16le and one sample)", z.read, bound)
	}
	out.Reset()
	stdin = bytes.NewReader(make([]byte, 2*8000))
	if code := run([]string{"stream", "--fast", "--rate", "8000", "--max-seconds", "3", "--model", model, "-"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "end:") {
		t.Fatalf("a second of silence within the bound: exit %d, %q %s", code, out.String(), errb.String())
	}
	if code := run([]string{"stream", "--max-seconds", "0", "--model", model, "-"}, &out, &errb); code == 0 {
		t.Fatal("--max-seconds 0 accepted")
	}
}
