package streaming

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
)

var (
	toyOnce   sync.Once
	toyWords  *engine.WordClassifier
	toyImages *engine.ImageTagger
	toyErr    error
)

func toys(t *testing.T) (*engine.WordClassifier, *engine.ImageTagger) {
	t.Helper()
	toyOnce.Do(func() {
		toyWords, toyErr = toymodels.Words()
		if toyErr == nil {
			toyImages, toyErr = toymodels.Images()
		}
	})
	if toyErr != nil {
		t.Fatal(toyErr)
	}
	return toyWords, toyImages
}

// pipeline starts an embedded server (in-process only, or listening on
// loopback) with every stage, and returns a client connection.
func pipeline(t *testing.T, listen bool) (*Embedded, *nats.Conn, *Stages) {
	t.Helper()
	words, images := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{Listen: listen})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	worker, err := srv.Connect("stages")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(worker.Close)
	st, err := Start(worker, Pipeline{Name: "toy", Words: words, Images: images, TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	client, err := srv.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return srv, client, st
}

// inProcess runs the same audio through the in-process recogniser.
func inProcess(t *testing.T, a *frontend.Audio) []engine.Result {
	t.Helper()
	words, _ := toys(t)
	return spotAlone(t, words, a)
}

// spotAlone runs a through a fresh in-process WordSpotter of words.
func spotAlone(t *testing.T, words *engine.WordClassifier, a *frontend.Audio) []engine.Result {
	t.Helper()
	sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	return append(sp.Push(a.Samples), sp.Flush()...)
}

// upDowns is the toy recording k times over, as one stream.
func upDowns(k int) *frontend.Audio {
	var pcm []float32
	for range k {
		pcm = append(pcm, toymodels.UpDown()...)
	}
	return &frontend.Audio{Rate: 8000, Samples: pcm}
}

// sameResults compares result sequences: texts, words, times and flags
// exactly, confidences to 1e-6. Batched GEMMs of different heights may
// round the last bits of a score differently, nothing more.
func sameResults(a, b []engine.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Text != y.Text || x.Final != y.Final || x.EOS != y.EOS || x.Error != y.Error || len(x.Words) != len(y.Words) {
			return false
		}
		if (x.Voice == nil) != (y.Voice == nil) || (x.Voice != nil && *x.Voice != *y.Voice) {
			return false
		}
		for j := range x.Words {
			u, v := x.Words[j], y.Words[j]
			if u.Word != v.Word || u.Start != v.Start || u.End != v.End || math.Abs(u.Conf-v.Conf) > 1e-6 {
				return false
			}
		}
	}
	return true
}

func streamAll(t *testing.T, nc *nats.Conn, stream string, a *frontend.Audio, o StreamOptions) []engine.Result {
	t.Helper()
	var got []engine.Result
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := StreamAudio(ctx, nc, "toy", stream, a, o, func(r engine.Result) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestNATSPipelineEqualsInProcess(t *testing.T) {
	for _, listen := range []bool{false, true} {
		_, nc, _ := pipeline(t, listen)
		a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
		want := inProcess(t, a)
		// f32 carries the samples exactly; chunking must not matter.
		for _, chunk := range []float64{10, 100, 1000} {
			got := streamAll(t, nc, "s"+strconv.Itoa(int(chunk)), a, StreamOptions{ChunkMs: chunk, Encoding: EncF32})
			if !sameResults(got, want) {
				t.Fatalf("listen=%v chunk %v ms: NATS results\n%+v\nin-process\n%+v", listen, chunk, got, want)
			}
		}
		if last := want[len(want)-1]; last.Text != "up down" || !last.EOS {
			t.Fatalf("recognised %+v", last)
		}
	}
}

func TestImagesThroughNATSEqualInProcess(t *testing.T) {
	_, nc, _ := pipeline(t, false)
	_, tagger := toys(t)
	raw := make([][]byte, 16)
	x := linalg.NewGeneral32(16, 64)
	for i := range raw {
		px := toymodels.Bars(i%2, i/2)
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
	got, err := TagImages(context.Background(), nc, "toy", "imgs", raw, true, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i].Error != "" || len(got[i].Tags) != 2 {
			t.Fatalf("image %d: %+v", i, got[i])
		}
		for j, tag := range got[i].Tags {
			if tag.Label != want[i][j].Label || math.Abs(tag.Score-want[i][j].Score) > 1e-6 {
				t.Fatalf("image %d: NATS %+v, in-process %+v", i, got[i].Tags, want[i])
			}
		}
		if wantLabel := []string{"horizontal", "vertical"}[i%2]; got[i].Tags[0].Label != wantLabel {
			t.Fatalf("image %d tagged %q, want %q", i, got[i].Tags[0].Label, wantLabel)
		}
	}
}

// publish sends one raw PCM message.
func publish(t *testing.T, nc *nats.Conn, stream string, seq int, data []byte, hdr map[string]string) {
	t.Helper()
	m := nats.NewMsg(Subject("toy", KindPCM, stream))
	m.Data = data
	if seq >= 0 {
		m.Header.Set(HdrSeq, strconv.Itoa(seq))
	}
	for k, v := range hdr {
		m.Header.Set(k, v)
	}
	if err := nc.PublishMsg(m); err != nil {
		t.Fatal(err)
	}
}

// collect gathers results of a stream until one has EOS or the timeout.
func collect(t *testing.T, ch chan *nats.Msg, timeout time.Duration) []engine.Result {
	t.Helper()
	var out []engine.Result
	deadline := time.After(timeout)
	for {
		select {
		case m := <-ch:
			var r engine.Result
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
			if r.EOS {
				return out
			}
		case <-deadline:
			return out
		}
	}
}

func TestOutOfOrderAndDuplicateMessagesGiveTheSameResult(t *testing.T) {
	_, nc, st := pipeline(t, false)
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	want := inProcess(t, a)
	var chunks [][]byte
	for off := 0; off < len(a.Samples); off += 800 {
		b, _ := EncodePCM(a.Samples[off:min(off+800, len(a.Samples))], EncF32)
		chunks = append(chunks, b)
	}
	ch := resultsOf(t, nc, "shuffled")
	// Publish in pairs swapped, every message twice.
	order := []int{}
	for i := 0; i < len(chunks); i += 2 {
		if i+1 < len(chunks) {
			order = append(order, i+1)
		}
		order = append(order, i)
	}
	for _, i := range order {
		for rep := 0; rep < 2; rep++ {
			hdr := map[string]string{HdrRate: "8000", HdrEncoding: EncF32}
			if i == len(chunks)-1 {
				hdr[HdrEOS] = "1"
			}
			publish(t, nc, "shuffled", i, chunks[i], hdr)
		}
	}
	got := collect(t, ch, 10*time.Second)
	if !sameResults(got, want) {
		t.Fatalf("reordered stream gave\n%+v\nwant\n%+v", got, want)
	}
	// The last message's copy may be read after the end-of-stream result
	// went out: wait for it to be counted rather than race it.
	waitFor(t, "every copy counted", func() bool { return st.Stats().Duplicates >= int64(len(chunks)) })
	if d := st.Stats().Duplicates; d != int64(len(chunks)) {
		t.Fatalf("%d duplicates counted, sent %d", d, len(chunks))
	}
}

func TestBadMessagesGetErrorResultsAndOthersAreServed(t *testing.T) {
	_, nc, st := pipeline(t, false)
	ch := make(chan *nats.Msg, 64)
	sub, _ := nc.ChanSubscribe(Subject("toy", KindResult, "*"), ch)
	defer sub.Unsubscribe()
	nc.Flush()
	expectError := func(stream, want string) {
		t.Helper()
		select {
		case m := <-ch:
			var r engine.Result
			json.Unmarshal(m.Data, &r)
			if StreamOf(m.Subject) != stream || !strings.Contains(r.Error, want) {
				t.Fatalf("result on %s: %+v, want an error mentioning %q on %s", m.Subject, r, want, stream)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no error result for %s (%q)", stream, want)
		}
	}
	publish(t, nc, "noseq", -1, []byte{0, 0}, map[string]string{HdrRate: "8000"})
	expectError("noseq", HdrSeq)
	publish(t, nc, "norate", 0, []byte{0, 0}, nil)
	expectError("norate", HdrRate)
	publish(t, nc, "big", 0, make([]byte, MaxChunkBytes+2), map[string]string{HdrRate: "8000"})
	expectError("big", "exceeds")
	publish(t, nc, "enc", 0, []byte{0, 0}, map[string]string{HdrRate: "8000", HdrEncoding: "mp3"})
	expectError("enc", "unknown PCM encoding")
	nan, _ := EncodePCM([]float32{0}, EncF32)
	nan[3] = 0x7f
	nan[2] = 0xc0
	publish(t, nc, "nan", 0, nan, map[string]string{HdrRate: "8000", HdrEncoding: EncF32})
	expectError("nan", "NaN")
	publish(t, nc, "rate", 0, []byte{0, 0}, map[string]string{HdrRate: "12"})
	expectError("rate", "rate")
	// A stream that ended refuses more audio.
	publish(t, nc, "ended", 0, []byte{0, 0}, map[string]string{HdrRate: "8000", HdrEOS: "1"})
	if r := collect(t, ch, 5*time.Second); len(r) != 1 || !r[0].EOS {
		t.Fatalf("short stream results %+v", r)
	}
	publish(t, nc, "ended", 1, []byte{0, 0}, nil)
	expectError("ended", "already ended")
	// After all that, a good stream is still recognised.
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	sub.Unsubscribe()
	got := streamAll(t, nc, "good", a, StreamOptions{Encoding: EncF32})
	if last := got[len(got)-1]; last.Text != "up down" {
		t.Fatalf("good stream after bad ones: %+v", last)
	}
	if st.Stats().Errors < 7 {
		t.Fatalf("stats count %d errors, want ≥ 7", st.Stats().Errors)
	}
}

func TestLostMessagesAreReportedAndSkipped(t *testing.T) {
	words, images := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, _ := srv.Connect("all")
	defer nc.Close()
	st, err := Start(nc, Pipeline{Name: "toy", Words: words, Images: images, Window: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ch := resultsOf(t, nc, "gap")
	zero := make([]byte, 160)
	publish(t, nc, "gap", 0, zero, map[string]string{HdrRate: "8000"})
	for seq := 2; seq <= 7; seq++ { // message 1 never comes
		hdr := map[string]string{}
		if seq == 7 {
			hdr[HdrEOS] = "1"
		}
		publish(t, nc, "gap", seq, zero, hdr)
	}
	res := collect(t, ch, 5*time.Second)
	if len(res) < 2 || !strings.Contains(res[0].Error, "1..1 never arrived") || !res[len(res)-1].EOS {
		t.Fatalf("results %+v", res)
	}
	if st.Stats().Lost != 1 {
		t.Fatalf("lost %d, want 1", st.Stats().Lost)
	}
}

func TestFeatureWorkersScaleOut(t *testing.T) {
	words, _ := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// One process runs the stateful stages, three others the features stage.
	conns := make([]*nats.Conn, 5)
	for i := range conns {
		if conns[i], err = srv.Connect("c" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close()
	}
	p := Pipeline{Name: "toy", Words: words}
	for i, stages := range [][]string{{StageFrontend, StageDecoder}, {StageFeatures}, {StageFeatures}, {StageFeatures}} {
		st, err := Start(conns[i], p, stages...)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
	}
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	want := inProcess(t, a)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var got []engine.Result
			_, err := StreamAudio(context.Background(), conns[4], "toy", "par"+strconv.Itoa(i), a, StreamOptions{Encoding: EncF32, ChunkMs: 50},
				func(r engine.Result) { got = append(got, r) })
			if err != nil || !sameResults(got, want) {
				errs <- "stream " + strconv.Itoa(i) + " differs"
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	x := []float32{0, 0.5, -0.5, 0.999, -1}
	for _, enc := range []string{EncS16, EncF32} {
		b, err := EncodePCM(x, enc)
		if err != nil {
			t.Fatal(err)
		}
		y, err := DecodePCM(b, enc)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if d := x[i] - y[i]; d > 1.0/32768 || d < -1.0/32768 {
				t.Fatalf("%s sample %d: %v → %v", enc, i, x[i], y[i])
			}
		}
	}
	if _, err := DecodePCM([]byte{1, 2, 3}, EncS16); err == nil {
		t.Fatal("odd s16 payload accepted")
	}
	if err := CheckName("stream", "a.b"); err == nil {
		t.Fatal("dotted stream name accepted")
	}
}

// A voice-normalised word model follows each stream's voice
// (engine.VoiceSession, final segments only): through NATS exactly as in
// one process, for every chunking.
func TestVoiceSessionThroughNATSEqualsInProcess(t *testing.T) {
	words, err := toymodels.VoiceWords()
	if err != nil {
		t.Fatal(err)
	}
	nc, _ := pipelineWith(t, Pipeline{Words: words})
	a := &frontend.Audio{Rate: 8000, Samples: append(toymodels.UpDown(), toymodels.UpDown()...)}
	sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	want := append(sp.Push(a.Samples), sp.Flush()...)
	if last := want[len(want)-1]; last.Text != "up down up down" {
		t.Fatalf("in process: %+v", last)
	}
	for _, chunk := range []float64{10, 250} {
		got := streamAll(t, nc, "voice"+strconv.Itoa(int(chunk)), a, StreamOptions{ChunkMs: chunk, Encoding: EncF32})
		if !sameResults(got, want) {
			t.Fatalf("chunk %v ms: NATS results\n%+v\nin-process\n%+v", chunk, got, want)
		}
	}
}

// A stream long enough for its session to self-train (16 words: the
// first self-training on 10 scores from the 15th) is recognised through
// NATS as in one process, the read-out travelling with the vectors.
func TestSelfTrainingSessionThroughNATSEqualsInProcess(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	nc, _ := pipelineWith(t, Pipeline{Words: words})
	a := upDowns(8)
	spot := func(selfTrain bool) []engine.Result {
		sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
		if err != nil {
			t.Fatal(err)
		}
		sp.SetSelfTrain(selfTrain)
		return append(sp.Push(a.Samples), sp.Flush()...)
	}
	want, plain := spot(true), spot(false)
	last := want[len(want)-1]
	if len(last.Words) != 16 || strings.Count(last.Text, "up") != 8 {
		t.Fatalf("in process: %+v", last)
	}
	// Words 1–14 are scored with the model's read-out, 15 and 16 with the
	// session's.
	for i, w := range last.Words {
		p := plain[len(plain)-1].Words[i]
		if same := math.Abs(w.Conf-p.Conf) < 1e-9; same != (i < 14) {
			t.Fatalf("word %d: confidence %v self-training, %v without", i+1, w.Conf, p.Conf)
		}
	}
	for _, chunk := range []float64{10, 250} {
		got := streamAll(t, nc, "adapt"+strconv.Itoa(int(chunk)), a, StreamOptions{ChunkMs: chunk, Encoding: EncF32})
		if !sameResults(got, want) {
			t.Fatalf("chunk %v ms: NATS results\n%+v\nin-process\n%+v", chunk, got, want)
		}
	}
	// NoSelfTrain: as the in-process spotter without self-training.
	off, _ := pipelineWith(t, Pipeline{Words: words, NoSelfTrain: true})
	if got := streamAll(t, off, "noadapt", a, StreamOptions{ChunkMs: 100, Encoding: EncF32}); !sameResults(got, plain) {
		t.Fatalf("NoSelfTrain: NATS results\n%+v\nin-process without self-training\n%+v", got, plain)
	}
}

// Many long streams reaching their sessions' checkpoints together queue
// for the model's self-training, one at a time; each still gets exactly
// the results it gets alone, and none is lost or mixed with another.
func TestConcurrentSelfTrainingSessionsEqualInProcess(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	const streams = 8
	// Every session that has heard 10 words (its first self-training,
	// queued or running from then) is held until all eight are,
	// so the streams go on from there together.
	var mu sync.Mutex
	held := map[*engine.VoiceSession]bool{}
	gate := make(chan struct{})
	real := sessionBusy
	sessionBusy = func(v *engine.VoiceSession) <-chan struct{} {
		if b := real(v); b != nil {
			return b
		}
		mu.Lock()
		defer mu.Unlock()
		if len(held) == streams || v.Recordings() < 10 {
			return nil
		}
		if held[v] = true; len(held) == streams {
			close(gate)
			return nil
		}
		return gate
	}
	t.Cleanup(func() { sessionBusy = real })
	nc, st := pipelineWith(t, Pipeline{Words: words})
	a := upDowns(8)
	want := spotAlone(t, words, a)
	var wg sync.WaitGroup
	errs := make(chan string, streams)
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got []engine.Result
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			// Chunks of different sizes, so the streams' words arrive
			// interleaved differently.
			opts := StreamOptions{ChunkMs: float64(40 + 30*i), Encoding: EncF32}
			if _, err := StreamAudio(ctx, nc, "toy", "many"+strconv.Itoa(i), a, opts, func(r engine.Result) { got = append(got, r) }); err != nil {
				errs <- fmt.Sprintf("stream %d: %v", i, err)
				return
			}
			if !sameResults(got, want) {
				errs <- fmt.Sprintf("stream %d: NATS results\n%+v\nin-process\n%+v", i, got, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if s := st.Stats(); s.Lost != 0 || s.Errors != 0 {
		t.Fatalf("stage counters: %+v", s)
	}
	if len(held) != streams {
		t.Fatalf("%d sessions reached the meeting point, want %d", len(held), streams)
	}
}

// A stream whose voice session is busy self-training is set aside, not
// waited for: another stream is served meanwhile, and the first one's
// results, end-of-stream included, come once the session is free, the
// same as in one process.
func TestBusySessionHoldsOnlyItsOwnStream(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	var once sync.Once
	real := sessionBusy
	sessionBusy = func(v *engine.VoiceSession) <-chan struct{} {
		if b := real(v); b != nil {
			return b
		}
		// The first session to have heard three words is "busy" until
		// the test opens the gate.
		var held <-chan struct{}
		if v.Recordings() == 3 {
			once.Do(func() { held = gate })
		}
		return held
	}
	t.Cleanup(func() { sessionBusy = real })
	nc, _ := pipelineWith(t, Pipeline{Words: words})
	long := upDowns(3)
	want := spotAlone(t, words, long)
	done := make(chan []engine.Result)
	go func() {
		var got []engine.Result
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		StreamAudio(ctx, nc, "toy", "held", long, StreamOptions{ChunkMs: 100, Encoding: EncF32}, func(r engine.Result) { got = append(got, r) })
		done <- got
	}()
	// The other stream finishes while the first is held.
	short := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	if got := streamAll(t, nc, "free", short, StreamOptions{ChunkMs: 100, Encoding: EncF32}); got[len(got)-1].Text != "up down" {
		t.Fatalf("the other stream: %+v", got[len(got)-1])
	}
	select {
	case got := <-done:
		t.Fatalf("the held stream ended before its session was free: %+v", got[len(got)-1])
	case <-time.After(200 * time.Millisecond):
	}
	close(gate)
	if got := <-done; !sameResults(got, want) {
		t.Fatalf("held stream: NATS results\n%+v\nin-process\n%+v", got, want)
	}
}
