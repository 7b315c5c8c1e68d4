package streaming

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/rfstream/rfstream/engine"
)

// A client that ends many short streams (one message with Rfs-Eos each)
// grows the stages' memory of ended streams only up to MaxEnded; the
// newest are still remembered, so a late copy of one is dropped, and the
// oldest forgotten, so a copy of its message is a new stream's.
func TestEndedStreamsAreBounded(t *testing.T) {
	const bound, streams = 50, 200
	nc, st := pipelineWith(t, Pipeline{MaxEnded: bound})
	ch := subscribe(t, nc, Subject("toy", KindResult, ">"))
	pcm := make([]byte, 320) // 20 ms of silence at 8 kHz
	end := func(i int) {
		publish(t, nc, "e"+strconv.Itoa(i), 0, pcm, map[string]string{HdrRate: "8000", HdrEOS: "1"})
	}
	// eosResults counts end-of-stream results by stream until n have come.
	eosResults := func(n int) map[string]int {
		got := map[string]int{}
		deadline := time.After(20 * time.Second)
		for total := 0; total < n; {
			select {
			case m := <-ch:
				var r engine.Result
				if err := json.Unmarshal(m.Data, &r); err != nil {
					t.Fatal(err)
				}
				if r.EOS {
					got[StreamOf(m.Subject)]++
					total++
				}
			case <-deadline:
				t.Fatalf("%d of %d end-of-stream results: %v", total, n, got)
			}
		}
		return got
	}
	for i := range streams {
		end(i)
	}
	eosResults(streams)
	st.front.mu.Lock()
	front := st.front.ended.len()
	st.front.mu.Unlock()
	st.dec.mu.Lock()
	dec := st.dec.ended.len()
	st.dec.mu.Unlock()
	if front != bound || dec != bound {
		t.Fatalf("after %d ended streams the frontend remembers %d and the decoder %d, want the bound %d each", streams, front, dec, bound)
	}

	dups := st.Stats().Duplicates
	end(streams - 1) // a late copy of the newest: dropped
	end(0)           // a copy of the oldest, forgotten: a stream again
	if got := eosResults(1); got["e0"] != 1 {
		t.Fatalf("end-of-stream results after the copies: %v, want one for e0 only", got)
	}
	if d := st.Stats().Duplicates - dups; d != 1 {
		t.Fatalf("%d duplicates counted, want 1 (the newest stream's late copy)", d)
	}
}

// The memory forgets by age, oldest first, and a name remembered again
// keeps its newer entry when its older one is forgotten.
func TestEndedStreamsExpireOldestFirst(t *testing.T) {
	e := newEndedStreams(3)
	t0 := time.Unix(1000, 0)
	for i, name := range []string{"a", "b", "c"} {
		e.add(name, endedStream{at: t0.Add(time.Duration(i) * time.Second), next: i})
	}
	e.expire(t0.Add(1500 * time.Millisecond)) // a and b are older
	if _, ok := e.get("b"); ok || e.len() != 1 {
		t.Fatalf("after expiry: %d entries, b remembered %v; want c alone", e.len(), ok)
	}
	e.add("a", endedStream{at: t0.Add(3 * time.Second)})
	e.add("d", endedStream{at: t0.Add(4 * time.Second)})
	e.add("e", endedStream{at: t0.Add(5 * time.Second)}) // over the bound: c goes
	if _, ok := e.get("c"); ok || e.len() != 3 {
		t.Fatalf("%d entries, c remembered %v; want a, d, e", e.len(), ok)
	}
	if v, ok := e.get("a"); !ok || !v.at.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("a: %+v %v, want its newer entry", v, ok)
	}
}
