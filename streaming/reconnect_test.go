package streaming

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
)

// A server that restarts for longer than the idle timeout does not end the
// streams in flight: the stages hear nothing while their connection is
// away, which is not the streams' silence. After the restart the stream
// goes on and ends with the words of the undisturbed one and no idle
// error. Before, the frontend ended it by its idle rule meanwhile and
// refused its later messages as an ended stream's.
func TestServerAwayLongerThanTheIdleTimeoutEndsNoStream(t *testing.T) {
	words, _ := toys(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	start := func() *Embedded {
		srv, err := StartEmbedded(EmbeddedOptions{Listen: true, Port: port})
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	srv := start()
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	conn := func(name string) *nats.Conn {
		nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	st, err := Start(conn("stages"), Pipeline{Name: "toy", Words: words, IdleTimeout: 200 * time.Millisecond}, StageFrontend, StageFeatures, StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	nc := conn("client")
	want, chunks := twoUpDowns(t)
	ch := resultsOf(t, nc, "away")
	sendChunks(t, nc, "away", chunks, 0, 10, true)
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the stages have the first second
	srv.Shutdown()
	time.Sleep(time.Second) // five idle timeouts away
	srv = start()
	t.Cleanup(srv.Shutdown)
	for _, c := range []*nats.Conn{nc, st.nc} {
		for deadline := time.Now().Add(5 * time.Second); !c.IsConnected(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no reconnect within 5 s")
			}
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The results subscription is renewed on reconnect; the rest of the
	// audio follows at once.
	sendChunks(t, nc, "away", chunks, 10, len(chunks), true)
	got := collect(t, ch, 10*time.Second)
	var errs []string
	for _, r := range got {
		if r.Error != "" {
			errs = append(errs, r.Error)
		}
	}
	end := engine.Result{}
	if len(got) > 0 {
		end = got[len(got)-1]
	}
	if len(errs) > 0 || !end.EOS || len(keptAndGaps(t, end, want)) != len(want.Words) {
		t.Fatalf("after the server was away: errors %q, end %+v; want every word and no error", errs, end)
	}
}
