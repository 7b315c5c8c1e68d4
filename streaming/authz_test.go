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

	"github.com/rfstream/rfstream/engine"
)

// With VoicesBySubject a real nats-server's permissions decide who speaks
// as which voice and who reads its results: alice may publish only on her
// voice's subjects and read only her voice's results, bob likewise with
// his, plus plain pcm. Bob cannot join alice's session (her subject is
// denied to him, the header is refused), cannot forget her voice, cannot
// read her results, and his stream of the same name as hers is a stream of
// his own; her streams go on as if he had never tried.
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
				[]string{"rfs.v1.toy.result.alice.>", "rfs.v1.toy.forgotten.alice"})},
			{Username: "bob", Password: "bo", Permissions: allow(
				[]string{"rfs.v1.toy.voice.bob.*", "rfs.v1.toy.pcm.*", "rfs.v1.toy.forget.bob"},
				[]string{"rfs.v1.toy.result.bob.>", "rfs.v1.toy.result.*", "rfs.v1.toy.forgotten.*"})},
		}})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	denied := make(chan error, 16) // the server's permission errors, any client
	connect := func(user, pass string) *nats.Conn {
		t.Helper()
		nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo(user, pass), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			select {
			case denied <- err:
			default:
			}
		}))
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
	results := resultsOf(t, bob, "b-header")
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

	// Bob listening for alice's results: the server refuses the
	// subscription, and nothing of hers reaches him.
	drain(denied)
	overheard := subscribe(t, bob, ResultSubject("toy", "alice", "*"))
	select {
	case err := <-denied:
		if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
			t.Fatalf("bob subscribing to alice's results: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not refuse bob's subscription to alice's results")
	}

	// Alice's second stream, and bob's stream of the same name, sent
	// while hers is open: his is his own, hers is undisturbed.
	results = subscribe(t, alice, ResultSubject("toy", "alice", "a1"))
	half := len(a.Samples) / 2
	first, _ := EncodePCM(a.Samples[:half], EncF32)
	rest, _ := EncodePCM(a.Samples[half:], EncF32)
	mine := VoiceSubject("toy", "alice", "a1")
	send(t, alice, mine, 0, first, map[string]string{HdrRate: "8000", HdrEncoding: EncF32})
	alice.Flush()
	time.Sleep(50 * time.Millisecond) // alice's first message has started the stream
	if got := streamAll(t, bob, "a1", a, StreamOptions{ChunkMs: 100, Encoding: EncF32}); !sameResults(got, alone) {
		t.Fatalf("bob's stream a1 beside alice's:\n%+v\nwant\n%+v", got, alone)
	}
	send(t, alice, mine, 1, rest, map[string]string{HdrEncoding: EncF32, HdrEOS: "1"})
	var got []engine.Result
	for len(got) == 0 || !got[len(got)-1].EOS {
		got = append(got, nextResult(t, results))
	}
	if !sameResults(got, second) {
		t.Fatalf("alice's second stream:\n%+v\nwant\n%+v", got, second)
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
	bob.Flush()
	if n := len(overheard); n != 0 {
		t.Fatalf("bob received %d of alice's results", n)
	}
}

// drain empties ch without waiting.
func drain(ch chan error) {
	for {
		select {
		case <-ch:
		default:
			return
		}
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
func nextResult(t *testing.T, ch chan *nats.Msg) engine.Result {
	t.Helper()
	select {
	case m := <-ch:
		var r engine.Result
		if err := json.Unmarshal(m.Data, &r); err != nil {
			t.Fatal(err)
		}
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no result within 5 s")
	}
	return engine.Result{}
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
	// A voice's stream is named under the voice in every later subject.
	for _, c := range [][2]string{
		{StreamOf(VoiceSubject("toy", "ada", "s1")), "ada.s1"},
		{VoiceStream("ada", "s1"), "ada.s1"},
		{StreamOf(Subject("toy", KindPCM, "s1")), "s1"},
		{VoiceStream("", "s1"), "s1"},
		{ResultSubject("toy", "ada", "s1"), "rfs.v1.toy.result.ada.s1"},
		{ResultSubject("toy", "", "s1"), "rfs.v1.toy.result.s1"},
	} {
		if c[0] != c[1] {
			t.Fatalf("got %q, want %q", c[0], c[1])
		}
	}
	words, a, spot := voiceSpotting(t)
	alone, _ := spot(nil)
	nc, _ := pipelineWith(t, Pipeline{Words: words})
	results := subscribe(t, nc, ResultSubject("toy", "ada", "mixed"))
	pcm, _ := EncodePCM(a.Samples, EncF32)
	send(t, nc, VoiceSubject("toy", "ada", "mixed"), 0, pcm, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrVoice: "bo", HdrEOS: "1"})
	if r := nextResult(t, results); !strings.Contains(r.Error, `header "bo" differs from the voice "ada"`) {
		t.Fatalf("subject ada, header bo: %+v, want refused", r)
	}
	for i, hdr := range []string{"ada0", ""} {
		got := make([]engine.Result, 0)
		stream := "agree" + strconv.Itoa(i)
		voice := "ada" + strconv.Itoa(i)
		ch := subscribe(t, nc, ResultSubject("toy", voice, stream))
		h := map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "1"}
		if hdr != "" {
			h[HdrVoice] = hdr
		}
		// A plain pcm subject of two tokens is no way into a voice's
		// stream: nothing takes this message.
		send(t, nc, Subject("toy", KindPCM, VoiceStream(voice, stream)), 0, pcm[:400], map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "1"})
		send(t, nc, VoiceSubject("toy", voice, stream), 0, pcm, h)
		for len(got) == 0 || !got[len(got)-1].EOS {
			got = append(got, nextResult(t, ch))
		}
		if !sameResults(got, alone) {
			t.Fatalf("header %q on the voice's subject:\n%+v\nwant\n%+v", hdr, got, alone)
		}
	}
}
