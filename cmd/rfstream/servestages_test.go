package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// Each stage, and each shard of the frontend and decoder, takes its input
// on a connection of its own, named after it, and none on the session's
// (the page's): as the server sees them. On one shared connection a
// stream's segments waited behind another stream's audio queued for it.
func TestServeRunsEachStageOnAConnectionOfItsOwn(t *testing.T) {
	words, images := hostileModels(t)
	var log bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--model", words, "--image-model", images, "--frontends", "2"}, &log, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)
	cz, err := sv.sess.embedded.Connz(&server.ConnzOptions{Subscriptions: true})
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string][]string{}
	for _, c := range cz.Conns {
		if _, dup := subs[c.Name]; dup {
			t.Fatalf("two connections named %q", c.Name)
		}
		subs[c.Name] = c.Subs
	}
	input := map[string]string{ // each stage's input subject
		"frontend": streaming.Subject("rfs", streaming.KindPCM, "*"),
		"features": streaming.Wildcard("rfs", streaming.KindVector),
		"decoder":  streaming.Wildcard("rfs", streaming.KindScores),
		"tagger":   streaming.Wildcard("rfs", streaming.KindImage),
	}
	want := map[string]string{ // connection → the one stage input it takes
		"rfstream serve":                    "",
		"rfstream serve frontend shard 0/2": "frontend",
		"rfstream serve frontend shard 1/2": "frontend",
		"rfstream serve features":           "features",
		"rfstream serve decoder shard 0/2":  "decoder",
		"rfstream serve decoder shard 1/2":  "decoder",
		"rfstream serve tagger":             "tagger",
	}
	if len(subs) != len(want) {
		t.Errorf("the server has %d connections, want %d: %v", len(subs), len(want), subs)
	}
	for conn, stage := range want {
		got, ok := subs[conn]
		if !ok {
			t.Errorf("no connection named %q (have %v)", conn, subs)
			continue
		}
		for s, subject := range input {
			if has := slices.Contains(got, subject); has != (s == stage) {
				t.Errorf("connection %q subscribes %s: %v, want %v (it runs %q)", conn, subject, has, s == stage, stage)
			}
		}
	}

	// The stages still make one pipeline across their connections.
	nc, err := nats.Connect(sv.sess.embedded.ClientURL(), localCreds(t, sv))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, name := range []string{"s0", "s1", "s2", "s3"} { // both shards' streams
		r, err := streaming.StreamAudio(ctx, nc, "rfs", name, &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}, streaming.StreamOptions{Timeout: 10 * time.Second}, nil)
		if err != nil || r.Text != "up down" || r.Error != "" {
			t.Fatalf("stream %s through the stages' connections: %+v, %v", name, r, err)
		}
	}
}
