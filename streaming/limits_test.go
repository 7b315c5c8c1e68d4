package streaming

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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
		// Held past a gap: handled, the gap reported, then the end.
		{"gap", "", true, []string{"without a valid " + HdrSeq, "messages 0..0 never arrived"}, "up down"},
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
		st.mu.Lock()
		defer st.mu.Unlock()
		if f := st.front[stream]; f != nil {
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
