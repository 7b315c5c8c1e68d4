package streaming

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A named voice's stream taken up by a restarted frontend of a durable
// pipeline joins the voice once: the voice file the stopped frontend wrote
// already holds the words the stream had committed, and taking the stream
// up again from its first stored message must not add them a second time.
// With an adaptable model the voice's read-out and every later decision
// depend on it. The restart comes mid-stream, after the session's first
// self-training; the end-of-stream result and the voice file then equal
// an undisturbed run's.
func TestTakenUpStreamJoinsItsVoiceOnce(t *testing.T) {
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	first, second := upDowns(4), upDowns(6) // 8 words, then 12 more
	var chunks [][]float32
	for off := 0; off < len(second.Samples); off += 800 {
		chunks = append(chunks, second.Samples[off:min(off+800, len(second.Samples))])
	}
	// run streams the first recording to its end and the second with the
	// frontend restarted once the second's restartAfter-th word is final
	// (0: never), the store having lost the second's first lost messages
	// meanwhile; it returns the second's end-of-stream result and the
	// voice file.
	run := func(restartAfter, lost int) (engine.Result, []byte) {
		srv, err := StartEmbedded(EmbeddedOptions{JetStream: true, StoreDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		p := Pipeline{Name: "toy", Words: words, Durable: true, AckWait: time.Second, VoiceDir: t.TempDir()}
		rest, err := Start(connect(t, srv, "rest"), p, StageFeatures, StageDecoder)
		if err != nil {
			t.Fatal(err)
		}
		defer rest.Close()
		front, err := Start(connect(t, srv, "front"), p, StageFrontend)
		if err != nil {
			t.Fatal(err)
		}
		nc := connect(t, srv, "client")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if r, err := StreamAudio(ctx, nc, "toy", "first", first, StreamOptions{Encoding: EncF32, Voice: "ann"}, nil); err != nil || len(r.Words) != 8 {
			t.Fatalf("the first recording: %+v %v", r, err)
		}
		results := subscribe(t, nc, ResultSubject("toy", "ann", "second"))
		send := func(from, to int) {
			for seq := from; seq < to; seq++ {
				b, _ := EncodePCM(chunks[seq], EncF32)
				m := nats.NewMsg(VoiceSubject("toy", "ann", "second"))
				m.Data = b
				m.Header.Set(HdrSeq, strconv.Itoa(seq))
				m.Header.Set(HdrRate, "8000")
				m.Header.Set(HdrEncoding, EncF32)
				m.Header.Set(HdrOffset, strconv.Itoa(800*seq))
				if seq == len(chunks)-1 {
					m.Header.Set(HdrEOS, "1")
				}
				if err := nc.PublishMsg(m); err != nil {
					t.Fatal(err)
				}
			}
			if err := nc.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		sent := 0
		if restartAfter > 0 {
			// Half a second at a time, until the word is final.
			for final := 0; final < restartAfter; {
				if sent == len(chunks) {
					t.Fatalf("only %d words final before the end", final)
				}
				send(sent, sent+5)
				sent += 5
				for drained := false; !drained; {
					select {
					case m := <-results:
						var r engine.Result
						if err := json.Unmarshal(m.Data, &r); err != nil {
							t.Fatal(err)
						}
						if r.Final {
							final = len(r.Words)
						}
					case <-time.After(300 * time.Millisecond):
						drained = true
					}
				}
			}
			// A graceful stop: the frontend saves the voice, the second
			// stream's words so far included, and its successor takes the
			// open stream up from the store.
			if err := front.Close(); err != nil {
				t.Fatal(err)
			}
			forgetStored(t, nc, VoiceSubject("toy", "ann", "second"), lost)
			if front, err = Start(connect(t, srv, "front2"), p, StageFrontend); err != nil {
				t.Fatal(err)
			}
		}
		send(sent, len(chunks))
		got := collect(t, results, 30*time.Second)
		end := got[len(got)-1]
		if !end.EOS {
			t.Fatalf("restart after %d words: no end-of-stream result: %+v", restartAfter, got)
		}
		if err := front.Close(); err != nil {
			t.Fatal(err)
		}
		path, err := words.VoicePath(p.VoiceDir, "ann")
		if err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return end, file
	}
	want, wantFile := run(0, 0)
	if len(want.Words) != 12 {
		t.Fatalf("undisturbed: %+v", want)
	}
	wantVoice, err := words.ReadVoiceSession(wantFile)
	if err != nil {
		t.Fatal(err)
	}
	if wantVoice.Recordings() != 20 || wantVoice.AdaptedOn() != 10 {
		t.Fatalf("undisturbed: the voice has %d recordings, self-trained on %d; want 20 and 10", wantVoice.Recordings(), wantVoice.AdaptedOn())
	}
	for _, after := range []int{4, 9} {
		got, file := run(after, 0)
		voice, err := words.ReadVoiceSession(file)
		if err != nil {
			t.Fatal(err)
		}
		if voice.Recordings() != 20 || voice.AdaptedOn() != wantVoice.AdaptedOn() {
			t.Errorf("restarted after %d words: the voice has %d recordings, self-trained on %d; undisturbed 20 and %d",
				after, voice.Recordings(), voice.AdaptedOn(), wantVoice.AdaptedOn())
		}
		if !sameResults([]engine.Result{got}, []engine.Result{want}) {
			t.Errorf("restarted after %d words: end-of-stream result\n%+v\nundisturbed\n%+v", after, got, want)
		}
		if !bytes.Equal(file, wantFile) {
			t.Errorf("restarted after %d words: the voice file differs from the undisturbed one", after)
		}
	}
	// The store kept the stream's messages from 1 s on only (the first
	// word's): the new frontend takes it up from there, its first three
	// words (down, up, down) are among the four the voice holds, and the
	// fifth on are new, so the voice still ends with each word once.
	_, file := run(4, 10)
	voice, err := words.ReadVoiceSession(file)
	if err != nil {
		t.Fatal(err)
	}
	if voice.Recordings() != 20 {
		t.Errorf("restarted after 4 words, the first second lost from the store: the voice has %d recordings, want 20", voice.Recordings())
	}
}

// forgetStored deletes the first n stored messages on subject from the
// toy pipeline's store, as its retention would.
func forgetStored(t *testing.T, nc *nats.Conn, subject string, n int) {
	t.Helper()
	if n == 0 {
		return
	}
	ctx := context.Background()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	store, err := js.Stream(ctx, StreamName("toy"))
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		m, err := store.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subject))
		if err != nil {
			t.Fatal(err)
		}
		if err := store.DeleteMsg(ctx, m.Sequence); err != nil {
			t.Fatal(err)
		}
	}
}
