package streaming

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
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
	st.tag.answerImages(&imageBatch{
		work:    []work{{m: &nats.Msg{Subject: Subject("toy", KindImage, "nan")}}},
		replies: []TagsMessage{{Seq: 4, Tags: []engine.Tag{{Label: "a", Score: 0.5}, {Label: "b", Score: math.NaN()}}}},
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

// Images whose headers claim more than frontend.MaxImagePixels get an
// error reply from the header alone, and the other images of the batch,
// the same stream's included, are tagged as ever. Before the bound a
// 40 KB PNG of 6400×6400 was decoded: 0.4 s and 50 MB each, holding up the
// tagger for every client.
func TestTaggerRefusesHugeImagesFromTheHeader(t *testing.T) {
	var huge bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&huge, image.NewGray(image.Rect(0, 0, 6400, 6400))); err != nil {
		t.Fatal(err)
	}
	if huge.Len() > MaxImageBytes {
		t.Fatalf("the hostile image is %d bytes, over the message limit: it tests nothing", huge.Len())
	}
	nc, _ := pipelineWith(t, Pipeline{TopK: 2})
	raw, want := barImages(t, 4)
	var images [][]byte
	var good []int // index of each good image in raw
	for i, r := range raw {
		im := image.NewGray(image.Rect(0, 0, 8, 8))
		copy(im.Pix, r)
		var b bytes.Buffer
		if err := png.Encode(&b, im); err != nil {
			t.Fatal(err)
		}
		images = append(images, b.Bytes(), huge.Bytes())
		good = append(good, i, -1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	replies, err := TagImages(ctx, nc, "toy", "hostile", images, false, 20*time.Second)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range replies {
		switch g := good[i]; {
		case g < 0 && !strings.Contains(r.Error, "6400x6400 pixels is over the"):
			t.Fatalf("image %d (6400×6400): %+v, want refused for its size", i, r)
		case g >= 0 && (r.Error != "" || !sameTags(r.Tags, want[g])):
			t.Fatalf("image %d (good): %+v, want %+v", i, r, want[g])
		}
	}
	// Four header checks and four 8×8 decodes; one 6400×6400 decode took 0.4 s.
	if took > time.Second {
		t.Fatalf("8 images took %v", took)
	}
	t.Logf("4 refused 6400×6400 PNGs (%d bytes each) and 4 tagged images: %v (limit %d pixels)", huge.Len(), took, frontend.MaxImagePixels)
}
