package streaming

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// victim is a features + tagger worker that blocks after computing its
// first batch in each stage, before publishing or acknowledging anything,
// until the test has killed its connection.
type victim struct {
	held    atomic.Int32
	both    chan struct{} // closed once both stages are holding
	release chan struct{}
}

func newVictim() *victim {
	return &victim{both: make(chan struct{}), release: make(chan struct{})}
}

func (v *victim) hold() {
	if v.held.Add(1) == 2 {
		close(v.both)
	}
	<-v.release
}

// barImages is n raw 8×8 bar images and the in-process tagger's top-2.
func barImages(t *testing.T, n int) ([][]byte, [][]engine.Tag) {
	t.Helper()
	_, tagger := toys(t)
	raw := make([][]byte, n)
	x := linalg.NewGeneral32(n, 64)
	for i := range raw {
		px := toymodels.Bars(i%2, (i/2)%8)
		raw[i] = make([]byte, 64)
		for j, v := range px {
			raw[i][j] = byte(255 * v)
			x.Data[i*64+j] = float32(raw[i][j]) / 255
		}
	}
	want, err := tagger.TagRows(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	return raw, want
}

// killWorkerMidStream streams real-time audio and a burst of images
// through a pipeline whose only features/tagger worker holds its first
// batches; the worker's connection is then closed abruptly and a fresh
// worker started. It returns each audio stream's results and error, the
// images' replies, the embedded server, and the image burst's error.
func killWorkerMidStream(t *testing.T, durable bool, timeout time.Duration) ([][]engine.Result, []error, []TagsMessage, *Embedded, error) {
	t.Helper()
	words, images := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true, JetStream: durable, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	p := Pipeline{Name: "dur", Words: words, Images: images, TopK: 2, Durable: durable, AckWait: time.Second}
	stateful, err := Start(connect(t, srv, "stateful"), p, StageFrontend, StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stateful.Close() })
	v := newVictim()
	vp := p
	vp.hold = v.hold
	victimConn := connect(t, srv, "victim")
	victimStages, err := Start(victimConn, vp, StageFeatures, StageTagger)
	if err != nil {
		t.Fatal(err)
	}

	client := connect(t, srv, "client")
	const streams = 4
	results := make([][]engine.Result, streams)
	errs := make([]error, streams)
	var wg sync.WaitGroup
	for i := 0; i < streams; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, errs[i] = StreamAudio(ctx, client, "dur", "a"+strconv.Itoa(i), &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()},
				StreamOptions{Encoding: EncF32, RealTime: true, Durable: durable, Timeout: timeout},
				func(r engine.Result) { results[i] = append(results[i], r) })
		}(i)
	}
	raw, _ := barImages(t, 40)
	var tags []TagsMessage
	var tagErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tags, tagErr = TagImages(context.Background(), client, "dur", "imgs", raw, true, timeout)
	}()

	select {
	case <-v.both:
	case <-time.After(20 * time.Second):
		t.Fatal("the victim never received work")
	}
	victimConn.Close() // the worker dies holding unacknowledged messages
	close(v.release)
	victimStages.Close()
	survivor, err := Start(connect(t, srv, "survivor"), p, StageFeatures, StageTagger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { survivor.Close() })
	wg.Wait()
	return results, errs, tags, srv, tagErr
}

func TestDurableWorkerKilledMidStreamLosesNothing(t *testing.T) {
	results, errs, tags, srv, tagErr := killWorkerMidStream(t, true, 20*time.Second)
	want := inProcess(t, &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()})
	for i := range results {
		if errs[i] != nil || !sameResults(results[i], want) {
			t.Fatalf("stream %d (%v): after the kill\n%+v\nundisturbed\n%+v", i, errs[i], results[i], want)
		}
	}
	_, wantTags := barImages(t, 40)
	if tagErr != nil {
		t.Fatal(tagErr)
	}
	for i := range tags {
		if tags[i].Error != "" || !sameTags(tags[i].Tags, wantTags[i]) {
			t.Fatalf("image %d after the kill: %+v, undisturbed %+v", i, tags[i], wantTags[i])
		}
	}

	// The inputs and the results are in the store: every PCM chunk of a
	// stream, and its end-of-stream result equal to what the client got.
	nc, err := srv.Connect("inspector")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	_, store, err := EnsureStore(ctx, nc, "dur")
	if err != nil {
		t.Fatal(err)
	}
	info, err := store.Info(ctx, jetstream.WithSubjectFilter("rfs.v1.dur.>"))
	if err != nil {
		t.Fatal(err)
	}
	chunks := (len(toymodels.UpDown()) + 799) / 800 // 100 ms at 8 kHz
	if n := info.State.Subjects[Subject("dur", KindPCM, "a0")]; n != uint64(chunks) {
		t.Fatalf("stored %d PCM messages of stream a0, published %d", n, chunks)
	}
	if n := info.State.Subjects[Subject("dur", KindImage, "imgs")]; n != 40 {
		t.Fatalf("stored %d images, published 40", n)
	}
	last, err := store.GetLastMsgForSubject(ctx, Subject("dur", KindResult, "a0"))
	if err != nil {
		t.Fatal(err)
	}
	var r engine.Result
	if err := json.Unmarshal(last.Data, &r); err != nil || !sameResults([]engine.Result{r}, want[len(want)-1:]) {
		t.Fatalf("stored final result %s, want %+v", last.Data, want[len(want)-1])
	}
}

// Without --durable the same kill loses the victim's messages: the
// guarantee above comes from JetStream, not from luck.
func TestWithoutDurableAKilledWorkerLosesItsMessages(t *testing.T) {
	results, errs, _, _, tagErr := killWorkerMidStream(t, false, 1500*time.Millisecond)
	failed := tagErr != nil
	for i := range results {
		failed = failed || errs[i] != nil
	}
	if !failed {
		t.Fatal("every stream completed although the only worker died holding messages")
	}
}
