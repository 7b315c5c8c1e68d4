package main

import (
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/streaming"
)

// localPipeline is an embedded loopback NATS server with every stage of a
// pipeline running on it, for the commands that measure or show the whole
// path in one process (demo, bench-stream). Clients connect with Connect.
type localPipeline struct {
	*streaming.Embedded
	workers *nats.Conn
	Stages  *streaming.Stages
}

// startLocalPipeline starts the server (TCP on loopback, so the clients'
// traffic takes the same path as a remote client's) and the stages. Every
// connection of this process presents the server's generated identity
// (Embedded.Connect); any other process is a guest that hears and sends
// nothing, so a demo's live session is not another local user's to read.
func startLocalPipeline(p streaming.Pipeline, stages ...string) (*localPipeline, error) {
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{Listen: true, Auth: &streaming.Auth{Guests: true, Pipeline: p.Name}})
	if err != nil {
		return nil, err
	}
	workers, err := srv.Connect(p.Name + " stages")
	if err != nil {
		srv.Close()
		return nil, err
	}
	st, err := streaming.Start(workers, p, stages...)
	if err != nil {
		workers.Close()
		srv.Close()
		return nil, err
	}
	return &localPipeline{Embedded: srv, workers: workers, Stages: st}, nil
}

// startDemoPipeline is startLocalPipeline with one client connected, as
// each demo part streams through its own pipeline. Both are closed by the
// returned function.
func startDemoPipeline(p streaming.Pipeline, client string, stages ...string) (*localPipeline, *nats.Conn, func(), error) {
	srv, err := startLocalPipeline(p, stages...)
	if err != nil {
		return nil, nil, nil, err
	}
	nc, err := srv.Connect(client)
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	return srv, nc, func() { nc.Close(); srv.Close() }, nil
}

// Close drains the stages, then closes the workers' connection and the
// server.
func (l *localPipeline) Close() {
	l.Stages.Close()
	l.workers.Close()
	l.Embedded.Close()
}
