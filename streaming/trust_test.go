package streaming

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"golang.org/x/crypto/bcrypt"

	"github.com/rfstream/rfstream/engine"
)

// permissionErrors collects a connection's asynchronous errors: the
// server's permission violations arrive there.
type permissionErrors chan error

func (p permissionErrors) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	select {
	case p <- err:
	default:
	}
}

// expect waits for the server to refuse an action on subject.
func (p permissionErrors) expect(t *testing.T, what, subject string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case err := <-p:
			msg := err.Error()
			if strings.Contains(strings.ToLower(msg), "permissions violation") && strings.Contains(msg, `"`+subject+`"`) {
				return
			}
		case <-deadline:
			t.Fatalf("%s: the server did not refuse %s", what, subject)
		}
	}
}

// The embedded server with a clients file: alice (a bcrypt-hashed
// password) and bob (an nkey) are each confined to their namespace. Bob
// tries to read alice's audio, results and tags, to forge her audio, an
// end of her stream and her results, and to feed the later stages of her
// stream directly, all while her stream is open: the server refuses each,
// her stream completes exactly as if he had not tried, and bob's own
// streams and requests work.
func TestEmbeddedServerConfinesClientsToTheirStreams(t *testing.T) {
	words, a, spot := voiceSpotting(t)
	alone, s1 := spot(nil)
	second, _ := spot(s1)
	_, images := toys(t)

	hash, err := bcrypt.GenerateFromPassword([]byte("alice-secret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	bobKey, _ := nkeys.CreateUser()
	bobPub, _ := bobKey.PublicKey()
	bobSeed, _ := bobKey.Seed()
	clients, err := ParseClients([]byte(`{"clients": [{"name": "alice", "password": "` + string(hash) + `"}, {"name": "bob", "nkey": "` + bobPub + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true, Auth: &Auth{Clients: clients, Pipeline: "toy"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if !srv.Confined() {
		t.Fatal("a server with a clients file does not say it confines them")
	}
	stagesConn, err := srv.Connect("stages")
	if err != nil {
		t.Fatalf("the stages' own identity: %v", err)
	}
	t.Cleanup(stagesConn.Close)
	st, err := Start(stagesConn, Pipeline{Name: "toy", Words: words, Images: images, TopK: 2, VoicesBySubject: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	connect := func(name string, opts ...nats.Option) (*nats.Conn, permissionErrors) {
		t.Helper()
		errs := make(permissionErrors, 64)
		nc, err := nats.Connect(srv.ClientURL(), append(opts, nats.CustomInboxPrefix(InboxPrefix(name)), nats.ErrorHandler(errs.handler))...)
		if err != nil {
			t.Fatalf("%s connecting: %v", name, err)
		}
		t.Cleanup(nc.Close)
		return nc, errs
	}
	alice, _ := connect("alice", nats.UserInfo("alice", "alice-secret"))
	seedFile := filepath.Join(t.TempDir(), "bob.nk")
	os.WriteFile(seedFile, bobSeed, 0o600)
	bobAuth, err := nats.NkeyOptionFromSeed(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	bob, bobErrs := connect("bob", bobAuth)
	for _, bad := range []nats.Option{nats.UserInfo("alice", "guess"), nats.UserInfo("mallory", "x"), nats.Token("anything")} {
		if nc, err := nats.Connect(srv.ClientURL(), bad); err == nil {
			nc.Close()
			t.Fatal("the server let in a client it does not list")
		}
	}
	asAlice := StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "alice"}
	if got := streamAll(t, alice, "a0", a, asAlice); !sameResults(got, alone) {
		t.Fatalf("alice's first stream:\n%+v\nwant\n%+v", got, alone)
	}

	// Alice opens a stream and bob goes at it while it is open.
	results := subscribe(t, alice, ResultSubject("toy", "alice", "a1"))
	half := len(a.Samples) / 2
	first, _ := EncodePCM(a.Samples[:half], EncF32)
	rest, _ := EncodePCM(a.Samples[half:], EncF32)
	mine := VoiceSubject("toy", "alice", "a1")
	send(t, alice, mine, 0, first, map[string]string{HdrRate: "8000", HdrEncoding: EncF32})
	alice.Flush()

	overheard := make(chan *nats.Msg, 64)
	for _, subject := range []string{
		ResultSubject("toy", "alice", "a1"), // her transcripts
		mine,                                // her audio
		Subject("toy", KindTags, "alice.*"), // her images' tags
		"_INBOX.alice.>",                    // her replies
		"rfs.>",                             // everything
	} {
		if _, err := bob.ChanSubscribe(subject, overheard); err != nil {
			t.Fatal(err)
		}
		bobErrs.expect(t, "bob reading "+subject, subject)
	}
	forged, _ := json.Marshal(engine.Result{Text: "forged", Final: true, EOS: true})
	for _, c := range []struct {
		what, subject string
		data          []byte
		hdr           map[string]string
	}{
		{"forging alice's audio", mine, first, map[string]string{HdrEncoding: EncF32}},
		{"ending alice's stream", mine, nil, map[string]string{HdrEOS: "1"}},
		{"forging alice's result", ResultSubject("toy", "alice", "a1"), forged, map[string]string{HdrEOS: "1"}},
		{"feeding alice's decoder", Subject("toy", KindScores, "alice.a1"), nil, map[string]string{HdrEOS: "1"}},
		{"streaming as a plain stream", Subject("toy", KindPCM, "a1"), first, map[string]string{HdrRate: "8000", HdrEncoding: EncF32, HdrEOS: "1"}},
		{"forgetting alice's voice", Subject("toy", KindForget, "alice"), nil, nil},
	} {
		send(t, bob, c.subject, 1, c.data, c.hdr)
		bobErrs.expect(t, "bob "+c.what, c.subject)
	}
	// Bob's own voice, images and requests are his to use meanwhile.
	if got := streamAll(t, bob, "a1", a, StreamOptions{ChunkMs: 100, Encoding: EncF32, Voice: "bob"}); !sameResults(got, alone) {
		t.Fatalf("bob's own stream:\n%+v\nwant\n%+v", got, alone)
	}
	raw, want := barImages(t, 2)
	tags := subscribe(t, bob, Subject("toy", KindTags, "bob.imgs"))
	send(t, bob, Subject("toy", KindImage, "bob.imgs"), 0, raw[0], map[string]string{HdrEncoding: EncU8})
	if m := <-tags; !strings.Contains(string(m.Data), want[0][0].Label) {
		t.Fatalf("bob's image stream: %q, want %s first", m.Data, want[0][0].Label)
	}
	if got, _ := tagRequestOn(t, bob, ClientTagSubject("toy", "bob"), raw[1], map[string]string{HdrEncoding: EncU8}); !sameTags(got.Tags, want[1]) {
		t.Fatalf("bob's tag request: %+v, want %+v", got, want[1])
	}
	// Bob's requests that name alice's inbox or her open stream's result
	// subject as their reply are not answered there (replies.go: before,
	// the tagger published its answer wherever the reply said), and her
	// tag subject and the operators' are refused him.
	aliceInbox := subscribe(t, alice, InboxPrefix("alice")+".x")
	alice.Flush()
	for _, reply := range []string{InboxPrefix("alice") + ".x", ResultSubject("toy", "alice", "a1")} {
		if err := bob.PublishMsg(&nats.Msg{Subject: ClientTagSubject("toy", "bob"), Reply: reply, Data: raw[1], Header: nats.Header{HdrEncoding: {EncU8}}}); err != nil {
			t.Fatal(err)
		}
		// Discovery too: every stage would answer on her subject
		// (accounts.go routes the answers back to bob's account).
		if err := bob.PublishRequest("$SRV.PING", reply, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Answered in turn, so the two before it have been handled.
	if got, _ := tagRequestOn(t, bob, ClientTagSubject("toy", "bob"), raw[1], map[string]string{HdrEncoding: EncU8}); !sameTags(got.Tags, want[1]) {
		t.Fatalf("bob's tag request after the forged replies: %+v", got)
	}
	select {
	case m := <-aliceInbox:
		t.Fatalf("bob's request was answered in alice's inbox: %q", m.Data)
	case <-time.After(100 * time.Millisecond):
	}
	for _, subject := range []string{ClientTagSubject("toy", "alice"), TagSubject("toy")} {
		send(t, bob, subject, 0, raw[1], map[string]string{HdrEncoding: EncU8})
		bobErrs.expect(t, "bob asking for tags on "+subject, subject)
	}

	// Alice's stream ends as if bob had never been there.
	send(t, alice, mine, 1, rest, map[string]string{HdrEncoding: EncF32, HdrEOS: "1"})
	var got []engine.Result
	for len(got) == 0 || !got[len(got)-1].EOS {
		got = append(got, nextResult(t, results))
	}
	if !sameResults(got, second) {
		t.Fatalf("alice's stream under attack:\n%+v\nwant\n%+v", got, second)
	}
	bob.Flush()
	select {
	case m := <-overheard:
		t.Fatalf("bob received %s: %q", m.Subject, m.Data)
	default:
	}
}

// The stages' identity and an operator's credentials have every right; a
// token excludes every other credential.
func TestEmbeddedServerOperators(t *testing.T) {
	opKey, _ := nkeys.CreateUser()
	opPub, _ := opKey.PublicKey()
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true, Auth: &Auth{User: "op", Password: "pw", NKey: opPub,
		Clients: []Client{{Name: "carol", Password: "c"}}, Pipeline: "toy"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	sign := func(nonce []byte) ([]byte, error) { return opKey.Sign(nonce) }
	for _, o := range []nats.Option{nats.UserInfo("op", "pw"), nats.Nkey(opPub, sign)} {
		nc, err := nats.Connect(srv.ClientURL(), o)
		if err != nil {
			t.Fatal(err)
		}
		// An operator publishes and reads any subject, here a confined
		// client's results.
		sub, err := nc.SubscribeSync(ResultSubject("toy", "carol", "*"))
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.Publish(ResultSubject("toy", "carol", "s"), []byte("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := sub.NextMsg(2 * time.Second); err != nil {
			t.Fatalf("the operator could not use a result subject: %v", err)
		}
		nc.Close()
	}
	tok, err := StartEmbedded(EmbeddedOptions{Listen: true, Auth: &Auth{Token: "t0k"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tok.Close)
	if nc, err := tok.Connect("stages"); err != nil {
		t.Fatalf("the stages with the token: %v", err)
	} else {
		nc.Close()
	}
	if nc, err := nats.Connect(tok.ClientURL()); err == nil {
		nc.Close()
		t.Fatal("a token server let in a client without it")
	}
	for _, bad := range []Auth{
		{Token: "t", User: "u", Password: "p"},
		{Token: "t", Clients: []Client{{Name: "c", Password: "p"}}, Pipeline: "toy"},
		{User: "u"},
		{Password: "p"},
		{NKey: "not a key"},
		{Clients: []Client{{Name: "c", Password: "p"}}},
		{User: "c", Password: "p", Clients: []Client{{Name: "c", Password: "q"}}, Pipeline: "toy"},
	} {
		if e, err := StartEmbedded(EmbeddedOptions{Auth: &bad}); err == nil {
			e.Close()
			t.Fatalf("credentials %+v accepted", bad)
		}
	}
}

// A clients file is refused, with the reason, when it lists no one, a
// client twice, a name that is not one token, a client with no secret or
// two, an nkey seed in place of a public key, or a misspelt field.
func TestClientsFileRefusesMistakes(t *testing.T) {
	seed, _ := nkeys.CreateUser()
	pub, _ := seed.PublicKey()
	s, _ := seed.Seed()
	for _, c := range []struct{ file, want string }{
		{`{"clients": []}`, "no clients"},
		{`{}`, "no clients"},
		{`[]`, "not a clients file"},
		{`{"clients": [{"name": "a", "password": "x"}]} {}`, "text after"},
		{`{"clients": [{"name": "a", "password": "x"}, {"name": "a", "nkey": "` + pub + `"}]}`, "listed twice"},
		{`{"clients": [{"name": "a.b", "password": "x"}]}`, "client name"},
		{`{"clients": [{"name": "", "password": "x"}]}`, "client name"},
		{`{"clients": [{"name": "a"}]}`, "one of them"},
		{`{"clients": [{"name": "a", "password": "x", "nkey": "` + pub + `"}]}`, "one of them"},
		{`{"clients": [{"name": "a", "nkey": "` + string(s) + `"}]}`, "not a public user key"},
		{`{"clients": [{"name": "a", "pasword": "x"}]}`, "unknown field"},
	} {
		if _, err := ParseClients([]byte(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want an error saying %q", c.file, err, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "clients.json")
	os.WriteFile(path, []byte(`{"clients": [{"name": "a", "nkey": "`+pub+`"}, {"name": "b", "password": "$2a$04$abcdefghijklmnopqrstuv"}]}`), 0o600)
	got, err := ReadClients(path)
	if err != nil || len(got) != 2 || got[0].NKey != pub || got[1].Name != "b" {
		t.Fatalf("ReadClients: %+v, %v", got, err)
	}
	if _, err := ReadClients(path + ".missing"); err == nil || !strings.Contains(err.Error(), "clients file") {
		t.Fatalf("a missing file: %v", err)
	}
}

// FuzzParseClients: any input is a list of valid clients or an error,
// never a panic, and what is accepted is what ParseClients promises.
func FuzzParseClients(f *testing.F) {
	f.Add([]byte(`{"clients": [{"name": "alice", "password": "x"}]}`))
	f.Add([]byte(`{"clients": [{"name": "bob", "nkey": "UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4"}]}`))
	f.Add([]byte(`{"clients": [{"name": "a", "password": "x"}, {"name": "a", "password": "y"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		clients, err := ParseClients(b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, c := range clients {
			if CheckName("client", c.Name) != nil || seen[c.Name] || (c.Password == "") == (c.NKey == "") {
				t.Fatalf("accepted %+v from %q", c, b)
			}
			seen[c.Name] = true
		}
	})
}
