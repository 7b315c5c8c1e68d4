package streaming

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// Durable pipelines (--durable) keep every subject of the pipeline in one
// JetStream stream, and the stateless stages read their input through a
// durable pull consumer shared by all workers instead of a core queue
// group: a worker acknowledges a message only after publishing what it
// computed from it, so a worker that dies holding messages has them
// redelivered to another member after the ack wait.

// StoreMaxAge is how long a durable pipeline keeps its messages.
const StoreMaxAge = time.Hour

// DefaultAckWait is how long a worker may hold a message before JetStream
// gives it to another worker.
const DefaultAckWait = 30 * time.Second

// StreamName is the JetStream stream that stores a durable pipeline.
func StreamName(pipeline string) string {
	return "RFS_" + strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, pipeline)
}

// EnsureStore creates (or updates) the JetStream stream of a durable
// pipeline: its StoredSubjects, on disk, for StoreMaxAge,
// with publish de-duplication over two minutes (clients set Nats-Msg-Id).
func EnsureStore(ctx context.Context, nc *nats.Conn, pipeline string) (jetstream.JetStream, jetstream.Stream, error) {
	if err := CheckName("pipeline", pipeline); err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, nil, err
	}
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName(pipeline),
		Description: "rfstream pipeline " + pipeline + ": inputs, intermediate messages and results",
		Subjects:    StoredSubjects(pipeline),
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      StoreMaxAge,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("streaming: --durable needs JetStream on the server: %w", err)
	}
	return js, st, nil
}

// readStored calls handle, in the order they were stored, for every
// message on filter stored from now on, through an ordered consumer of
// the pipeline's store. It is how the stateful stages and rfstream's own
// client read a durable pipeline instead of core subscriptions: a core
// subscription misses what is published while its connection is away (a
// restarting server, a network blip), whereas the ordered consumer, after
// a reconnect, starts again at the message after the last one it handed
// over. The start is a stream sequence, not "new messages", so that a
// consumer re-created before it handed over anything still starts where
// it began. inactive is how long the server keeps the consumer once its
// reader has gone.
//
// resume, if not nil, picks where a stateful stage starts instead
// (resume.go): at the first stored message of the streams it takes up
// again, handing over only theirs among the messages stored before it
// started.
//
// handle's replayed is true for a message stored before the reader
// started (a stream taken up again).
func readStored(ctx context.Context, nc *nats.Conn, pipeline, filter string, inactive time.Duration, resume func(jetstream.Stream) (resumePoint, error), handle func(m *nats.Msg, replayed bool)) (jetstream.ConsumeContext, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	stream, err := js.Stream(ctx, StreamName(pipeline))
	if err != nil {
		return nil, fmt.Errorf("streaming: the store of durable pipeline %q: %w", pipeline, err)
	}
	last := stream.CachedInfo().State.LastSeq
	start := resumePoint{from: last + 1, last: last}
	if resume != nil {
		if start, err = resume(stream); err != nil {
			return nil, err
		}
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{filter}, // one: nats-server 2.9 takes no more
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       start.from,
		InactiveThreshold: inactive,
	})
	if err != nil {
		return nil, fmt.Errorf("streaming: reading %s from the store: %w", filter, err)
	}
	// Short pulls with heartbeats: a pull the server lost without the
	// connection noticing is renewed within seconds, not half a minute.
	cc, err := cons.Consume(func(m jetstream.Msg) {
		replayed := false
		if start.from <= start.last {
			md, err := m.Metadata()
			if err == nil && !start.takes(md.Sequence.Stream, StreamOf(m.Subject())) {
				return // an ended stream's, stored before the stage started
			}
			replayed = err == nil && md.Sequence.Stream <= start.last
		}
		msg := &nats.Msg{Subject: m.Subject(), Header: m.Headers(), Data: m.Data()}
		if msg.Header == nil {
			msg.Header = nats.Header{}
		}
		handle(msg, replayed)
	}, jetstream.PullExpiry(5*time.Second), jetstream.PullHeartbeat(time.Second))
	if err != nil {
		return nil, fmt.Errorf("streaming: reading %s from the store: %w", filter, err)
	}
	return cc, nil
}

// storedInput subscribes a stateful stage's handler to subject: a core
// subscription (an endpoint of the stage's micro service), or in a durable
// pipeline an ordered consumer of the store (readStored), so that what is
// stored while the stage's connection is away reaches it once it is back,
// starting with the stored messages of the streams still open (resume.go).
func (c *core) storedInput(svc micro.Service, name, subject string, h func(m *nats.Msg, replayed bool)) error {
	if !c.p.Durable {
		return c.endpoint(svc, name, subject, "", func(m *nats.Msg) { h(m, false) })
	}
	// Finding the open streams takes up to two requests a stored stream,
	// up to maxResumedSubjects of them: more time than the subscription.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resume := func(store jetstream.Stream) (resumePoint, error) {
		return resumeFrom(ctx, store, c.p.Name, subject, c.owns)
	}
	cc, err := readStored(ctx, c.nc, c.p.Name, subject, 5*time.Minute, resume, h)
	if err != nil {
		return err
	}
	c.consumers = append(c.consumers, cc)
	return nil
}

// consumeDurable hands deliver the messages of the durable consumer name
// (shared by every worker of the stage) over kind's subjects; each work
// item carries its ack.
func (c *core) consumeDurable(name, kind string, deliver func(work)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, stream, err := EnsureStore(ctx, c.nc, c.p.Name)
	if err != nil {
		return err
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "rfstream " + name + " workers of pipeline " + c.p.Name,
		FilterSubject: Wildcard(c.p.Name, kind),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.p.AckWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxAckPending: 8192,
	})
	if err != nil {
		return fmt.Errorf("streaming: durable consumer %s: %w", name, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		msg := &nats.Msg{Subject: m.Subject(), Header: m.Headers(), Data: m.Data()}
		if msg.Header == nil {
			msg.Header = nats.Header{}
		}
		deliver(work{m: msg, ack: func() { m.Ack() }})
	}, jetstream.PullMaxMessages(2*c.p.Batch))
	if err != nil {
		return fmt.Errorf("streaming: consume %s: %w", name, err)
	}
	c.consumers = append(c.consumers, cc)
	return nil
}
