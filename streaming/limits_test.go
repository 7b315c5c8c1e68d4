package streaming

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// goodStreamStillRecognised checks that a pipeline that has just been
// abused still gives an ordinary stream its words.
func goodStreamStillRecognised(t *testing.T, nc *nats.Conn) {
	t.Helper()
	got := streamAll(t, nc, "good", &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}, StreamOptions{Encoding: EncF32})
	if last := got[len(got)-1]; !last.EOS || last.Text != "up down" {
		t.Fatalf("an ordinary stream beside the hostile ones: %+v", last)
	}
}

// A rate whose resampling filter would be huge (767998 Hz: 13.4 million
// taps, built under the frontend's lock) is refused naming the rate, at
// once: ten such messages once held up every stream for 5.2 s and took
// 700 MB.
func TestOddRatesAreRefusedAtOnce(t *testing.T) {
	_, nc, _ := pipeline(t, false)
	ch := resultsOf(t, nc, "oddrate")
	start := time.Now()
	for i := 0; i < 10; i++ {
		hdr := map[string]string{HdrRate: "767998"}
		if i == 9 {
			hdr[HdrEOS] = "1"
		}
		publish(t, nc, "oddrate", i, make([]byte, 1600), hdr)
	}
	got := collect(t, ch, 5*time.Second)
	took := time.Since(start)
	want := make([]string, 11)
	for i := range 10 {
		want[i] = "767998"
	}
	want[10] = "never started"
	expectResults(t, got, want...)
	if took > time.Second {
		t.Fatalf("ten refusals took %v", took)
	}
	goodStreamStillRecognised(t, nc)
}

// Sequence numbers beyond MaxSeq are refused (one near 2⁶³ once wrapped
// the loss counter), and an end-of-stream message whose number is missing,
// unparsable or out of range still ends its stream with exactly one
// end-of-stream result, at once rather than after the idle timeout.
func TestBadSequenceNumbersAreRefusedAndStillEndTheStream(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{})
	ch := resultsOf(t, nc, "huge")
	publish(t, nc, "huge", 0, []byte{0, 0}, map[string]string{HdrRate: "8000"})
	for _, seq := range []string{"9223372036854775807", strconv.Itoa(MaxSeq + 1), "-5"} {
		sendRaw(t, nc, KindPCM, "huge", map[string]string{HdrSeq: seq, HdrRate: "8000"}, []byte{0, 0})
	}
	publish(t, nc, "huge", 1, nil, map[string]string{HdrEOS: "1"})
	expectResults(t, collect(t, ch, 5*time.Second), "is not an integer from 0 to 2147483647", "from 0 to", "from 0 to", "")
	if s := st.Stats(); s.Lost != 0 {
		t.Fatalf("%d messages counted lost", s.Lost)
	}
	speech, _ := EncodePCM(toymodels.UpDown(), EncF32)
	for _, c := range []struct {
		stream string
		seq    string // "" for none
		first  bool   // an earlier message started the stream
		errs   []string
		text   string
	}{
		{"noseq", "", true, []string{"without a valid " + HdrSeq}, "up down"},
		{"badseq", "x", true, []string{"is not an integer from 0 to"}, "up down"},
		{"hugeseq", "9223372036854775807", true, []string{"is not an integer from 0 to"}, "up down"},
		{"only", "", false, []string{"without a valid " + HdrSeq, "never started"}, ""},
		// Held past a gap: handled, the gap reported (by the frontend,
		// then as the stream's gap by the decoder), then the end.
		{"gap", "", true, []string{"without a valid " + HdrSeq, "messages 0..0 never arrived", "never reached the frontend"}, "up down"},
	} {
		t.Run(c.stream, func(t *testing.T) {
			ch := resultsOf(t, nc, c.stream)
			if c.first {
				seq := 0
				if c.stream == "gap" {
					seq = 1 // message 0 never comes
				}
				publish(t, nc, c.stream, seq, speech, map[string]string{HdrRate: "8000", HdrEncoding: EncF32})
			}
			hdr := map[string]string{HdrEOS: "1"}
			if c.seq != "" {
				hdr[HdrSeq] = c.seq
			}
			start := time.Now()
			sendRaw(t, nc, KindPCM, c.stream, hdr, nil)
			got := collect(t, ch, 5*time.Second)
			if len(got) == 0 || !got[len(got)-1].EOS || got[len(got)-1].Text != c.text || time.Since(start) > 2*time.Second {
				t.Fatalf("results %+v after %v; want an end-of-stream result with %q at once", got, time.Since(start), c.text)
			}
			var errs []string
			for _, r := range got {
				if r.Error != "" {
					errs = append(errs, r.Error)
				}
			}
			if len(errs) != len(c.errs) {
				t.Fatalf("errors %q, want %q", errs, c.errs)
			}
			for i, w := range c.errs {
				if !strings.Contains(errs[i], w) {
					t.Fatalf("errors %q, want %q", errs, c.errs)
				}
			}
			// Exactly one end-of-stream result.
			select {
			case m := <-ch:
				t.Fatalf("a result after the end: %s", m.Data)
			case <-time.After(200 * time.Millisecond):
			}
		})
	}
}

// A stream that withholds a message holds at most MaxHeldBytes of the
// messages after it: the one that would take it over makes the stage give
// up on the gap, with an error result, before it is held. A message over
// MaxChunkBytes is held without its payload until its turn to be refused.
// Before, the 256 KiB check came after buffering, and 64 messages of up to
// 1 MB (the server's limit) waited in each such stream's window.
func TestHeldBytesPerStreamAreBounded(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{})
	held := func(stream string) int {
		st.front.mu.Lock()
		defer st.front.mu.Unlock()
		if f := st.front.streams[stream]; f != nil {
			return f.bytes
		}
		return -1
	}
	handled := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); st.Stats().Messages < n; {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d messages handled", st.Stats().Messages, n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	ch := resultsOf(t, nc, "withhold")
	const chunk = 200 << 10
	most := 0
	for i := 1; i <= 12; i++ { // message 0 never comes
		publish(t, nc, "withhold", i, make([]byte, chunk), map[string]string{HdrRate: "8000"})
		handled(int64(i))
		most = max(most, held("withhold"))
	}
	if most > DefaultMaxHeldBytes {
		t.Fatalf("a stream held %d bytes, over the %d-byte bound", most, DefaultMaxHeldBytes)
	}
	publish(t, nc, "withhold", 13, nil, map[string]string{HdrEOS: "1"})
	got := collect(t, ch, 5*time.Second)
	if len(got) < 3 || !strings.Contains(got[0].Error, "over the 2097152 bytes a stream may hold") || !strings.Contains(got[1].Error, "messages 0..0 never arrived") || !got[len(got)-1].EOS {
		t.Fatalf("a stream over its held bytes: %+v", got)
	}

	ch = resultsOf(t, nc, "bigheld")
	before := st.Stats().Messages
	publish(t, nc, "bigheld", 1, make([]byte, MaxChunkBytes+2), map[string]string{HdrRate: "8000"})
	handled(before + 1)
	if b := held("bigheld"); b != 0 {
		t.Fatalf("an oversized message waits with %d payload bytes held", b)
	}
	publish(t, nc, "bigheld", 0, []byte{0, 0}, map[string]string{HdrRate: "8000"})
	publish(t, nc, "bigheld", 2, nil, map[string]string{HdrEOS: "1"})
	expectResults(t, collect(t, ch, 5*time.Second), "message 1 of 262146 bytes exceeds the 262144-byte limit", "")
	goodStreamStillRecognised(t, nc)
}

// expiryStall starts n streams in each stateful stage (a tenth of a
// second of speech for the frontend; a segment after a missing one for
// the decoder, which holds it), makes them all idle at once, and while the
// sweep ends them, probes both stages every 5 ms with a refused message
// (one without Rfs-Seq: its error result comes from under the stage's
// lock at once). It returns the longest a probe waited, once every stream
// has had its end-of-stream result.
func expiryStall(t *testing.T, n int) time.Duration {
	t.Helper()
	idle := 20 * time.Second // the sweep ticks every second
	srv, nc, st := pipelineOn(t, Pipeline{IdleTimeout: idle, MaxStreams: 2 * n})
	var eos atomic.Int64
	// Counted on a connection of their own, so the probes' answers do not
	// queue behind them.
	counter, err := srv.Connect("counter")
	if err != nil {
		t.Fatal(err)
	}
	defer counter.Close()
	sub, err := counter.Subscribe(Wildcard("toy", KindResult), func(m *nats.Msg) {
		if m.Header.Get(HdrEOS) == "1" {
			eos.Add(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	sub.SetPendingLimits(-1, -1)
	defer sub.Unsubscribe()
	speech, _ := EncodePCM(toymodels.UpDown()[:800], EncS16)
	scores := EncodeF32(make([]float32, 2))
	for i := range n {
		publish(t, nc, "idle"+strconv.Itoa(i), 0, speech, map[string]string{HdrRate: "8000"})
		sendRaw(t, nc, KindScores, "gap"+strconv.Itoa(i), map[string]string{HdrSeq: "1", HdrFinal: "1", HdrStart: "1", HdrEnd: "2"}, scores)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st.front.mu.Lock()
		front := len(st.front.streams)
		st.front.mu.Unlock()
		st.dec.mu.Lock()
		dec := len(st.dec.streams)
		st.dec.mu.Unlock()
		if front == n && dec == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d and %d of %d streams started", front, dec, n)
		}
	}
	// Every stream goes idle at the sweep's next tick.
	st.front.mu.Lock()
	for _, f := range st.front.streams {
		f.last = f.last.Add(-idle)
	}
	st.front.mu.Unlock()
	st.dec.mu.Lock()
	for _, d := range st.dec.streams {
		d.last = d.last.Add(-2 * idle)
	}
	st.dec.mu.Unlock()
	probes := map[string]chan *nats.Msg{KindPCM: resultsOf(t, nc, "probepcm"), KindScores: resultsOf(t, nc, "probescores")}
	var worst time.Duration
	for deadline := time.Now().Add(60 * time.Second); eos.Load() < int64(2*n); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d idle streams got their end-of-stream result; probes waited up to %v", eos.Load(), 2*n, worst)
		}
		for kind, ch := range probes {
			sent := time.Now()
			sendRaw(t, nc, kind, "probe"+kind, nil, []byte{0, 0})
			select {
			case <-ch:
			case <-time.After(10 * time.Second):
				t.Fatalf("no answer to a %s probe in 10 s", kind)
			}
			worst = max(worst, time.Since(sent))
		}
	}
	return worst
}

// Thousands of streams going idle together are ended one at a time, each
// under the stage's lock only for its own end, so the other streams'
// messages are handled in between: before, 5000 such streams held each
// stage's lock for their whole expiry at once.
func TestManyStreamsExpiringTogetherDoNotStallOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("5000 streams")
	}
	worst := expiryStall(t, 5000)
	t.Logf("5000 streams in each stage expiring together: the other streams waited at most %v", worst)
	// 4 s before; 56–332 ms with one stream's end under the lock at a
	// time (load average 10–20); 5.8 ms with 8 ends a pause (load 3). The
	// bound leaves room for a loaded machine and still catches the old stall.
	if worst > time.Second {
		t.Fatalf("a probe waited %v while idle streams were ended, want at most 1 s", worst)
	}
}

// The decoder's reorder window is bounded too: past a gap it holds at most
// 16 × Window segments (and 4 × MaxHeldBytes); the one that would go over
// makes it give up on the gap at once, report it and decode what it held.
func TestDecoderHeldSegmentsAreBounded(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{Window: 4})
	ch := resultsOf(t, nc, "flood")
	bound := decoderWindowFactor * 4
	for seq := 1; seq <= bound+1; seq++ { // segment 0 never comes
		sendRaw(t, nc, KindScores, "flood", map[string]string{HdrSeq: strconv.Itoa(seq), HdrFinal: "1", HdrStart: strconv.Itoa(seq), HdrEnd: strconv.Itoa(seq) + ".5"}, EncodeF32([]float32{1, -1}))
	}
	sendRaw(t, nc, KindScores, "flood", map[string]string{HdrEOS: "1", HdrCount: strconv.Itoa(bound + 2)}, nil)
	got := collect(t, ch, 5*time.Second)
	if len(got) != bound+3 || !strings.Contains(got[0].Error, "segments 0..0 never arrived; the decoder held 64 messages") || *got[0].Gaps[0].End != 1 {
		t.Fatalf("%d results, first %+v", len(got), got[0])
	}
	if end := got[len(got)-1]; !end.EOS || len(end.Words) != bound+1 || len(end.Gaps) != 1 {
		t.Fatalf("end-of-stream result %+v", end)
	}
	st.dec.mu.Lock()
	defer st.dec.mu.Unlock()
	if len(st.dec.streams) != 0 {
		t.Fatalf("%d decoder streams left", len(st.dec.streams))
	}
}

// Streams beyond MaxStreams are refused, each with exactly one
// end-of-stream error result that says why (its later messages dropped),
// and the streams already served are unaffected; once one ends, a new
// stream is served.
func TestConcurrentStreamsAreBounded(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{MaxStreams: 3})
	speech, _ := EncodePCM(toymodels.UpDown(), EncF32)
	hdr := map[string]string{HdrRate: "8000", HdrEncoding: EncF32}
	for i := range 3 {
		publish(t, nc, "held"+strconv.Itoa(i), 0, speech[:800], hdr)
	}
	ch := resultsOf(t, nc, "over")
	publish(t, nc, "over", 0, speech, hdr)
	publish(t, nc, "over", 1, nil, map[string]string{HdrEOS: "1"})
	got := collect(t, ch, 5*time.Second)
	expectResults(t, got, "stream refused: this pipeline serves 3 streams, the most it takes")
	select {
	case m := <-ch:
		t.Fatalf("a refused stream's later message answered: %s", m.Data)
	case <-time.After(200 * time.Millisecond):
	}
	// The streams held are served as before, whole.
	ch = resultsOf(t, nc, "held0")
	publish(t, nc, "held0", 1, speech[800:], hdr)
	publish(t, nc, "held0", 2, nil, map[string]string{HdrEOS: "1"})
	if got := collect(t, ch, 5*time.Second); got[len(got)-1].Text != "up down" {
		t.Fatalf("a stream within the bound: %+v", got)
	}
	goodStreamStillRecognised(t, nc) // a place is free again
	if n := st.Stats().Errors; n != 1 {
		t.Fatalf("%d error results, want the refusal only", n)
	}
}

// An Rfs-Eos header that is neither 1 nor 0 is reported and taken as the
// end of the stream: the stream gets its one end-of-stream result at once
// instead of after the idle timeout.
func TestMalformedEndOfStreamHeaderEndsTheStream(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{})
	ch := resultsOf(t, nc, "eostrue")
	speech, _ := EncodePCM(toymodels.UpDown(), EncF32)
	publish(t, nc, "eostrue", 0, speech, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "true"})
	got := collect(t, ch, 5*time.Second)
	if len(got) == 0 || !strings.Contains(got[0].Error, `header "true" is not 1`) || !got[len(got)-1].EOS || got[len(got)-1].Text != "up down" {
		t.Fatalf("results %+v", got)
	}
	select {
	case m := <-ch:
		t.Fatalf("a result after the end: %s", m.Data)
	case <-time.After(200 * time.Millisecond):
	}
}

// FuzzReorderBounds sends the frontend and decoder stages a fuzzed run of
// messages (each two bytes: a sequence number and a payload size, on one
// of three streams) and checks after every message the bounds, not only
// that nothing panicked: no stream holds more than Window (+1) messages,
// or more than MaxHeldBytes in more than one message, past a gap in the
// frontend, nor 16 × Window or
// 4 × MaxHeldBytes in the decoder, and the stages start no goroutine that
// outlives a message.
func FuzzReorderBounds(f *testing.F) {
	words, err := toymodels.Words()
	if err != nil {
		f.Fatal(err)
	}
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	nc, err := srv.Connect("fuzz")
	if err != nil {
		f.Fatal(err)
	}
	defer nc.Close()
	const window, held = 4, 4096
	st, err := Start(nc, Pipeline{Name: "fuzz", Words: words, Window: window, MaxHeldBytes: held}, StageFrontend, StageDecoder)
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	f.Add([]byte{1, 10, 2, 10, 3, 10, 0, 10})
	f.Add([]byte{5, 255, 6, 255, 7, 255, 8, 255, 9, 255})
	f.Add([]byte{200, 1, 0, 0, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		goroutines := runtime.NumGoroutine()
		for i := 0; i+1 < len(ops); i += 2 {
			stream := "s" + strconv.Itoa(i%3)
			seq, size := int(ops[i]), 64*int(ops[i+1])
			pcm := nats.NewMsg(Subject("fuzz", KindPCM, stream))
			pcm.Header.Set(HdrSeq, strconv.Itoa(seq))
			pcm.Header.Set(HdrRate, "8000")
			pcm.Data = make([]byte, size)
			st.front.onPCM(pcm)
			scores := nats.NewMsg(Subject("fuzz", KindScores, stream))
			scores.Header.Set(HdrSeq, strconv.Itoa(seq))
			scores.Header.Set(HdrFinal, "1")
			scores.Data = make([]byte, 16*size)
			st.dec.onScores(scores)
			st.front.mu.Lock()
			for name, fs := range st.front.streams {
				// One message alone may be larger than the bound: held
				// bytes are checked before each message is added.
				if (fs.bytes > held && len(fs.pending) > 1) || len(fs.pending) > window+1 {
					st.front.mu.Unlock()
					t.Fatalf("frontend stream %s holds %d messages, %d bytes", name, len(fs.pending), fs.bytes)
				}
			}
			st.front.mu.Unlock()
			st.dec.mu.Lock()
			for name, ds := range st.dec.streams {
				if (ds.bytes > decoderBytesFactor*held && len(ds.pending) > 1) || len(ds.pending) > decoderWindowFactor*window {
					st.dec.mu.Unlock()
					t.Fatalf("decoder stream %s holds %d messages, %d bytes", name, len(ds.pending), ds.bytes)
				}
			}
			st.dec.mu.Unlock()
		}
		if n := runtime.NumGoroutine(); n > goroutines+2 {
			t.Fatalf("%d goroutines after the messages, %d before", n, goroutines)
		}
	})
}

// A stream that jumps over billions of message numbers adds at most
// maxLostPerGap to the lost counter per gap (three such streams once
// showed 3,147,483,651 lost), while its error result still names the gap.
func TestAHugeGapCountsBoundedLoss(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{Window: 1})
	ch := resultsOf(t, nc, "jump")
	publish(t, nc, "jump", 0, []byte{0, 0}, map[string]string{HdrRate: "8000"})
	publish(t, nc, "jump", MaxSeq-1, []byte{0, 0}, nil)
	publish(t, nc, "jump", MaxSeq, nil, map[string]string{HdrEOS: "1"}) // two held: past the window
	got := collect(t, ch, 5*time.Second)
	if !slices.ContainsFunc(got, func(r engine.Result) bool { return strings.Contains(r.Error, "messages 1..2147483645 never arrived") }) {
		t.Fatalf("results %+v: want the gap named", got)
	}
	if l := st.Stats().Lost; l != maxLostPerGap {
		t.Fatalf("%d messages counted lost, want the bound %d", l, maxLostPerGap)
	}
}
