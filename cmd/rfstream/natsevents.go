package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A connection to a NATS server reports what happens to it after it was
// made: that it lost the server (its publishes are then buffered, and
// messages sent to its subscriptions meanwhile are lost unless the
// pipeline is durable), that it is back, and asynchronous errors such as
// a slow consumer or a permissions violation, which the client library
// would otherwise keep to itself. `serve` without these said nothing while
// its server restarted.

// natsEvents is where the events are written, one line each (tests
// replace it); natsEventsMu keeps lines from several connections whole.
var (
	natsEvents   io.Writer = os.Stderr
	natsEventsMu sync.Mutex
)

// reconnectWait is how long a connection waits between attempts to reach
// its server again (nats.go's default is 2 s): a restarted server's
// streams lose what is sent while their stages are away.
const reconnectWait = 250 * time.Millisecond

// connectionEvents returns the options that log a connection's events,
// each line naming the connection.
func connectionEvents(name string) []nats.Option {
	logf := func(format string, args ...any) {
		natsEventsMu.Lock()
		defer natsEventsMu.Unlock()
		fmt.Fprintf(natsEvents, "%s %s: "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05.000"), name}, args...)...)
	}
	return []nats.Option{
		nats.ReconnectWait(reconnectWait),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if err == nil && nc.IsClosed() && nc.LastError() == nil {
				// This client's own Close also calls the handler, on its
				// own goroutine: nothing was lost, so nothing is said
				// (it was once reported as the server's doing).
				return
			}
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			logf("NATS disconnected (%v); reconnecting every %v, publishes buffered meanwhile", err, reconnectWait)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			logf("NATS reconnected to %s (%d reconnects so far)", nc.ConnectedUrlRedacted(), nc.Stats().Reconnects)
		}),
		nats.ErrorHandler(func(nc *nats.Conn, sub *nats.Subscription, err error) {
			if sub != nil {
				logf("NATS error on subscription %s: %v", sub.Subject, err)
				return
			}
			logf("NATS error: %v", err)
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if err := nc.LastError(); err != nil {
				logf("NATS connection closed: %v", err)
			}
		}),
	}
}
