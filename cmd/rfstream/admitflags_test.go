package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/toymodels"
)

// serve's admission flags reach the pipeline: a stream sending more audio
// at once than --max-audio-burst (with a rate too slow to refill it) is
// ended with an error naming the flag, while the same file under the
// defaults is recognised; bad values are refused naming the flag.
func TestServeAdmissionFlags(t *testing.T) {
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	model, wav := toyFiles(t, words.Model)
	var log bytes.Buffer
	for _, c := range []struct {
		flags   []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"--max-audio-burst", "0.05", "--max-audio-rate", "0.01"}, "--max-audio-burst"},
	} {
		sv, err := startServe(append([]string{"--port", "0", "--model", model}, c.flags...), &log, &log)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run([]string{"stream", "--fast", "--json", "--nats", sv.sess.embedded.ClientURL(), wav}, &out, &errb)
		sv.Close(io.Discard)
		got := out.String() + errb.String()
		switch {
		case c.wantErr == "" && (code != 0 || strings.Contains(got, `"error"`)):
			t.Errorf("serve %v: stream exit %d: %s", c.flags, code, got)
		case c.wantErr != "" && !strings.Contains(got, c.wantErr):
			t.Errorf("serve %v: stream exit %d, output %s; want an error naming %s", c.flags, code, got, c.wantErr)
		}
	}
	for _, bad := range [][]string{
		{"--max-audio-rate", "0"}, {"--max-audio-burst", "-1"}, {"--max-stream-queue-mib", "0"},
		{"--max-stage-queue-mib", "0"}, {"--max-stream-queue-mib", "300"}, {"--max-stage-queue-mib", "100000"},
		{"--max-voice-audio-rate", "0"}, {"--max-voice-audio-burst", "-1"},
	} {
		if _, err := startServe(append([]string{"--port", "0", "--model", model}, bad...), &log, &log); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("serve %v: %v, want a refusal naming %s", bad, err, bad[0])
		}
	}
}
