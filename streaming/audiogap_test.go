package streaming

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// twoUpDowns is four toy words in 4.7 s at 8 kHz, the words the in-process
// spotter hears in it, and the stream cut into 100 ms PCM messages.
func twoUpDowns(t *testing.T) (engine.Result, [][]float32) {
	t.Helper()
	var pcm []float32
	for range 2 {
		pcm = append(pcm, toymodels.UpDown()...)
	}
	rs := inProcess(t, &frontend.Audio{Rate: 8000, Samples: pcm})
	want := rs[len(rs)-1]
	if len(want.Words) != 4 {
		t.Fatalf("in process: %+v", want)
	}
	var chunks [][]float32
	for off := 0; off < len(pcm); off += 800 {
		chunks = append(chunks, pcm[off:min(off+800, len(pcm))])
	}
	return want, chunks
}

// sendChunks publishes messages from..to-1 of chunks on stream (the last
// chunk with Rfs-Eos), with Rfs-Offset when offsets is set.
func sendChunks(t *testing.T, nc *nats.Conn, stream string, chunks [][]float32, from, to int, offsets bool) {
	t.Helper()
	for seq := from; seq < to; seq++ {
		b, _ := EncodePCM(chunks[seq], EncF32)
		hdr := map[string]string{HdrRate: "8000", HdrEncoding: EncF32}
		if offsets {
			hdr[HdrOffset] = strconv.Itoa(800 * seq)
		}
		if seq == len(chunks)-1 {
			hdr[HdrEOS] = "1"
		}
		publish(t, nc, stream, seq, b, hdr)
	}
}

// keptAndGaps checks an end-of-stream result against the undisturbed one
// as the real-process fault test does: every word it has is an undisturbed
// word with its times, and every undisturbed word it lacks lies in a gap
// it reports. It returns the labels kept.
func keptAndGaps(t *testing.T, got, want engine.Result) []string {
	t.Helper()
	var kept []string
	j := 0
	for _, w := range want.Words {
		if j < len(got.Words) && got.Words[j].Word == w.Word && got.Words[j].Start == w.Start && got.Words[j].End == w.End {
			kept = append(kept, w.Word)
			j++
			continue
		}
		inGap := false
		for _, g := range got.Gaps {
			inGap = inGap || (g.Start <= w.Start && g.End != nil && w.End <= *g.End)
		}
		if !inGap {
			t.Errorf("word %+v is neither kept nor in a gap: %+v", w, got)
		}
	}
	if j != len(got.Words) {
		t.Errorf("words %+v are not undisturbed ones %+v", got.Words, want.Words)
	}
	return kept
}

// PCM messages lost in the middle of a stream (the second word's): the
// words after them keep their times in the stream, with Rfs-Offset and
// without it (estimated from the messages' length), and the end-of-stream
// result reports the missing stretch as a gap. Before, the later words
// came 0.9 s early and no gap was reported.
func TestLostAudioKeepsTheStreamsTimes(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{Window: 4})
	want, chunks := twoUpDowns(t)
	for _, offsets := range []bool{true, false} {
		stream := "lost" + strconv.FormatBool(offsets)
		ch := resultsOf(t, nc, stream)
		sendChunks(t, nc, stream, chunks, 0, 12, offsets)
		sendChunks(t, nc, stream, chunks, 21, len(chunks), offsets) // 1.2-2.1 s never sent
		got := collect(t, ch, 10*time.Second)
		end := got[len(got)-1]
		if !end.EOS {
			t.Fatalf("offsets %v: no end-of-stream result: %+v", offsets, got)
		}
		kept := keptAndGaps(t, end, want)
		if len(kept) != 3 || len(end.Gaps) != 1 || end.Gaps[0].Start != 1.2 || *end.Gaps[0].End != 2.1 {
			t.Fatalf("offsets %v: kept %v, gaps %+v; want 3 words and the gap 1.2-2.1 s", offsets, kept, end.Gaps)
		}
	}
}

// A frontend started again mid-stream (its predecessor gone with what it
// held) takes the stream up where the first message it gets lies in the
// stream: the words after keep their times, the decoder drops what the
// old frontend numbered once the new part begins, and the end-of-stream
// result reports the stretch the new frontend never had as a gap from the
// end of the last word decoded. Before, the new frontend counted times
// from its first message, and its segment numbers, from 0 again, were
// taken as the old frontend's.
func TestRestartedFrontendTakesUpTheStream(t *testing.T) {
	words, _ := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	p := Pipeline{Name: "toy", Words: words, Window: 4}
	rest, err := Start(connect(t, srv, "rest"), p, StageFeatures, StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rest.Close() })
	old, err := Start(connect(t, srv, "old"), p, StageFrontend)
	if err != nil {
		t.Fatal(err)
	}
	nc := connect(t, srv, "client")
	want, chunks := twoUpDowns(t)
	ch := resultsOf(t, nc, "taken")
	// The old frontend hears the first word (its first decisions wait for
	// 1.8 s of audio)...
	sendChunks(t, nc, "taken", chunks, 0, 23, true)
	waitFor := func(text string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case m := <-ch:
				var r engine.Result
				if err := json.Unmarshal(m.Data, &r); err != nil {
					t.Fatal(err)
				}
				if r.Final && r.Text == text {
					return
				}
			case <-deadline:
				t.Fatalf("no final result %q", text)
			}
		}
	}
	waitFor("up")
	// ... and dies; its successor gets the stream from message 24 on.
	old.Close()
	if _, err := Start(connect(t, srv, "new"), p, StageFrontend); err != nil {
		t.Fatal(err)
	}
	sendChunks(t, nc, "taken", chunks, 24, len(chunks), true)
	got := collect(t, ch, 10*time.Second)
	end := got[len(got)-1]
	if !end.EOS {
		t.Fatalf("no end-of-stream result: %+v", got)
	}
	kept := keptAndGaps(t, end, want)
	if len(kept) != 3 || len(end.Gaps) != 1 || end.Gaps[0].Start != want.Words[0].End || *end.Gaps[0].End != 2.4 {
		t.Fatalf("kept %v, gaps %+v; want 3 words and one gap from %v to 2.4 s", kept, end.Gaps, want.Words[0].End)
	}
}

// Wherever the lost stretch falls (before, in and across words), every
// word of the end-of-stream result is one the undisturbed stream has, at
// its time, and every word it lacks lies in a reported gap: a word the
// segmenter joined across the stretch is dropped and its span reported.
func TestLostAudioAnywhereKeepsOrReportsEachWord(t *testing.T) {
	nc, _ := pipelineWith(t, Pipeline{Window: 4})
	want, chunks := twoUpDowns(t)
	for _, lost := range [][2]int{{12, 29}, {12, 13}, {5, 12}, {20, 30}, {25, 36}, {0, 3}} {
		stream := "lost" + strconv.Itoa(lost[0]) + "to" + strconv.Itoa(lost[1])
		ch := resultsOf(t, nc, stream)
		sendChunks(t, nc, stream, chunks, 0, lost[0], true)
		sendChunks(t, nc, stream, chunks, lost[1], len(chunks), true)
		got := collect(t, ch, 10*time.Second)
		end := got[len(got)-1]
		if !end.EOS || len(end.Gaps) == 0 {
			t.Fatalf("messages %d..%d lost: %+v, want an end-of-stream result with a gap", lost[0], lost[1]-1, got)
		}
		kept := keptAndGaps(t, end, want)
		t.Logf("messages %d..%d lost: kept %v, gaps %+v", lost[0], lost[1]-1, kept, end.Gaps)
	}
}
