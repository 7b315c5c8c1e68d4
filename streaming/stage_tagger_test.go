package streaming

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream"
)

// The tagger stage decodes, tags and answers in three steps that overlap
// from batch to batch. Replies still come in the order the images were
// sent, and closing the stages answers every batch already taken.
func TestTaggerAnswersEveryBatchInOrderEvenWhenClosed(t *testing.T) {
	const n = 60 // Batch 1: the tagger takes at most 8 images at a time
	nc, st := pipelineWith(t, Pipeline{TopK: 2, Batch: 1, hold: func() { time.Sleep(20 * time.Millisecond) }})
	raw, want := barImages(t, n)
	ch := subscribe(t, nc, Subject("toy", KindTags, "burst"))
	for i, b := range raw {
		m := nats.NewMsg(Subject("toy", KindImage, "burst"))
		m.Data = b
		m.Header.Set(HdrSeq, strconv.Itoa(i))
		m.Header.Set(HdrEncoding, EncU8)
		if err := nc.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	nc.Flush()
	read := func(i int) {
		t.Helper()
		select {
		case m := <-ch:
			var r TagsMessage
			if err := decodeTags(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			if r.Seq != i || r.Error != "" || !sameTags(r.Tags, want[i]) {
				t.Fatalf("reply %d: %+v, want seq %d tagged %+v", i, r, i, want[i])
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d images answered", i, n)
		}
	}
	read(0)
	// The first batch is answered; the rest are queued or in flight.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < n; i++ {
		read(i)
	}
	if b := st.Stats().Batches; b < n/8 {
		t.Fatalf("%d images in %d batches, want at least %d", n, b, n/8)
	}
}

// A score that cannot be written as JSON becomes an error reply, not an
// empty message.
func TestNonFiniteScoreIsAnErrorReply(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{})
	ch := subscribe(t, nc, Subject("toy", KindTags, "nan"))
	st.answerImages(&imageBatch{
		work:    []work{{m: &nats.Msg{Subject: Subject("toy", KindImage, "nan")}}},
		replies: []TagsMessage{{Seq: 4, Tags: []rfstream.Tag{{Label: "a", Score: 0.5}, {Label: "b", Score: math.NaN()}}}},
	})
	select {
	case m := <-ch:
		var r TagsMessage
		if err := json.Unmarshal(m.Data, &r); err != nil {
			t.Fatalf("reply %q: %v", m.Data, err)
		}
		if r.Seq != 4 || len(r.Tags) != 0 || !strings.Contains(r.Error, "not finite") {
			t.Fatalf("reply %+v, want seq 4 with an error about the score", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no reply")
	}
	if e := st.Stats().Errors; e != 1 {
		t.Fatalf("%d errors counted, want 1", e)
	}
}
