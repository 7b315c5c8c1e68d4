package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/toymodels"
)

// forget removes a voice from a running serve (memory and file), or from
// a voice directory for every model that kept it, and says when there was
// nothing to forget; other voices are kept.
func TestForgetCommand(t *testing.T) {
	dir := t.TempDir()
	forget := func(args ...string) (string, error) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"forget"}, args...), &out, &errb); code != 0 {
			return out.String(), &exitError{code, errb.String()}
		}
		return out.String(), nil
	}

	// A directory with the voice in two models' folders, one copy set
	// aside as unreadable, and another voice.
	voices := filepath.Join(dir, "voices")
	kept := filepath.Join(voices, "bbbbbbbbbbbbbbbb", "frank.rfv")
	eve := []string{filepath.Join(voices, "aaaaaaaaaaaaaaaa", "eve.rfv"), filepath.Join(voices, "bbbbbbbbbbbbbbbb", "eve.rfv"),
		filepath.Join(voices, "bbbbbbbbbbbbbbbb", "eve.rfv.bad")}
	for _, f := range append([]string{kept}, eve...) {
		os.MkdirAll(filepath.Dir(f), 0o700)
		os.WriteFile(f, []byte("x"), 0o600)
	}
	if out, err := forget("eve", "--voices", voices); err != nil || !strings.Contains(out, "removed 3 file(s)") {
		t.Fatalf("forget eve --voices: %q, %v", out, err)
	}
	for _, f := range eve {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s survived forgetting: %v", f, err)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Fatalf("forgetting eve removed frank's file: %v", err)
	}
	if out, err := forget("eve", "--voices", voices); err != nil || !strings.Contains(out, "holds nothing") {
		t.Fatalf("forgetting eve again: %q, %v", out, err)
	}

	// A running serve: a stream names the voice, forget reaches the serve.
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	model, wav := toyFiles(t, words.Model)
	served := filepath.Join(dir, "served")
	var log bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--stages", "frontend,features,decoder", "--model", model, "--voices", served}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)
	url := sv.sess.embedded.ClientURL()
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", "--voice", "eve", "--nats", url, wav}, &out, &errb); code != 0 {
		t.Fatalf("stream: exit %d: %s", code, errb.String())
	}
	path, err := words.VoicePath(served, "eve")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if out, err := forget("eve", "--nats", url); err != nil || !strings.Contains(out, "forgot voice") {
		t.Fatalf("forget eve --nats: %q, %v", out, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the served voice's file survived forgetting: %v", err)
	}
	if out, err := forget("eve", "--nats", url); err != nil || !strings.Contains(out, "holds nothing") {
		t.Fatalf("forgetting eve again through the serve: %q, %v", out, err)
	}

	for _, bad := range [][]string{{"eve"}, {"eve", "--voices", voices, "--nats", url}, {"two words", "--voices", voices}, {"--voices", voices}} {
		if out, err := forget(bad...); err == nil {
			t.Errorf("forget %v: accepted (%q)", bad, out)
		}
	}
}

type exitError struct {
	code   int
	stderr string
}

func (e *exitError) Error() string { return e.stderr }
