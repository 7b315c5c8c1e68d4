package streaming

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// Every stage is a NATS micro service (nats.go/micro), so NATS tools and
// any client of the micro protocol find it: $SRV.PING, $SRV.INFO and
// $SRV.STATS (or $SRV.<verb>.<service> and $SRV.<verb>.<service>.<id>)
// are answered by each running stage with its name (ServiceName), version,
// endpoints and counters. A stage's subscriptions are its service's
// endpoints, so INFO lists the subjects it takes and micro counts every
// message on them as a request and times its handler.

// DefaultServiceVersion is the version a stage announces when
// Pipeline.Version is empty.
const DefaultServiceVersion = "0.1.0-dev"

// ServiceName is the micro service name of a stage: rfstream-<stage>.
// Every instance of a stage (shards, queue-group members, other
// processes) shares the name and has an ID of its own.
func ServiceName(stage string) string { return "rfstream-" + stage }

var serviceDescriptions = map[string]string{
	StageFrontend: "rfstream frontend: PCM of each stream to word vectors or frames (stateful per stream)",
	StageFeatures: "rfstream features: word vectors to class scores, frames to state log-likelihoods (stateless, queue group, batched)",
	StageDecoder:  "rfstream decoder: scores or log-likelihoods of each stream to results (stateful per stream)",
	StageTagger:   "rfstream tagger: images to their top-k tags, on a stream or by request-reply (stateless, queue group, batched)",
}

// ServiceStats is the data of every endpoint in a stage's $SRV.STATS
// answer: the counters of the Stages the stage runs in (Stats), which the
// stages of one Start share. micro's own num_requests and processing_time
// count the messages each endpoint took and the time its handler held
// them: for the batched stages (features, and the tagger's image streams)
// that is the time to hand a message to the batch worker, so Batches says
// how the work was grouped.
type ServiceStats struct {
	Messages   int64 `json:"messages"`
	Errors     int64 `json:"errors"`
	Lost       int64 `json:"lost"`
	Duplicates int64 `json:"duplicates"`
	Vectors    int64 `json:"vectors"`
	Batches    int64 `json:"batches"`
	Shed       int64 `json:"shed"`
	Voices     int   `json:"voices"`
	// StorageErrors and StorageError: voice files that could not be
	// written or read, and the last one's reason (Stats).
	StorageErrors int64  `json:"storage_errors,omitempty"`
	StorageError  string `json:"storage_error,omitempty"`
}

// addService registers a stage as a micro service on the stages'
// connection.
func (s *Stages) addService(stage string) (micro.Service, error) {
	meta := map[string]string{"pipeline": s.p.Name, "protocol": Version, "subjects": Subject(s.p.Name, "*", ">")}
	if s.p.Shards > 1 {
		meta["shard"] = fmt.Sprintf("%d/%d", s.p.Shard, s.p.Shards)
	}
	if s.p.Durable {
		meta["durable"] = StreamName(s.p.Name)
	}
	svc, err := micro.AddService(s.nc, micro.Config{
		Name:        ServiceName(stage),
		Version:     s.p.Version,
		Description: serviceDescriptions[stage],
		Metadata:    meta,
		StatsHandler: func(*micro.Endpoint) any {
			st := s.Stats()
			return ServiceStats{Messages: st.Messages, Errors: st.Errors, Lost: st.Lost, Duplicates: st.Duplicates,
				Vectors: st.Vectors, Batches: st.Batches, Shed: st.Shed, Voices: st.Voices,
				StorageErrors: st.StorageErrors, StorageError: st.StorageError}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("streaming: stage %s as a NATS micro service: %w", stage, err)
	}
	s.services = append(s.services, svc)
	return svc, nil
}

// endpoint subscribes h to subject as an endpoint of svc. An empty queue
// makes a plain subscription, where every instance sees every message (the
// stateful stages, which pick their streams by ShardOf); otherwise the
// instances of a queue group share the messages.
func (c *core) endpoint(svc micro.Service, name, subject, queue string, h nats.MsgHandler) error {
	return c.requestEndpoint(svc, name, subject, queue, micro.HandlerFunc(func(r micro.Request) { h(requestMsg(r)) }))
}

// pendingMessages bounds the messages waiting in the NATS client for one
// subscription, as MaxStageQueue bounds their bytes: a million small
// messages (end-of-stream markers, refused headers) take about 300 MB.
const pendingMessages = 1 << 20

// requestEndpoint is endpoint for a handler that answers micro requests.
func (c *core) requestEndpoint(svc micro.Service, name, subject, queue string, h micro.Handler) error {
	// The callbacks only queue each message for the stage's worker
	// (admit.go), so what waits in the NATS client is what comes while
	// the stage's queue is full (MaxStageQueue): past as much again, the
	// client drops messages and reports a slow consumer (serve logs it).
	// nats.go's default limits (64 MB) would drop a burst of streams.
	opts := []micro.EndpointOpt{micro.WithEndpointSubject(subject), micro.WithEndpointPendingLimits(pendingMessages, c.p.MaxStageQueue)}
	if queue == "" {
		opts = append(opts, micro.WithEndpointQueueGroupDisabled())
	} else {
		opts = append(opts, micro.WithEndpointQueueGroup(queue))
	}
	if err := svc.AddEndpoint(name, h, opts...); err != nil {
		return fmt.Errorf("streaming: subscribe %s: %w", subject, err)
	}
	return nil
}

// requestMsg gives a stage's handler the message of a micro request: its
// subject, reply, headers (never nil) and payload.
func requestMsg(r micro.Request) *nats.Msg {
	h := nats.Header(r.Headers())
	if h == nil {
		h = nats.Header{}
	}
	return &nats.Msg{Subject: r.Subject(), Reply: r.Reply(), Header: h, Data: r.Data()}
}

// stopServices stops the stages' services, which drains their endpoints'
// subscriptions, and waits until the messages the server had sent them
// before are handled (or until deadline).
func (c *core) stopServices(deadline time.Time) []error {
	var errs []error
	for _, svc := range c.services {
		if err := svc.Stop(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
			errs = append(errs, err)
		}
	}
	if len(c.services) == 0 || c.nc.IsClosed() {
		return errs
	}
	// After the round trip every message the server sent before the
	// unsubscriptions is queued in this client; the barrier runs once each
	// subscription has handled what it had queued.
	if err := c.nc.FlushTimeout(time.Until(deadline)); err != nil {
		return errs
	}
	done := make(chan struct{})
	if err := c.nc.Barrier(func() { close(done) }); err != nil {
		return errs
	}
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
	}
	return errs
}
