package streaming

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A store holding five streams' input and results: the ones with an
// end-of-stream result, or whose last result answers a message after the
// end, are ended; the rest are taken up from their first stored message,
// and of the messages stored before the stage started only theirs are
// handed over.
func TestResumeTakesUpOnlyTheOpenStreams(t *testing.T) {
	srv, err := StartEmbedded(EmbeddedOptions{JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	js, store, err := EnsureStore(ctx, nc, "p")
	if err != nil {
		t.Fatal(err)
	}
	seqOf := map[string]uint64{} // the first stored sequence per subject
	put := func(kind, stream string, header ...string) uint64 {
		t.Helper()
		m := nats.NewMsg(Subject("p", kind, stream))
		for i := 0; i+1 < len(header); i += 2 {
			m.Header.Set(header[i], header[i+1])
		}
		ack, err := js.PublishMsg(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if _, seen := seqOf[m.Subject]; !seen {
			seqOf[m.Subject] = ack.Sequence
		}
		return ack.Sequence
	}
	put(KindPCM, "ended")                  // 1
	put(KindResult, "ended", HdrEOS, "1")  // 2
	put(KindPCM, "open")                   // 3: the earliest open stream's first message
	put(KindResult, "open")                // a partial result
	put(KindPCM, "late")                   // 5
	put(KindResult, "late", HdrEOS, "1")   //
	put(KindResult, "late", HdrEnded, "1") // an answer to a message after the end
	lateAfterEnd := put(KindPCM, "ended")  // a copy after the end, stored among open streams' messages
	put(KindPCM, "quiet")                  // no result yet
	put(KindPCM, "other")
	put(KindPCM, "open")

	all := func(string) bool { return true }
	r, err := resumeFrom(ctx, store, "p", Subject("p", KindPCM, "*"), all)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(r.open)), []string{"open", "other", "quiet"}; !slices.Equal(got, want) {
		t.Errorf("open streams %v, want %v", got, want)
	}
	if want := seqOf[Subject("p", KindPCM, "open")]; r.from != want {
		t.Errorf("starts at %d, want %d (the open stream's first message)", r.from, want)
	}
	if r.takes(lateAfterEnd, "ended") || !r.takes(r.last+1, "ended") || !r.takes(r.from, "open") {
		t.Errorf("takes: an ended stream's stored message %d %v, its next one %v, the open stream's first %v",
			lateAfterEnd, r.takes(lateAfterEnd, "ended"), r.takes(r.last+1, "ended"), r.takes(r.from, "open"))
	}

	// A shard takes up only its own streams.
	r, err = resumeFrom(ctx, store, "p", Subject("p", KindPCM, "*"), func(s string) bool { return s == "quiet" })
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(r.open)); !slices.Equal(got, []string{"quiet"}) || r.from != seqOf[Subject("p", KindPCM, "quiet")] {
		t.Errorf("shard: open %v from %d, want [quiet] from %d", got, r.from, seqOf[Subject("p", KindPCM, "quiet")])
	}

	// An empty store: from the next message.
	r, err = resumeFrom(ctx, store, "p", Subject("p", KindVoice, "*"), all)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.open) != 0 || r.from != r.last+1 {
		t.Errorf("nothing stored on the filter: %+v", r)
	}
}

// A message taken up from the store waits for room in its stream's queue
// where a new one is refused: the stream was admitted once already.
func TestReplayedMessageWaitsForItsStreamsQueue(t *testing.T) {
	q := newFairQueue(4<<10, 1<<20)
	for i := range 4 {
		if !q.push("s", item("s", 1<<10), false) {
			t.Fatalf("message %d refused within the bound", i)
		}
	}
	if q.push("s", item("s", 1<<10), false) {
		t.Fatal("a fifth KiB queued over the stream's 4 KiB bound")
	}
	replayed := item("s", 1<<10)
	replayed.replayed = true
	pushed := make(chan bool)
	go func() { pushed <- q.push("s", replayed, false) }()
	select {
	case <-pushed:
		t.Fatal("a replayed push over the stream's bound did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	stream, items, _ := q.turn()
	q.done(stream)
	if !<-pushed {
		t.Fatal("the replayed push was refused once its stream had room")
	}
	if _, rest, _ := q.turn(); len(items) != 4 || len(rest) != 1 {
		t.Fatalf("turns of %d and %d messages, want the four and the replayed one", len(items), len(rest))
	}
}

// Audio taken up from the store is not held to the stream's rate bound a
// second time: 400 s of it at once reach the end-of-stream result without
// an error where the same audio from a client is refused after its 30 s
// burst (TestStreamOverItsAudioRateIsEndedAlone).
func TestReplayedAudioSkipsTheRateBound(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{MaxAudioRate: 1, MaxAudioBurst: 30})
	ch := resultsOf(t, nc, "replayed")
	msg := func(seq int, data []byte, hdr ...string) *nats.Msg {
		m := nats.NewMsg(Subject("toy", KindPCM, "replayed"))
		m.Data = data
		m.Header.Set(HdrSeq, strconv.Itoa(seq))
		for i := 0; i+1 < len(hdr); i += 2 {
			m.Header.Set(hdr[i], hdr[i+1])
		}
		return m
	}
	st.front.admitPCM(msg(0, make([]byte, 16000), HdrRate, "8000"), true) // 1 s
	for i := 1; i < 40; i++ {
		st.front.admitPCM(msg(i, make([]byte, 160000)), true) // 10 s each
	}
	st.front.admitPCM(msg(40, nil, HdrEOS, "1"), true)
	expectResults(t, collect(t, ch, 20*time.Second), "")
	if d := st.Stats().Dropped; d != 0 {
		t.Errorf("%d replayed messages dropped at admission", d)
	}
}

// The frontend's error results about a stream that has ended carry
// Rfs-Ended (so that the stream's last stored result says it has ended),
// whatever was wrong with the message; an error about an open stream does
// not.
func TestErrorsAfterTheEndAreMarkedEnded(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{})
	ch := resultsOf(t, nc, "s")
	next := func() *nats.Msg {
		t.Helper()
		select {
		case m := <-ch:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no result")
			return nil
		}
	}
	publish(t, nc, "s", -1, make([]byte, 160), map[string]string{HdrRate: "8000"}) // no Rfs-Seq
	if m := next(); m.Header.Get(HdrEnded) != "" || m.Header.Get(HdrEOS) != "" {
		t.Fatalf("an open stream's error result %v %s says it has ended", m.Header, m.Data)
	}
	publish(t, nc, "s", 0, make([]byte, 160), map[string]string{HdrRate: "8000", HdrEOS: "1"})
	for m := next(); m.Header.Get(HdrEOS) != "1"; m = next() {
	}
	for _, c := range []struct {
		seq int
		hdr map[string]string
	}{
		{5, nil},                            // audio after the end
		{-1, nil},                           // no Rfs-Seq
		{6, map[string]string{HdrEOS: "x"}}, // a malformed Rfs-Eos
	} {
		publish(t, nc, "s", c.seq, make([]byte, 160), c.hdr)
		if m := next(); m.Header.Get(HdrEnded) != "1" {
			t.Errorf("message %d %v after the end: result %v %s without %s", c.seq, c.hdr, m.Header, m.Data, HdrEnded)
		}
		if c.hdr != nil { // its own complaint, then the stream's
			if m := next(); m.Header.Get(HdrEnded) != "1" {
				t.Errorf("message %d %v after the end: second result %v %s without %s", c.seq, c.hdr, m.Header, m.Data, HdrEnded)
			}
		}
	}
}
