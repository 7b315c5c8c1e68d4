package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// TestStreamCommandJSON runs `rfstream stream` alone (its own embedded
// server), plain and with --durable (JetStream in a temporary store),
// and checks the --json lines: partials first, the last one final with
// the words and their times.
func TestStreamCommandJSON(t *testing.T) {
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model, wav := filepath.Join(dir, "toy.rfm"), filepath.Join(dir, "updown.wav")
	if err := rfstream.SaveModel(model, words.Model); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := frontend.EncodeWAVFloat32(&b, &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(wav, b.Bytes(), 0o644)
	for _, extra := range [][]string{nil, {"--durable"}} {
		var out, errb bytes.Buffer
		args := append([]string{"stream", "--fast", "--json", "--model", model, wav}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var last rfstream.Result
		for i, l := range lines {
			var r rfstream.Result
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%v line %d %q: %v", extra, i, l, err)
			}
			if r.EOS != (i == len(lines)-1) {
				t.Fatalf("%v: eos on line %d of %d", extra, i, len(lines))
			}
			last = r
		}
		if !last.Final || last.Text != "up down" || len(last.Words) != 2 || last.Words[0].Word != "up" ||
			!(last.Words[0].Start < last.Words[0].End && last.Words[0].End < last.Words[1].Start) || last.Words[1].Conf <= 0 {
			t.Fatalf("%v: last result %+v", extra, last)
		}
	}
}

// TestStreamCommandConnectedModel: given a connected-word model, `stream`
// runs the frames → log-likelihoods → Viterbi stages and prints the word
// string with times, a partial before the final result.
func TestStreamCommandConnectedModel(t *testing.T) {
	c, err := toymodels.Connected()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model, wav := filepath.Join(dir, "conn.rfm"), filepath.Join(dir, "updown.wav")
	if err := rfstream.SaveModel(model, c.Model); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := frontend.EncodeWAVFloat32(&b, &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(wav, b.Bytes(), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"stream", "--fast", "--json", "--model", model, wav}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first, last rfstream.Result
	for i, l := range lines {
		var r rfstream.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		if i == 0 {
			first = r
		}
		last = r
	}
	if first.Final || !last.EOS || last.Text != "up down" || len(last.Words) != 2 ||
		!(last.Words[0].End < last.Words[1].Start) || !(last.Words[1].Conf > 0) {
		t.Fatalf("first result %+v, last %+v; want a partial first and \"up down\" last", first, last)
	}
}
