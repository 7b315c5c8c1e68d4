package streaming

import (
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

var (
	toyConnOnce sync.Once
	toyConn     *rfstream.Connected
	toyConnErr  error
)

func toyConnected(t *testing.T) *rfstream.Connected {
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
// exactly the results of the in-process ConnectedStream, partial results
// included, whatever the chunking.
func TestConnectedThroughNATSEqualsInProcess(t *testing.T) {
	c := toyConnected(t)
	a := upDownUp()
	in, err := rfstream.NewConnectedStream(c, rfstream.DefaultConnectedStreamConfig(), a.Rate)
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
		if !reflect.DeepEqual(got, want) {
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
