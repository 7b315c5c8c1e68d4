package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/streaming"
)

// serve runs each stage (and each shard of the frontend and decoder) on a
// NATS connection of its own, and the web page on the session's. On one
// shared connection every message for the process comes through one
// socket and one read loop, in the order the server sent it: the trace of
// Nov 27 (experiments/journal/streaming.md) found a well-behaved stream's
// segments and scores waiting ~100 ms at each hop between stages behind
// the megabytes of another stream's audio queued for that connection. A
// stage's own subscriptions still share its connection: fair turns by
// stream (streaming/fair.go) order what arrives there.
//
// The connections a serve process opens: the session's (the page, and
// the store's set-up with --durable), one per stage it runs, and one per
// further shard of the frontend and of the decoder (--frontends): at
// most 1 + 4 + 2 × (frontends − 1).

// stageConn is one stage of one shard and the connection it runs on.
type stageConn struct {
	stage  string
	shard  int
	stages *streaming.Stages
	nc     *nats.Conn
}

// stageName names a stage's connection (as the server's monitoring and
// reconnect log lines show it); a frontend's or decoder's names its shard.
func stageName(stage string, shard, shards int) string {
	if shards > 1 && (stage == streaming.StageFrontend || stage == streaming.StageDecoder) {
		return fmt.Sprintf("rfstream serve %s shard %d/%d", stage, shard, shards)
	}
	return "rfstream serve " + stage
}

// startStageConns starts the named stages, each on a connection from
// connect, in pipeline order; with p.Shards > 1 (and p.Shard unset by
// --shard), the frontend and decoder once per shard. It returns those
// that started, with the error, when one fails.
func startStageConns(p streaming.Pipeline, names []string, shards []int, connect func(name string) (*nats.Conn, error)) ([]stageConn, error) {
	var started []stageConn
	for _, stage := range streaming.AllStages {
		if !slices.Contains(names, stage) {
			continue
		}
		for _, k := range shards {
			if k != shards[0] && stage != streaming.StageFrontend && stage != streaming.StageDecoder {
				continue // stateless stages share out by queue group, once a process
			}
			nc, err := connect(stageName(stage, k, p.Shards))
			if err != nil {
				return started, err
			}
			sp := p
			sp.Shard = k
			st, err := streaming.Start(nc, sp, stage)
			if err != nil {
				nc.Close()
				return started, err
			}
			started = append(started, stageConn{stage, k, st, nc})
		}
	}
	return started, nil
}

// closeStageConns stops the stages in pipeline order, each before the
// next: a stage's last outputs are flushed to the server before the next
// stage drains its subscriptions, so they are handled, not cut off.
func closeStageConns(all []stageConn) error {
	var err error
	for _, sc := range all {
		err = errors.Join(err, sc.stages.Close())
		sc.nc.FlushTimeout(5 * time.Second)
		sc.nc.Close()
	}
	return err
}

// stats sums the counters of every stage serve runs.
func (sv *serving) stats() streaming.Stats { return sumStats(sv.stage(""))() }

// stage returns the named stage's shards that serve runs, by shard (every
// stage's for "").
func (sv *serving) stage(name string) []*streaming.Stages {
	var all []*streaming.Stages
	for _, sc := range sv.stages {
		if sc.stage == name || name == "" {
			all = append(all, sc.stages)
		}
	}
	return all
}

// sumStats returns the counters of every stage set added up: shards'
// frontends each count their own streams' messages.
func sumStats(all []*streaming.Stages) func() streaming.Stats {
	return func() streaming.Stats {
		var t streaming.Stats
		for _, st := range all {
			s := st.Stats()
			t.Messages += s.Messages
			t.Duplicates += s.Duplicates
			t.Errors += s.Errors
			t.Lost += s.Lost
			t.Vectors += s.Vectors
			t.Batches += s.Batches
			t.Shed += s.Shed
			t.Voices += s.Voices
			t.StorageErrors += s.StorageErrors
			if s.StorageError != "" {
				t.StorageError = s.StorageError
			}
		}
		return t
	}
}
