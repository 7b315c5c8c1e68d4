package streaming

import (
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

var (
	toyConnOnce sync.Once
	toyConn     *engine.Connected
	toyConnErr  error
)

func toyConnected(t *testing.T) *engine.Connected {
	t.Helper()
	toyConnOnce.Do(func() { toyConn, toyConnErr = toymodels.Connected() })
	if toyConnErr != nil {
		t.Fatal(toyConnErr)
	}
	return toyConn
}

// upDownUp is two utterances: "up down" and, after a pause long enough to
// end the first, "up".
func upDownUp() *frontend.Audio {
	var x []float32
	x = append(x, toymodels.Noise(3000, 11)...)
	x = append(x, toymodels.Glide(400, 1500, 0.35, 21)...)
	x = append(x, toymodels.Noise(2400, 12)...)
	x = append(x, toymodels.Glide(1500, 400, 0.3, 22)...)
	x = append(x, toymodels.Noise(12000, 13)...)
	x = append(x, toymodels.Glide(400, 1500, 0.3, 23)...)
	x = append(x, toymodels.Noise(6000, 14)...)
	return &frontend.Audio{Rate: 8000, Samples: x}
}

// TestConnectedThroughNATSEqualsInProcess: a connected-word model split
// over the three audio stages (frames, log-likelihoods, Viterbi) gives
// exactly the final results of the in-process ConnectedStream, whatever
// the chunking, and its partial results at the same points with the same
// text. (The in-process stream scores each frame once for its partials,
// normalised with the utterance's statistics so far; the stages decode each
// partial segment afresh, since a segment is a message: a partial word's
// confidence and times differ a little.)
func TestConnectedThroughNATSEqualsInProcess(t *testing.T) {
	c := toyConnected(t)
	a := upDownUp()
	in, err := engine.NewConnectedStream(c, engine.DefaultConnectedStreamConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	want := append(in.Push(a.Samples), in.Flush()...)
	last := want[len(want)-1]
	if last.Text != "up down up" || !last.EOS || len(last.Words) != 3 {
		t.Fatalf("in-process result %+v, want \"up down up\"", last)
	}
	partials, finals := 0, 0
	for _, r := range want {
		switch {
		case r.Error != "":
			t.Fatalf("in-process error %+v", r)
		case !r.Final:
			partials++
		case !r.EOS:
			finals++
		}
	}
	if partials == 0 || finals != 2 {
		t.Fatalf("%d partial and %d final results, want some partials and one final per utterance", partials, finals)
	}
	nc, _ := pipelineWith(t, Pipeline{Connected: c})
	for _, chunk := range []float64{10, 100, 1000} {
		got := streamAll(t, nc, "c"+strconv.Itoa(int(chunk)), a, StreamOptions{ChunkMs: chunk, Encoding: EncF32})
		same := len(got) == len(want)
		for i := 0; same && i < len(want); i++ {
			same = got[i].Final == want[i].Final && got[i].Text == want[i].Text && (!want[i].Final || reflect.DeepEqual(got[i], want[i]))
		}
		if !same {
			t.Fatalf("chunk %v ms: NATS results\n%+v\nin-process\n%+v", chunk, got, want)
		}
	}
}

// TestConnectedStageFaults: malformed frames and log-likelihoods between
// the stages get error results naming the problem, the stream still ends,
// and a pipeline given two audio models is refused.
func TestConnectedStageFaults(t *testing.T) {
	c := toyConnected(t)
	nc, _ := pipelineWith(t, Pipeline{Connected: c})
	send := func(kind, stream string, hdr map[string]string, data []byte) { sendRaw(t, nc, kind, stream, hdr, data) }
	ch := resultsOf(t, nc, "badframes")
	send(KindFrames, "badframes", map[string]string{HdrSeq: "0", HdrFinal: "1"}, make([]byte, 12))
	send(KindFrames, "badframes", map[string]string{HdrEOS: "1", HdrCount: "1"}, nil)
	expectResults(t, collect(t, ch, 5*time.Second), "frames of 12 bytes", "")

	ch = resultsOf(t, nc, "badll")
	send(KindLogLik, "badll", map[string]string{HdrSeq: "0", HdrFinal: "1"}, make([]byte, 4*c.Classes()+4))
	send(KindLogLik, "badll", map[string]string{HdrSeq: "1", HdrFinal: "1"}, nil)
	send(KindLogLik, "badll", map[string]string{HdrEOS: "1", HdrCount: "2"}, nil)
	expectResults(t, collect(t, ch, 5*time.Second), "log-likelihoods of "+strconv.Itoa(4*c.Classes()+4)+" bytes", "log-likelihoods of 0 bytes", "")

	words, _ := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w, err := srv.Connect("w")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if st, err := Start(w, Pipeline{Name: "both", Words: words, Connected: c}); err == nil {
		st.Close()
		t.Fatal("a pipeline with a word model and a connected model was accepted")
	}
}

// TestScoredUtteranceIsPublishedBeforeTheBatchEnds: the features stage
// publishes each utterance's log-likelihoods as soon as it has scored
// them, so a stream hears its result while the batch's later utterances
// are still being scored. Holding them all until the batch ended kept
// every stream of a 64-utterance batch silent for 40 s on a loaded
// machine, and clients gave up (experiments/journal/streaming.md). The
// second utterance is scored only after the first stream's result reached
// a client, so the test waits on the pipeline, not on a clock; the bound
// is only reached when the result is held back.
func TestScoredUtteranceIsPublishedBeforeTheBatchEnds(t *testing.T) {
	c := toyConnected(t)
	frames, err := c.BaseFrames(upDownUp())
	if err != nil {
		t.Fatal(err)
	}
	var heard []engine.Result
	var firstResults chan *nats.Msg
	p := Pipeline{Connected: c, scored: func(stream string) {
		if stream != "first" {
			return
		}
		select {
		case m := <-firstResults:
			var r engine.Result
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Error(err)
			}
			heard = append(heard, r)
		case <-time.After(20 * time.Second):
		}
	}}
	nc, st := pipelineWith(t, p)
	firstResults = resultsOf(t, nc, "first")
	segment := func(stream string) work {
		m := nats.NewMsg(Subject("toy", KindFrames, stream))
		m.Header.Set(HdrSeq, "0")
		m.Header.Set(HdrFinal, "1")
		m.Header.Set(HdrStart, "0")
		m.Header.Set(HdrEnd, strconv.FormatFloat(float64(frames.Rows)/100, 'f', 2, 64))
		m.Data = EncodeF32(frames.Data[:frames.Rows*frames.Cols])
		return work{m: m}
	}
	st.feat.scoreFrames([]work{segment("first"), segment("second")})
	if len(heard) != 1 {
		t.Fatalf("stream first heard nothing within 20 s of its utterance being scored, while the batch waited")
	}
	if heard[0].Error != "" || heard[0].Text != "up down up" {
		t.Fatalf("stream first heard %+v, want \"up down up\"", heard[0])
	}
}

// A connected pipeline's stages decode each partial segment afresh, so its
// default endpointer spaces a long utterance's partials as it grows
// (engine's TestPartialGrowthBoundsThePartials bounds their cost); a word
// pipeline's words are short and keep a partial every PartialEveryMs.
func TestConnectedPipelineSpacesLongPartials(t *testing.T) {
	c := Pipeline{Connected: toyConnected(t)}
	c.defaults()
	w := Pipeline{}
	w.defaults()
	if c.Spotter.PartialGrowth != ConnectedPartialGrowth || ConnectedPartialGrowth <= 0 || w.Spotter.PartialGrowth != 0 {
		t.Fatalf("partial growth: connected %v, words %v", c.Spotter.PartialGrowth, w.Spotter.PartialGrowth)
	}
	if c.Spotter.PartialEveryMs != engine.DefaultConnectedStreamConfig().PartialEveryMs {
		t.Fatalf("connected partials every %v ms", c.Spotter.PartialEveryMs)
	}
}
