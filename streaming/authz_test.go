package streaming

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream"
)

// With VoicesBySubject a real nats-server's permissions decide who speaks
// as which voice: alice may publish only on her voice's subjects, bob only
// on his and on plain pcm. Bob cannot join alice's session (her subject is
// denied to him, the header is refused), cannot forget her voice, and
// cannot slip a message into her live stream; her streams go on as if he
// had never tried.
func TestVoicesAuthorisedBySubject(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	alone, s1 := spot(nil)
	second, s2 := spot(s1)
	third, _ := spot(s2)

	allow := func(pub, sub []string) *server.Permissions {
		return &server.Permissions{Publish: &server.SubjectPermission{Allow: pub}, Subscribe: &server.SubjectPermission{Allow: sub}}
	}
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		Users: []*server.User{
			{Username: "stages", Password: "st"},
			{Username: "alice", Password: "al", Permissions: allow(
				[]string{"rfs.v1.toy.voice.alice.*", "rfs.v1.toy.forget.alice"},
				[]string{"rfs.v1.toy.result.*", "rfs.v1.toy.forgotten.alice"})},
			{Username: "bob", Password: "bo", Permissions: allow(
				[]string{"rfs.v1.toy.voice.bob.*", "rfs.v1.toy.pcm.*", "rfs.v1.toy.forget.bob"},
				[]string{"rfs.v1.toy.result.*", "rfs.v1.toy.forgotten.*"})},
		}})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	connect := func(user, pass string) *nats.Conn {
		t.Helper()
		nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo(user, pass), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	st, err := Start(connect("stages", "st"), Pipeline{Name: "toy", Words: words, VoicesBySubject: true}, StageFrontend, StageFeatures, StageDecoder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	alice, bob := connect("alice", "al"), connect("bob", "bo")
	asAlice := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "alice"}

	if got := streamAll(t, alice, "a0", a, asAlice); !sameResults(got, alone) {
		t.Fatalf("alice's first stream:\n%+v\nwant\n%+v", got, alone)
	}

	// Bob on alice's subject: the server drops his messages.
	o := asAlice
	o.Timeout = 500 * time.Millisecond
	if r, err := StreamAudio(context.Background(), bob, "toy", "b-subject", a, o, nil); err == nil {
		t.Fatalf("bob streamed as alice on her subject: %+v", r)
	}
	// Bob naming alice in the header of a plain pcm message: refused.
	results := make(chan *nats.Msg, 16)
	sub, err := bob.ChanSubscribe(Subject("toy", KindResult, "b-header"), results)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	bob.Flush()
	pcm, _ := EncodePCM(a.Samples, EncF32)
	send(t, bob, Subject("toy", KindPCM, "b-header"), 0, pcm, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "alice", HdrEOS: "1"})
	if r := nextResult(t, results); !strings.Contains(r.Error, "not from the "+HdrVoice+" header") {
		t.Fatalf("bob's header naming alice: %+v, want it refused", r)
	}
	// Bob forgetting alice: the server drops the request.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if ok, err := ForgetVoice(ctx, bob, "toy", "alice"); err == nil {
		t.Fatalf("bob forgot alice's voice (known: %v)", ok)
	}

	// Bob's message for alice's live stream, on a subject he may use, is
	// refused before it takes a place in her stream.
	results = make(chan *nats.Msg, 16)
	sub2, err := alice.ChanSubscribe(Subject("toy", KindResult, "a1"), results)
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Unsubscribe()
	alice.Flush()
	half := len(a.Samples) / 2
	first, _ := EncodePCM(a.Samples[:half], EncF32)
	rest, _ := EncodePCM(a.Samples[half:], EncF32)
	mine := VoiceSubject("toy", "alice", "a1")
	send(t, alice, mine, 0, first, map[string]string{HdrRate: "8000", HdrEncoding: EncF32})
	alice.Flush()
	time.Sleep(50 * time.Millisecond) // alice's first message has started the stream
	send(t, bob, Subject("toy", KindPCM, "a1"), 1, make([]byte, 400), map[string]string{HdrEncoding: EncF32, HdrEOS: "1"})
	bob.Flush()
	send(t, alice, mine, 1, rest, map[string]string{HdrEncoding: EncF32, HdrEOS: "1"})
	var got []rfstream.Result
	refused := 0
	for len(got) == 0 || !got[len(got)-1].EOS {
		r := nextResult(t, results)
		if strings.Contains(r.Error, "not on the subject of the stream's first message") {
			refused++
			continue
		}
		got = append(got, r)
	}
	if refused != 1 || !sameResults(got, second) {
		t.Fatalf("alice's second stream, with %d refusals of bob's message:\n%+v\nwant one and\n%+v", refused, got, second)
	}

	// Alice's voice went on untouched by all of it.
	if got := streamAll(t, alice, "a2", a, asAlice); !sameResults(got, third) {
		t.Fatalf("alice's third stream:\n%+v\nwant\n%+v", got, third)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if ok, err := ForgetVoice(ctx2, alice, "toy", "alice"); err != nil || !ok {
		t.Fatalf("alice forgetting her own voice: %v, %v", ok, err)
	}
}

// send publishes one message with the headers given.
func send(t *testing.T, nc *nats.Conn, subject string, seq int, data []byte, hdr map[string]string) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(HdrSeq, strconv.Itoa(seq))
	for k, v := range hdr {
		m.Header.Set(k, v)
	}
	if err := nc.PublishMsg(m); err != nil {
		t.Fatal(err)
	}
}

// nextResult waits for one result message.
func nextResult(t *testing.T, ch chan *nats.Msg) rfstream.Result {
	t.Helper()
	select {
	case m := <-ch:
		var r rfstream.Result
		if err := json.Unmarshal(m.Data, &r); err != nil {
			t.Fatal(err)
		}
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no result within 5 s")
	}
	return rfstream.Result{}
}

// A voice subject and an Rfs-Voice header that name different voices are
// refused; one that names the same voice, or none, is the subject's voice.
func TestVoiceSubjectAndHeaderMustAgree(t *testing.T) {
	if v := voiceOf("toy", VoiceSubject("toy", "ada", "s1")); v != "ada" {
		t.Fatalf("voiceOf(VoiceSubject(ada)) = %q", v)
	}
	for _, s := range []string{Subject("toy", KindPCM, "s1"), VoiceSubject("other", "ada", "s1"), "rfs.v1.toy.voicex.ada.s1"} {
		if v := voiceOf("toy", s); v != "" {
			t.Fatalf("voiceOf(%q) = %q, want none", s, v)
		}
	}
	words, a, spot := voiceSpotting(t)
	alone, _ := spot(nil)
	nc, _ := pipelineWith(t, Pipeline{Words: words})
	results := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe(Subject("toy", KindResult, "mixed"), results)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	nc.Flush()
	pcm, _ := EncodePCM(a.Samples, EncF32)
	send(t, nc, VoiceSubject("toy", "ada", "mixed"), 0, pcm, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "bo", HdrEOS: "1"})
	if r := nextResult(t, results); !strings.Contains(r.Error, `header "bo" differs from the voice "ada"`) {
		t.Fatalf("subject ada, header bo: %+v, want refused", r)
	}
	for i, hdr := range []string{"ada0", ""} {
		got := make([]rfstream.Result, 0)
		stream := "agree" + strconv.Itoa(i)
		ch := make(chan *nats.Msg, 16)
		s, err := nc.ChanSubscribe(Subject("toy", KindResult, stream), ch)
		if err != nil {
			t.Fatal(err)
		}
		nc.Flush()
		h := map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "1"}
		if hdr != "" {
			h[HdrVoice] = hdr
		}
		send(t, nc, VoiceSubject("toy", "ada"+strconv.Itoa(i), stream), 0, pcm, h)
		for len(got) == 0 || !got[len(got)-1].EOS {
			got = append(got, nextResult(t, ch))
		}
		s.Unsubscribe()
		if !sameResults(got, alone) {
			t.Fatalf("header %q on the voice's subject:\n%+v\nwant\n%+v", hdr, got, alone)
		}
	}
}
