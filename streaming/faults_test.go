package streaming

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// pipelineWith starts an embedded server and every stage of p (toy models
// filled in where p has none), and returns a client connection.
func pipelineWith(t *testing.T, p Pipeline) (*nats.Conn, *Stages) {
	t.Helper()
	_, nc, st := pipelineOn(t, p)
	return nc, st
}

// pipelineOn is pipelineWith that also returns the server.
func pipelineOn(t *testing.T, p Pipeline) (*Embedded, *nats.Conn, *Stages) {
	t.Helper()
	words, images := toys(t)
	p.Name, p.Images = "toy", images
	if p.Connected == nil && p.Words == nil {
		p.Words = words
	}
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	worker, err := srv.Connect("stages")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(worker.Close)
	st, err := Start(worker, p)
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

// connect opens a connection named name to srv, closed when the test ends.
func connect(t *testing.T, srv *Embedded, name string) *nats.Conn {
	t.Helper()
	nc, err := srv.Connect(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func resultsOf(t *testing.T, nc *nats.Conn, stream string) chan *nats.Msg {
	t.Helper()
	return subscribe(t, nc, Subject("toy", KindResult, stream))
}

// subscribe receives subject's messages on the channel it returns until the
// test ends; the server has the subscription when it returns.
func subscribe(t *testing.T, nc *nats.Conn, subject string) chan *nats.Msg {
	t.Helper()
	ch := make(chan *nats.Msg, 256)
	sub, err := nc.ChanSubscribe(subject, ch)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return ch
}

// expectResults checks a stream's results in order: each wanted string
// must appear in the matching result's error ("" for no error), and the
// last must be the end-of-stream result.
func expectResults(t *testing.T, got []engine.Result, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if (w == "") != (got[i].Error == "") || !strings.Contains(got[i].Error, w) {
			t.Fatalf("result %d: %+v, want error containing %q", i, got[i], w)
		}
	}
	if !got[len(got)-1].EOS {
		t.Fatalf("the last result %+v is not end-of-stream", got[len(got)-1])
	}
}

func TestImageFaultsGetErrorTagsAndGoodImagesAreTagged(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{TopK: 2})
	raw, want := barImages(t, 4)
	ch := subscribe(t, nc, Subject("toy", KindTags, "mixed"))
	send := func(seq int, data []byte, enc string) {
		m := nats.NewMsg(Subject("toy", KindImage, "mixed"))
		m.Data = data
		if seq >= 0 {
			m.Header.Set(HdrSeq, strconv.Itoa(seq))
		}
		if enc != "" {
			m.Header.Set(HdrEncoding, enc)
		}
		if err := nc.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	send(0, raw[0], EncU8)
	send(1, raw[1][:63], EncU8)                // raw raster of the wrong size
	send(2, []byte("GIF89a not really"), "")   // undecodable image
	send(3, make([]byte, MaxImageBytes+1), "") // over the size limit
	send(-1, raw[2], EncU8)                    // no sequence number
	send(5, raw[3], EncU8)
	wantErr := map[int]string{1: "raw image of 63 bytes", 2: "", 3: "exceeds", -1: HdrSeq}
	got := map[int]TagsMessage{}
	for len(got) < 6 {
		select {
		case m := <-ch:
			var r TagsMessage
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			got[r.Seq] = r
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of 6 replies: %+v", len(got), got)
		}
	}
	for seq, w := range wantErr {
		if got[seq].Error == "" || !strings.Contains(got[seq].Error, w) || len(got[seq].Tags) != 0 {
			t.Fatalf("image %d: %+v, want an error containing %q", seq, got[seq], w)
		}
	}
	for seq, i := range map[int]int{0: 0, 5: 3} {
		if got[seq].Error != "" || !sameTags(got[seq].Tags, want[i]) {
			t.Fatalf("good image %d among bad ones: %+v, want %+v", seq, got[seq], want[i])
		}
	}
	if e := st.Stats().Errors; e != 4 {
		t.Fatalf("%d errors counted, want 4", e)
	}
}

// Messages between stages come from our own workers, but a stray or
// corrupted one must still end as an error result, not a crash or a hang.
// sendRaw publishes a hand-made message on a subject of the toy pipeline.
func sendRaw(t *testing.T, nc *nats.Conn, kind, stream string, hdr map[string]string, data []byte) {
	t.Helper()
	m := nats.NewMsg(Subject("toy", kind, stream))
	m.Data = data
	for k, v := range hdr {
		m.Header.Set(k, v)
	}
	if err := nc.PublishMsg(m); err != nil {
		t.Fatal(err)
	}
}

func TestBadInterStageMessagesGetErrorResults(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{})
	send := func(kind, stream string, hdr map[string]string, data []byte) { sendRaw(t, nc, kind, stream, hdr, data) }
	ch := resultsOf(t, nc, "badvec")
	send(KindVector, "badvec", map[string]string{HdrSeq: "0", HdrFinal: "1"}, make([]byte, 12))
	send(KindVector, "badvec", map[string]string{HdrEOS: "1", HdrCount: "1"}, nil)
	expectResults(t, collect(t, ch, 5*time.Second), "word vector of 12 bytes", "")

	// A vector with a read-out: the wrong class count, the wrong length,
	// a NaN weight; then a good one, which is recognised.
	words, _ := toys(t)
	dim, outDim := words.Config.Dim(), words.Map.OutDim()
	good := make([]float32, dim+2*outDim)
	ch = resultsOf(t, nc, "badreadout")
	send(KindVector, "badreadout", map[string]string{HdrSeq: "0", HdrFinal: "1", HdrReadOut: "3"}, EncodeF32(good))
	send(KindVector, "badreadout", map[string]string{HdrSeq: "1", HdrFinal: "1", HdrReadOut: "2"}, EncodeF32(good[:dim+outDim]))
	nan := append([]float32(nil), good...)
	nan[dim+5] = float32(math.NaN())
	send(KindVector, "badreadout", map[string]string{HdrSeq: "2", HdrFinal: "1", HdrReadOut: "2"}, EncodeF32(nan))
	send(KindVector, "badreadout", map[string]string{HdrSeq: "3", HdrFinal: "1", HdrReadOut: "2"}, EncodeF32(good))
	send(KindVector, "badreadout", map[string]string{HdrEOS: "1", HdrCount: "4"}, nil)
	expectResults(t, collect(t, ch, 5*time.Second), "the model has 2 classes", "with a read-out of", "read-out holds NaN", "", "")

	ch = resultsOf(t, nc, "badscores")
	send(KindScores, "badscores", map[string]string{HdrSeq: "0", HdrFinal: "1"}, []byte{1, 2, 3})
	send(KindScores, "badscores", map[string]string{HdrSeq: "x"}, nil)
	send(KindScores, "badscores", map[string]string{HdrEOS: "1", HdrCount: "1"}, nil)
	expectResults(t, collect(t, ch, 5*time.Second), "scores of 3 bytes", "without a valid "+HdrSeq, "")

	ch = resultsOf(t, nc, "badeos")
	send(KindScores, "badeos", map[string]string{HdrEOS: "1", HdrCount: "many"}, nil)
	send(KindScores, "badeos", map[string]string{HdrEOS: "1", HdrCount: "0"}, nil)
	expectResults(t, collect(t, ch, 5*time.Second), "without a valid "+HdrCount, "")

	// A voice progress that cannot be: an error, and the end-of-stream
	// result without it.
	for i, bad := range [][2]string{{"x", "0"}, {"3", "5"}, {"-1", "0"}, {"2", ""}} {
		stream := "badvoice" + strconv.Itoa(i)
		ch = resultsOf(t, nc, stream)
		send(KindScores, stream, map[string]string{HdrEOS: "1", HdrCount: "0", HdrVoiceRecordings: bad[0], HdrVoiceAdaptedOn: bad[1]}, nil)
		got := collect(t, ch, 5*time.Second)
		expectResults(t, got, "voice progress", "")
		if got[1].Voice != nil {
			t.Fatalf("progress %v: end-of-stream result %+v", bad, got[1])
		}
	}
}

// A stream whose end-of-stream message never comes, one that never
// started, and one whose segments stop short at the decoder are all ended
// after the idle timeout with an error result and an end-of-stream result.
func TestIdleStreamsAreEndedWithAnErrorAndAFinalResult(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{IdleTimeout: 300 * time.Millisecond})
	a := toymodels.UpDown()
	ch := resultsOf(t, nc, "noeos")
	var got []engine.Result
	for seq, off := 0, 0; off < len(a); seq, off = seq+1, off+800 {
		b, _ := EncodePCM(a[off:min(off+800, len(a))], EncF32)
		publish(t, nc, "noeos", seq, b, map[string]string{HdrRate: "8000", HdrEncoding: EncF32})
	}
	got = collect(t, ch, 5*time.Second)
	want := inProcess(t, &frontend.Audio{Rate: 8000, Samples: a})
	// The idle error comes from the frontend, so it overtakes the last
	// word, which still goes through the features stage.
	var rest []engine.Result
	idleErrors := 0
	for _, r := range got {
		if strings.Contains(r.Error, "idle") {
			idleErrors++
		} else {
			rest = append(rest, r)
		}
	}
	if idleErrors != 1 || !sameResults(rest, want) {
		t.Fatalf("stream without end-of-stream:\n%+v\nwant the in-process results and one idle error:\n%+v", got, want)
	}

	ch = resultsOf(t, nc, "orphan")
	publish(t, nc, "orphan", 3, make([]byte, 320), map[string]string{HdrEncoding: EncS16})
	expectResults(t, collect(t, ch, 5*time.Second), "idle", "0..2 never arrived", "needs an "+HdrRate, "never started")

	ch = resultsOf(t, nc, "short")
	m := nats.NewMsg(Subject("toy", KindScores, "short"))
	m.Header.Set(HdrEOS, "1")
	m.Header.Set(HdrCount, "2")
	nc.PublishMsg(m)
	expectResults(t, collect(t, ch, 5*time.Second), "segments 0..1 never arrived", "")
	if l := st.Stats().Lost; l != 5 {
		t.Fatalf("lost %d, want 5 (3 orphan messages, 2 segments at the decoder)", l)
	}
}

// Bad messages of every kind, sprayed while a real-time stream runs, do not
// change a single result of that stream.
func TestGoodStreamUnaffectedByConcurrentBadMessages(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{})
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	want := inProcess(t, a)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bad := []struct {
			kind string
			hdr  map[string]string
			data []byte
		}{
			{KindPCM, map[string]string{HdrRate: "8000", HdrEncoding: "opus"}, []byte{1, 2}},
			{KindPCM, map[string]string{HdrRate: "-5"}, []byte{1, 2}},
			{KindPCM, map[string]string{HdrRate: "8000", HdrVoice: "two words"}, []byte{1, 2}},
			{KindPCM, map[string]string{HdrRate: "8000"}, []byte{1, 2, 3}},
			{KindPCM, map[string]string{HdrRate: "8000", HdrEOS: "1"}, make([]byte, MaxChunkBytes+2)},
			{KindVector, map[string]string{}, []byte{9}},
			{KindScores, map[string]string{HdrEOS: "1", HdrCount: "1"}, nil},
			{KindImage, map[string]string{HdrEncoding: EncU8}, []byte{0}},
		}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			b := bad[i%len(bad)]
			m := nats.NewMsg(Subject("toy", b.kind, "bad"+strconv.Itoa(i)))
			m.Data = b.data
			m.Header.Set(HdrSeq, strconv.Itoa(i%3))
			for k, v := range b.hdr {
				m.Header.Set(k, v)
			}
			nc.PublishMsg(m)
		}
	}()
	var got []engine.Result
	_, err := StreamAudio(context.Background(), nc, "toy", "good", a, StreamOptions{Encoding: EncF32, RealTime: true, ChunkMs: 50},
		func(r engine.Result) { got = append(got, r) })
	close(stop)
	wg.Wait()
	if err != nil || !sameResults(got, want) {
		t.Fatalf("good stream amid bad messages (%v):\n%+v\nwant\n%+v", err, got, want)
	}
}

func FuzzDecodePCM(f *testing.F) {
	for _, s := range [][]byte{nil, {0}, {0, 0}, {1, 2, 3, 4}, {0, 0, 0xc0, 0x7f}, {0, 0, 0x80, 0x7f}} {
		f.Add(s, EncS16)
		f.Add(s, EncF32)
	}
	f.Add([]byte{1, 2}, "mp3")
	f.Fuzz(func(t *testing.T, b []byte, enc string) {
		x, err := DecodePCM(b, enc)
		if err != nil {
			return
		}
		for _, v := range x {
			if enc == EncS16 && (v < -1 || v > 1) {
				t.Fatalf("s16 sample %v out of range", v)
			}
		}
		// Decoded samples re-encode to the same bytes.
		y, err := EncodePCM(x, enc)
		if err != nil || string(y) != string(b) {
			t.Fatalf("%s round trip changed %x to %x (%v)", enc, b, y, err)
		}
	})
}

// A PCM message costs the frontend stage at most pcmAllocPerByte bytes of
// allocation for each payload byte (the samples decoded, resampled and
// cut into frames and word vectors), plus, for a stream it starts, its
// resampler's table (float32 taps, and float64 scratch while building
// them: 12 bytes a tap, at most MaxFilterTaps) and pcmAllocSlack (the
// segmenter, the voice session, the results published).
const (
	pcmAllocPerByte = 64
	pcmAllocSlack   = 2 << 20
)

// FuzzPCMMessage hands arbitrary headers and payloads to the frontend
// stage: it must answer with results, never panic, and allocate within
// the bound above (a rate of 767998 Hz once built a 13.4 million-tap
// table, 160 MB, for one 1.6 KB message).
func FuzzPCMMessage(f *testing.F) {
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
	st, err := Start(nc, Pipeline{Name: "fuzz", Words: words}, StageFrontend)
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	f.Add("s", "0", "8000", EncS16, "1", []byte{0, 0, 1, 0})
	f.Add("s", "1", "16000", EncF32, "0", []byte{0, 0, 0xc0, 0x7f})
	f.Add("t", "-1", "x", "u8", "", []byte{})
	f.Add("u", "70", "44100", EncS16, "1", make([]byte, 4410))
	f.Add("v", "0", "767998", EncS16, "0", make([]byte, 1600))
	f.Add("w", "0", "44056", EncF32, "1", make([]byte, 1<<16))
	f.Fuzz(func(t *testing.T, stream, seq, rate, enc, eos string, data []byte) {
		if CheckName("stream", stream) != nil {
			return
		}
		m := nats.NewMsg(Subject("fuzz", KindPCM, stream))
		m.Data = data
		m.Header.Set(HdrSeq, seq)
		m.Header.Set(HdrRate, rate)
		m.Header.Set(HdrEncoding, enc)
		m.Header.Set(HdrEOS, eos)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		st.front.onPCM(m)
		runtime.ReadMemStats(&after)
		limit := uint64(pcmAllocPerByte*len(data) + 12*frontend.MaxFilterTaps + pcmAllocSlack)
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Fatalf("a PCM message of %d bytes at rate %q allocated %d bytes, over the %d-byte bound", len(data), rate, got, limit)
		}
	})
}

// With ShedPartials a backlog skips stale partial words: the final words
// and end-of-stream results stay exactly the in-process ones, and every
// partial that does arrive is one the in-process recogniser gives too.
func TestShedPartialsKeepsFinalResults(t *testing.T) {
	var once sync.Once
	// The features worker stalls on its first batch, so a backlog builds.
	nc, st := pipelineWith(t, Pipeline{ShedPartials: true, hold: func() { once.Do(func() { time.Sleep(300 * time.Millisecond) }) }})
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	want := inProcess(t, a)
	finals := func(rs []engine.Result) (f, p []engine.Result) {
		for _, r := range rs {
			if r.Final {
				f = append(f, r)
			} else {
				p = append(p, r)
			}
		}
		return f, p
	}
	wantFinal, wantPartial := finals(want)
	var wg sync.WaitGroup
	got := make([][]engine.Result, 6)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			StreamAudio(context.Background(), nc, "toy", "shed"+strconv.Itoa(i), a, StreamOptions{Encoding: EncF32, ChunkMs: 100},
				func(r engine.Result) { got[i] = append(got[i], r) })
		}(i)
	}
	wg.Wait()
	for i, g := range got {
		f, p := finals(g)
		if !sameResults(f, wantFinal) {
			t.Fatalf("stream %d final results\n%+v\nwant\n%+v", i, f, wantFinal)
		}
		for _, r := range p {
			found := false
			for _, w := range wantPartial {
				found = found || sameResults([]engine.Result{r}, []engine.Result{w})
			}
			if !found {
				t.Fatalf("stream %d: partial %+v is not one of the in-process partials", i, r)
			}
		}
	}
	if st.Stats().Shed == 0 {
		t.Fatal("a backlog of six streams shed no partial")
	}
}

// FuzzWordMessage decodes arbitrary word vector messages as the features
// stage does: an error, or a vector of the model's size and, with a
// read-out header, a finite read-out of the model's shape.
func FuzzWordMessage(f *testing.F) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		f.Fatal(err)
	}
	s := &featuresStage{core: &core{p: Pipeline{Words: words}}}
	dim, out, classes := words.Config.Dim(), words.Map.OutDim(), words.Model.RLS.Classes
	f.Add(EncodeF32(make([]float32, dim)), "")
	f.Add(EncodeF32(make([]float32, dim+out*classes)), "2")
	f.Add(EncodeF32(make([]float32, dim+out*classes)), "3")
	f.Add([]byte{1, 2, 3}, "2")
	f.Fuzz(func(t *testing.T, data []byte, readOut string) {
		m := nats.NewMsg("x")
		m.Data = data
		m.Header.Set(HdrReadOut, readOut)
		w := work{m: m}
		s.splitReadOut(&w)
		v, r, err := s.wordMessage(w, dim, &lastReadOut{})
		if err != nil {
			return
		}
		if len(v) != dim {
			t.Fatalf("a vector of %d values for a %d-value model", len(v), dim)
		}
		if (readOut == "") != (r == nil) {
			t.Fatalf("header %q gave read-out %v", readOut, r)
		}
		if r != nil {
			if r.Dim != out || r.Classes != classes || len(r.W.Data) != out*classes {
				t.Fatalf("read-out %d×%d with %d weights", r.Dim, r.Classes, len(r.W.Data))
			}
			for _, w := range r.W.Data {
				if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
					t.Fatalf("read-out weight %v accepted", w)
				}
			}
		}
	})
}

// A stream whose every message is refused still ends with one
// end-of-stream result when its last message says so: a client waiting
// for it must not wait for ever.
func TestRefusedOnlyMessageStillEndsTheStream(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{})
	cases := []struct {
		stream, why, end string
		hdr              map[string]string
		data             []byte
	}{
		{"norate", "needs an " + HdrRate, "never started", map[string]string{HdrEOS: "1"}, []byte{0, 0}},
		{"big", "exceeds", "never started", map[string]string{HdrRate: "8000", HdrEOS: "1"}, make([]byte, MaxChunkBytes+2)},
		// Its rate started the stream before its payload was refused.
		{"enc", "unknown PCM encoding", "", map[string]string{HdrRate: "8000", HdrEncoding: "mp3", HdrEOS: "1"}, []byte{0, 0}},
		{"rate", "rate", "never started", map[string]string{HdrRate: "12", HdrEOS: "1"}, []byte{0, 0}},
		{"voice", "voice", "never started", map[string]string{HdrRate: "8000", HdrVoice: "a b", HdrEOS: "1"}, []byte{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.stream, func(t *testing.T) {
			ch := resultsOf(t, nc, c.stream)
			publish(t, nc, c.stream, 0, c.data, c.hdr)
			expectResults(t, collect(t, ch, 5*time.Second), c.why, c.end)
		})
	}
	// Refused first, then started by a good message: one ordinary end.
	ch := resultsOf(t, nc, "late")
	publish(t, nc, "late", 0, []byte{0, 0}, nil)
	b, _ := EncodePCM(toymodels.UpDown(), EncF32)
	publish(t, nc, "late", 1, b, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "1"})
	got := collect(t, ch, 5*time.Second)
	if len(got) < 2 || !strings.Contains(got[0].Error, HdrRate) || got[len(got)-1].Text != "up down" {
		t.Fatalf("stream started by its second message: %+v", got)
	}
}

// A decoder that gives up on missing segments keeps the words around them:
// each gap is reported with its time span (from the end of the segment
// before it to the start of the one after it, or the stream's end from the
// end-of-stream marker) and its reason, and the end-of-stream result has
// every word that arrived and every gap. Before, a stream whose segment 0
// was lost ended with "" although segment 1 held a confident word.
func TestDecoderKeepsWordsAroundLostSegments(t *testing.T) {
	nc, st := pipelineWith(t, Pipeline{IdleTimeout: 150 * time.Millisecond})
	ch := resultsOf(t, nc, "lossy")
	word := func(seq int, start, end string, scores ...float32) {
		sendRaw(t, nc, KindScores, "lossy", map[string]string{HdrSeq: strconv.Itoa(seq), HdrFinal: "1", HdrStart: start, HdrEnd: end}, EncodeF32(scores))
	}
	// Segments 0, 2 and 4 are lost.
	word(1, "0.6", "0.9", -1, 1)
	word(3, "1.5", "1.9", 1, -1)
	sendRaw(t, nc, KindScores, "lossy", map[string]string{HdrEOS: "1", HdrCount: "5", HdrEnd: "3"}, nil)
	got := collect(t, ch, 5*time.Second)
	expectResults(t, got, "gap 0.00-0.60s: segments 0..0 never arrived", "", "gap 0.90-1.50s: segments 2..2", "", "gap 1.90-3.00s: segments 4..4", "")
	end := got[len(got)-1]
	if end.Text != "down up" || len(end.Words) != 2 || end.NoSpeech {
		t.Fatalf("end-of-stream result %+v, want the two words that arrived", end)
	}
	want := [][2]float64{{0, 0.6}, {0.9, 1.5}, {1.9, 3}}
	if len(end.Gaps) != len(want) {
		t.Fatalf("gaps %+v, want %v", end.Gaps, want)
	}
	for i, g := range end.Gaps {
		if g.Start != want[i][0] || g.End == nil || *g.End != want[i][1] || !strings.Contains(g.Reason, "never arrived") {
			t.Fatalf("gap %d: %+v, want %v", i, g, want[i])
		}
	}
	// The error result that reports a gap carries the words so far too.
	if got[2].Text != "down" || len(got[2].Gaps) != 1 {
		t.Fatalf("second gap's result %+v", got[2])
	}
	if l := st.Stats().Lost; l != 3 {
		t.Fatalf("lost %d segments, want 3", l)
	}

	// Without the end-of-stream marker the gap after the last word has no
	// known end.
	ch = resultsOf(t, nc, "nomarker")
	sendRaw(t, nc, KindScores, "nomarker", map[string]string{HdrSeq: "0", HdrFinal: "1", HdrStart: "0.2", HdrEnd: "0.7"}, EncodeF32([]float32{1, -1}))
	got = collect(t, ch, 5*time.Second)
	expectResults(t, got, "", "gap 0.70s on: nothing after it arrived, not even the end-of-stream marker", "")
	if end := got[len(got)-1]; end.Text != "up" || len(end.Gaps) != 1 || end.Gaps[0].End != nil || end.Gaps[0].Start != 0.7 {
		t.Fatalf("end-of-stream result without a marker: %+v", end)
	}
}
