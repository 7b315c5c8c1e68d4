package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// How a client tells a pipeline that is behind from one that is gone.
// StreamAudio's stream may wait a long time for its first result when the
// stages have other streams' work queued before it: on a loaded two-core
// machine a stream of the demo heard nothing for over 30 s while the
// pipeline worked through the streams ahead of it, and the client gave up
// although nothing was lost (experiments/journal/streaming.md). So a
// silence alone does not end the wait: the client asks the pipeline's
// stages for their counters (NATS micro $SRV.STATS, which every stage
// answers, micro.go) and waits on while they move.

// pipelineActivity is what a pipeline's stages answered to $SRV.STATS:
// each stage instance's answer (by its micro ID), as sent. An instance
// that took or handled no message since an earlier look answers the same
// bytes.
type pipelineActivity map[string]string

// Bounds on one look: the first answer may take up to statsFirstWait (a
// loaded machine), the others are taken until none came for statsQuiet.
const (
	statsFirstWait = 5 * time.Second
	statsQuiet     = 250 * time.Millisecond
)

// lookAtPipeline asks the stages of pipeline for their counters. It
// returns what they answered, empty when no stage of the pipeline answers.
func lookAtPipeline(ctx context.Context, nc *nats.Conn, pipeline string) pipelineActivity {
	seen := pipelineActivity{}
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return seen
	}
	defer sub.Unsubscribe()
	for _, stage := range []string{StageFrontend, StageFeatures, StageDecoder} {
		if err := nc.PublishRequest("$SRV.STATS."+ServiceName(stage), inbox, nil); err != nil {
			return seen
		}
	}
	wait := statsFirstWait
	for {
		wctx, cancel := context.WithTimeout(ctx, wait)
		m, err := sub.NextMsgWithContext(wctx)
		cancel()
		if errors.Is(err, nats.ErrNoResponders) {
			continue // the server's word that a stage runs nowhere
		}
		if err != nil {
			return seen
		}
		var st micro.Stats
		if json.Unmarshal(m.Data, &st) == nil && st.Metadata["pipeline"] == pipeline {
			seen[st.ID] = string(m.Data)
		}
		wait = statsQuiet
	}
}

// movedSince reports whether some stage answered now with counters other
// than it answered at the earlier look (a stage new since then counts as
// having moved).
func (now pipelineActivity) movedSince(earlier pipelineActivity) bool {
	for id, stats := range now {
		if earlier[id] != stats {
			return true
		}
	}
	return false
}
