package streaming

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// item is a queued message of n payload bytes on stream's PCM subject.
func item(stream string, n int) work {
	return work{m: &nats.Msg{Subject: Subject("p", KindPCM, stream), Data: make([]byte, n)}}
}

// served runs turns until the queue is empty and returns the streams of
// the messages handled, in the order handled.
func served(q *fairQueue) []string {
	var order []string
	for !q.empty() {
		stream, items, _ := q.turn()
		for range items {
			order = append(order, stream)
		}
		q.done(stream)
	}
	return order
}

// A stream queued behind another's backlog of big messages is served
// within one turn of each busy stream, whatever the backlog: the order of
// service is deterministic, so the bound is on bytes handled before it,
// not on wall-clock time.
func TestFairQueueServesABacklogInTurns(t *testing.T) {
	q := newFairQueue(1<<30, 1<<30)
	const big = 200 << 10 // bytes a message of the backlogs
	for _, attacker := range []string{"a", "b", "c"} {
		for range 100 {
			q.push(attacker, item(attacker, big), false)
		}
	}
	for range 15 {
		q.push("probe", item("probe", 1600), false) // 100 ms of 8 kHz audio each
	}
	order := served(q)
	before := 0 // backlog bytes handled before the probe's last message
	for i, s := range order {
		if s == "probe" {
			before = 0
			for _, o := range order[:i] {
				if o != "probe" {
					before += big
				}
			}
		}
	}
	// Each attacker's first turn (64 KiB) is short of one message: its
	// first 200 KiB message takes four turns, the probe's fifteen take one.
	if before > 0 {
		t.Errorf("%d bytes of the backlogs were handled before the probe's last message, want none: %v", before, order[:20])
	}
	// Before, in arrival order, all 60 MB came first.
	if n := len(order); n != 315 || order[n-1] == "probe" {
		t.Fatalf("served %d messages, the last of %s", n, order[n-1])
	}
	// Every message of each stream, in its order.
	counts := map[string]int{}
	for _, s := range order {
		counts[s]++
	}
	if counts["a"] != 100 || counts["probe"] != 15 {
		t.Errorf("served %v", counts)
	}
}

// Over many turns each busy stream gets about the same bytes handled, big
// messages or small: deficit round robin.
func TestFairQueueSharesBytesNotMessages(t *testing.T) {
	q := newFairQueue(1<<30, 1<<30)
	for range 400 {
		q.push("big", item("big", 100<<10), false)
	}
	for range 20000 {
		q.push("small", item("small", 2<<10), false)
	}
	bytes := map[string]int{}
	for range 200 { // turns
		stream, items, _ := q.turn()
		for _, w := range items {
			bytes[stream] += len(w.m.Data)
		}
		q.done(stream)
	}
	if r := float64(bytes["big"]) / float64(bytes["small"]); r < 0.9 || r > 1.1 {
		t.Errorf("bytes served %v: ratio %.2f, want about 1", bytes, r)
	}
}

// The features stage's batches take the streams in turn too.
func TestFairQueueBatchesTakeStreamsInTurn(t *testing.T) {
	q := newFairQueue(1<<30, 1<<30)
	for range 500 {
		q.push("flood", item("flood", 16<<10), false) // four a turn
	}
	q.push("probe", item("probe", 1024), false)
	batch, _ := q.batch(64)
	found := false
	for _, w := range batch {
		found = found || StreamOf(w.m.Subject) == "probe"
	}
	if len(batch) != 64 || !found {
		t.Errorf("a batch of %d without the probe's message behind 500 of another stream", len(batch))
	}
}

// A stream's queue is bounded before its message is queued; one closing
// item still goes in, once; a full stage waits for room.
func TestFairQueueBounds(t *testing.T) {
	q := newFairQueue(10<<10, 20<<10)
	for i := range 10 {
		if !q.push("s", item("s", 1<<10), false) {
			t.Fatalf("message %d refused within the bound", i)
		}
	}
	if q.push("s", item("s", 1<<10), false) {
		t.Fatal("an eleventh KiB queued over the 10 KiB bound")
	}
	q.push("s", closing(Subject("p", KindPCM, "s"), "over"), true)
	q.push("s", closing(Subject("p", KindPCM, "s"), "over"), true)
	if _, items, _ := q.turn(); len(items) != 11 || items[10].refuse != "over" {
		t.Fatalf("a turn of %d items, want the ten and one closing item", len(items))
	}
	q.done("s")
	// The stage's bound: with 20 KiB queued a push waits until a turn
	// takes some.
	for i := range 20 {
		q.push(strconv.Itoa(i), item(strconv.Itoa(i), 1<<10), false)
	}
	pushed := make(chan bool)
	go func() { pushed <- q.push("late", item("late", 1<<10), false) }()
	select {
	case <-pushed:
		t.Fatal("a push over the stage's bound did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	stream, _, _ := q.turn()
	q.done(stream)
	if !<-pushed {
		t.Fatal("the waiting push was refused once there was room")
	}
	q.close()
	if q.push("x", item("x", 1), false) {
		t.Fatal("a push after close was queued")
	}
	if _, _, ok := q.turn(); ok {
		t.Fatal("a turn after close")
	}
}

// The audio rate bound: a token bucket of burst seconds refilled at rate
// seconds a second, in the stream's own sample rate and encoding.
func TestAudioBucketsBoundTheRate(t *testing.T) {
	now := time.Unix(0, 0)
	a := newAudioBuckets(2, 10, 100)
	a.now = func() time.Time { return now }
	msg := func(rate, enc string, seconds float64, r int) *nats.Msg {
		m := nats.NewMsg("x")
		if rate != "" {
			m.Header.Set(HdrRate, rate)
		}
		m.Header.Set(HdrEncoding, enc)
		w := 2
		if enc == EncF32 {
			w = 4
		}
		m.Data = make([]byte, int(seconds*float64(r))*w)
		return m
	}
	take := func(stream string, m *nats.Msg) string {
		_, why := a.take(stream, m, len(m.Data))
		return why
	}
	for i := range 10 { // the burst: ten seconds at once
		if why := take("s", msg("8000", EncS16, 1, 8000)); why != "" {
			t.Fatalf("second %d of the burst: %s", i, why)
		}
	}
	if why := take("s", msg("", EncS16, 1, 8000)); !strings.Contains(why, "faster than this pipeline takes") {
		t.Fatalf("an eleventh second at once: %q", why)
	}
	now = now.Add(time.Second) // two seconds more allowed
	if take("s", msg("", EncS16, 2, 8000)) != "" || take("s", msg("", EncF32, 0.1, 8000)) == "" {
		t.Fatal("the refill is not two seconds of audio a second")
	}
	// Another stream's allowance is its own; a rate it never named is
	// taken as 48 kHz, never against it.
	if why := take("t", msg("", EncS16, 9.9, 48000)); why != "" {
		t.Fatalf("another stream: %s", why)
	}
	a.refuse("s")
	if drop, _ := a.take("s", msg("", EncS16, 0, 8000), 0); !drop {
		t.Fatal("a refused stream's message was not dropped")
	}
	now = now.Add(time.Hour)
	a.expire(now.Add(-time.Minute), func(string) bool { return false })
	if len(a.streams) != 0 {
		t.Fatalf("%d streams remembered after an hour", len(a.streams))
	}
}

// A stream over its audio rate gets an error result and exactly one
// end-of-stream result, its later messages are dropped, and a stream beside
// it is unaffected. Without the bound the flood (2000 s of audio at once)
// would be taken whole, without an error.
func TestStreamOverItsAudioRateIsEndedAlone(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{MaxAudioRate: 1, MaxAudioBurst: 30})
	ch := resultsOf(t, nc, "flood")
	publish(t, nc, "flood", 0, make([]byte, 16000), map[string]string{HdrRate: "8000"}) // 1 s
	for i := 1; i < 200; i++ {
		publish(t, nc, "flood", i, make([]byte, 160000), nil) // 10 s each
	}
	publish(t, nc, "flood", 200, nil, map[string]string{HdrEOS: "1"})
	got := collect(t, ch, 10*time.Second)
	expectResults(t, got, "audio sent faster than this pipeline takes from a stream: 30 s at once, then 1 s of audio a second", "")
	select {
	case m := <-ch:
		t.Fatalf("a result after the end-of-stream one: %s", m.Data)
	case <-time.After(200 * time.Millisecond):
	}
	if d := st.Stats().Dropped; d < 190 {
		t.Errorf("%d messages dropped at admission, want the flood's after its third", d)
	}
	goodStreamStillRecognised(t, nc)
}

// A voice's streams share one allowance, whatever connections they come
// on: ten streams of mallory's, on two connections, each within a
// stream's 30 s burst but 100 s together, are ended once the voice's 40 s
// are spent, with an error naming the voice's bound, while alice's stream
// beside them and a plain stream are served. Before, each stream had its
// own 30 s and all 100 s were taken.
func TestAVoicesStreamsShareOneAllowance(t *testing.T) {
	srv, nc, st := pipelineOn(t, Pipeline{MaxAudioRate: 1, MaxAudioBurst: 30, MaxVoiceAudioRate: 1, MaxVoiceAudioBurst: 40, VoicesBySubject: true})
	other, err := srv.Connect("mallory's other")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	results := subscribe(t, nc, ResultSubject("toy", "mallory", "*"))
	for s := range 10 {
		conn := []*nats.Conn{nc, other}[s%2]
		stream := "s" + strconv.Itoa(s)
		send(t, conn, VoiceSubject("toy", "mallory", stream), 0, make([]byte, 160000), map[string]string{HdrRate: "8000"}) // 10 s
		send(t, conn, VoiceSubject("toy", "mallory", stream), 1, nil, map[string]string{HdrEOS: "1"})
	}
	other.Flush()
	ended, refused := 0, 0
	for deadline := time.After(20 * time.Second); ended < 10; {
		select {
		case m := <-results:
			var r engine.Result
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(r.Error, `voice "mallory"'s streams together sent audio faster`) {
				refused++
			}
			if r.EOS {
				ended++
			}
		case <-deadline:
			t.Fatalf("%d of mallory's 10 streams ended (%d refused)", ended, refused)
		}
	}
	// 40 s of the voice's allowance are four streams' 10 s (and a little
	// refill while they were sent).
	if refused < 5 || refused > 6 {
		t.Errorf("%d of mallory's streams refused for the voice's bound, want the 5 or 6 past its 40 s", refused)
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	if got := streamAll(t, nc, "a0", a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "alice"}); len(got) == 0 || got[len(got)-1].Text != "up down" {
		t.Fatalf("alice's stream beside mallory's: %+v", got)
	}
	if st.Stats().Dropped < 5 {
		t.Errorf("stats %+v: want mallory's refused messages dropped", st.Stats())
	}
	goodStreamStillRecognised(t, nc)
}

// holdFrontend keeps the frontend's worker from handling anything until
// the returned function is called, so that what is published meanwhile is
// all queued (the subscription callback never takes the stage's lock).
func holdFrontend(st *Stages) (release func()) {
	st.front.mu.Lock()
	var once sync.Once
	return func() { once.Do(st.front.mu.Unlock) }
}

// waitQueued waits until the frontend's queue holds at least n bytes.
func waitQueued(t *testing.T, st *Stages, n int) {
	t.Helper()
	waitFor(t, "the frontend's queue to fill", func() bool {
		st.front.queue.mu.Lock()
		defer st.front.queue.mu.Unlock()
		return st.front.queue.bytes >= n
	})
}

// A stream that queues more than MaxStreamQueue at the frontend is ended,
// with the audio queued before (checked before the message is queued),
// and a stream beside it is served whole. Without the check the held
// frontend would queue all 4 MB.
func TestStreamQueueIsBoundedBeforeQueueing(t *testing.T) {
	const bound = 256 << 10
	nc, st := pipelineWith(t, Pipeline{MaxStreamQueue: bound})
	ch := resultsOf(t, nc, "hog")
	release := holdFrontend(st)
	defer release()
	publish(t, nc, "hog", 0, make([]byte, 16000), map[string]string{HdrRate: "8000"})
	for i := 1; i < 256; i++ {
		publish(t, nc, "hog", i, make([]byte, 16000), nil)
	}
	publish(t, nc, "hog", 256, nil, map[string]string{HdrEOS: "1"})
	waitFor(t, "the hog's messages to be refused", func() bool { return st.stats.dropped.Load() >= 200 })
	st.front.queue.mu.Lock()
	queued := st.front.queue.bytes
	st.front.queue.mu.Unlock()
	if queued > bound+minItemCost {
		t.Fatalf("%d bytes queued for one stream, over its %d-byte bound", queued, bound)
	}
	release()
	expectResults(t, collect(t, ch, 10*time.Second), "more audio queued at the frontend than the 262144 bytes a stream may", "")
	goodStreamStillRecognised(t, nc)
}

// Fairness through the whole pipeline: a stream queued behind another's
// backlog of 12 MB of audio (13 minutes of it) gets its end-of-stream
// result before the backlog is through. In arrival order, as before, the
// backlog's end-of-stream result came first, as every one of its messages
// was handled before the probe's first. The order of the two results is
// what is asserted, not a time.
func TestABacklogDelaysOnlyItsOwnStream(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{MaxAudioBurst: 1e6})
	hog, probe := resultsOf(t, nc, "hog"), resultsOf(t, nc, "probe")
	release := holdFrontend(st)
	defer release()
	publish(t, nc, "hog", 0, make([]byte, 200<<10), map[string]string{HdrRate: "8000"})
	for i := 1; i < 60; i++ {
		publish(t, nc, "hog", i, make([]byte, 200<<10), nil)
	}
	publish(t, nc, "hog", 60, nil, map[string]string{HdrEOS: "1"})
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitQueued(t, st, 59*200<<10)
	speech, _ := EncodePCM(toymodels.UpDown(), EncF32)
	publish(t, nc, "probe", 0, speech, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "1"})
	waitFor(t, "the probe to be queued", func() bool { return st.front.queue.busy("probe") })
	// How many messages the frontend had handled when the probe's first
	// segment left it: counted there, not when the probe's result comes
	// back, since the frontend goes on with the backlog meanwhile (the
	// faster it is, the more of it).
	var handledAtProbe atomic.Int64
	sub, err := nc.Subscribe(Subject("toy", KindVector, "probe"), func(*nats.Msg) {
		handledAtProbe.CompareAndSwap(0, st.stats.messages.Load())
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	release()
	got := collect(t, probe, 20*time.Second)
	if last := got[len(got)-1]; !last.EOS || last.Text != "up down" {
		t.Fatalf("the probe: %+v", got)
	}
	select {
	case m := <-hog:
		if r := decodeResult(t, m); r.EOS {
			t.Fatal("the backlog's end-of-stream result came before the probe's")
		}
	default:
	}
	if n := handledAtProbe.Load(); n == 0 || n > 20 {
		t.Errorf("the frontend had handled %d messages when the probe's first segment left it, want the probe's and a few of the backlog's", n)
	}
	if r := collect(t, hog, 60*time.Second); len(r) == 0 || !r[len(r)-1].EOS {
		t.Fatalf("the backlog's stream did not end: %+v", r)
	}
}

func decodeResult(t *testing.T, m *nats.Msg) engine.Result {
	t.Helper()
	var r engine.Result
	if err := json.Unmarshal(m.Data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A voice has at most MaxVoiceStreams streams live: mallory's twelve idle
// streams (one message each, never ended) take her four slots and eight
// are refused naming the bound, while alice's stream and a plain one are
// served; once one of mallory's ends, a new one of hers is taken again.
// Before, 1,024 such streams from one client took every slot of the
// pipeline until they idled out.
func TestAVoiceHoldsAtMostItsShareOfStreams(t *testing.T) {
	_, nc, _ := pipelineOn(t, Pipeline{MaxVoiceStreams: 4, VoicesBySubject: true})
	results := subscribe(t, nc, ResultSubject("toy", "mallory", "*"))
	for s := range 12 {
		send(t, nc, VoiceSubject("toy", "mallory", "s"+strconv.Itoa(s)), 0, make([]byte, 1600), map[string]string{HdrRate: "8000"})
	}
	refused := map[string]bool{}
	for deadline := time.After(10 * time.Second); len(refused) < 8; {
		select {
		case m := <-results:
			var r engine.Result
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Error, `the voice "mallory" has 4 streams live`) || !r.EOS {
				t.Fatalf("a result of mallory's idle streams: %+v", r)
			}
			refused[StreamOf(m.Subject)] = true
		case <-deadline:
			t.Fatalf("%d of mallory's streams refused, want 8", len(refused))
		}
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	if got := streamAll(t, nc, "a0", a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "alice"}); len(got) == 0 || got[len(got)-1].Text != "up down" {
		t.Fatalf("alice's stream beside mallory's: %+v", got)
	}
	goodStreamStillRecognised(t, nc)
	// One of mallory's live streams ends; her next new stream is served.
	live := ""
	for s := range 12 {
		if name := VoiceStream("mallory", "s"+strconv.Itoa(s)); !refused[name] {
			live = "s" + strconv.Itoa(s)
			break
		}
	}
	send(t, nc, VoiceSubject("toy", "mallory", live), 1, nil, map[string]string{HdrEOS: "1"})
	if got := streamAll(t, nc, "again", a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "mallory"}); len(got) == 0 || got[len(got)-1].Text != "up down" || got[len(got)-1].Error != "" {
		t.Fatalf("mallory's stream after one of hers ended: %+v", got)
	}
}
