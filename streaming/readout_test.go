package streaming

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A stream's queued segments that carry the same read-out hold it once:
// a hundred 5 KB vectors with equal 120 KB read-outs (the default
// adaptable model's sizes), each read-out its own copy as it comes from
// NATS, fit a 1 MiB stream bound that eight whole messages would fill.
// The queue's count stays what it holds as they are taken, a read-out
// that changes is counted again, and every item taken still has its own.
func TestFairQueueHoldsASharedReadOutOnce(t *testing.T) {
	const vector, readOut = 5 << 10, 120_000
	q := newFairQueue(1<<20, 1<<30)
	item := func(fill byte) work {
		m := nats.NewMsg("x")
		m.Data = make([]byte, vector)
		return work{m: m, readOut: bytes.Repeat([]byte{fill}, readOut)}
	}
	for i := range 100 {
		fill := byte(1)
		if i >= 60 {
			fill = 2 // the session's next read-out
		}
		if !q.push("s", item(fill), false) {
			t.Fatalf("item %d refused with %d bytes queued", i, q.bytes)
		}
	}
	held := func(items int, readOuts int) int { return items*vector + readOuts*readOut }
	if q.bytes != held(100, 2) {
		t.Fatalf("%d bytes counted, want %d (100 vectors, 2 read-outs)", q.bytes, held(100, 2))
	}
	taken := 0
	for _, n := range []int{10, 49, 1, 1, 39} {
		got, _ := q.batch(n)
		for _, w := range got {
			if len(w.readOut) != readOut || w.readOut[0] != byte(1+(taken)/60) {
				t.Fatalf("item %d taken with a read-out of %d bytes starting %d", taken, len(w.readOut), w.readOut[0])
			}
			taken++
		}
		readOuts := 0
		if taken < 60 {
			readOuts++
		}
		if taken < 100 {
			readOuts++
		}
		if q.bytes != held(100-taken, readOuts) {
			t.Fatalf("after taking %d: %d bytes counted, want %d", taken, q.bytes, held(100-taken, readOuts))
		}
	}
	if taken != 100 || !q.empty() {
		t.Fatalf("%d taken, queue empty %v", taken, q.empty())
	}
}

// The features stage of a pipeline whose frontend outruns it (a recording
// sent faster than real time, a voice whose read-out travels with every
// segment) scores every segment: 300 of one stream wait while the stage
// is held, under a stream bound that they pass with a read-out each but
// not with one shared, and each is scored as it would be alone. Before the
// read-outs were shared, the demo's live session lost the words of its
// last 35 s so ("segment dropped", experiments/journal/streaming.md).
func TestQueuedSegmentsShareTheirReadOut(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	dim, out, classes := words.Config.Dim(), words.Map.OutDim(), words.Model.RLS.Classes
	const segments = 300
	rnd := rand.New(rand.NewPCG(1, 2))
	vectors := linalg.NewGeneral32(segments, dim)
	for i := range vectors.Data {
		vectors.Data[i] = float32(rnd.NormFloat64())
	}
	readOut := make([]float32, out*classes)
	for i := range readOut {
		readOut[i] = float32(rnd.NormFloat64())
	}
	// Halfway between what the segments hold with one read-out and with
	// one each (the toy model's read-out is 400 values against a vector of
	// 1280, so the two differ by a fifth).
	shared, whole := segments*4*dim+4*out*classes, segments*4*(dim+out*classes)
	bound := (shared + whole) / 2
	gate := make(chan struct{})
	held := make(chan struct{}, 1)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	worker := connect(t, srv, "features")
	p := Pipeline{Name: "toy", Words: words, MaxStreamQueue: bound, hold: func() {
		select {
		case held <- struct{}{}:
			<-gate
		default:
		}
	}}
	st, err := Start(worker, p, StageFeatures)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	nc := connect(t, srv, "frontend")
	scores := make(chan *nats.Msg, segments)
	sub, err := nc.ChanSubscribe(Subject("toy", KindScores, "fast"), scores)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	send := func(seq int) {
		m := nats.NewMsg(Subject("toy", KindVector, "fast"))
		m.Header.Set(HdrSeq, strconv.Itoa(seq))
		m.Header.Set(HdrReadOut, strconv.Itoa(classes))
		m.Header.Set(HdrFinal, "1")
		m.Data = EncodeF32(append(append([]float32(nil), linalg.Row32(vectors, seq)...), readOut...))
		if err := nc.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	send(0) // taken alone, and held there
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the features stage never took the first segment")
	}
	for seq := 1; seq < segments; seq++ {
		send(seq)
	}
	waitFor(t, "the segments to be queued", func() bool {
		st.feat.queue.mu.Lock()
		defer st.feat.queue.mu.Unlock()
		return st.feat.queue.streams["fast"] != nil && len(st.feat.queue.streams["fast"].items)+int(st.stats.dropped.Load()) == segments-1
	})
	close(gate)
	want := words.ScoreRowsWith(vectors, repeatReadOut(words.Model.RLS, readOut, segments))
	for seq := 0; seq < segments; seq++ {
		select {
		case m := <-scores:
			if e := m.Header.Get(HdrError); e != "" {
				t.Fatalf("segment %s: %s", m.Header.Get(HdrSeq), e)
			}
			got, err := DecodeF32(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			i, _ := strconv.Atoi(m.Header.Get(HdrSeq))
			// Batched GEMMs of other heights round the last bits, relative
			// to the row's largest score (the random read-out's terms cancel).
			row, scale := linalg.Row32(want, i), 1.0
			for _, v := range row {
				scale = max(scale, math.Abs(float64(v)))
			}
			for c, v := range row {
				if d := math.Abs(float64(got[c] - v)); d > 1e-5*scale {
					t.Fatalf("segment %d, class %d: scored %v, alone %v", i, c, got[c], v)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d segments scored", seq, segments)
		}
	}
	if n := st.stats.dropped.Load(); n != 0 {
		t.Fatalf("%d segments dropped", n)
	}
}

// repeatReadOut is n rows' read-outs, all the given weights in model's
// shape.
func repeatReadOut(model *classifier.RLS, weights []float32, n int) []*classifier.RLS {
	r := &classifier.RLS{Dim: model.Dim, Classes: model.Classes, W: blas32.General{Rows: model.Dim, Cols: model.Classes, Stride: model.Classes, Data: weights}}
	out := make([]*classifier.RLS, n)
	for i := range out {
		out[i] = r
	}
	return out
}
