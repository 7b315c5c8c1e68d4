package streaming

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// A client without credentials on a server with guests connects, and its
// subscription to everything is taken, but it hears nothing the
// pipeline's clients and stages publish, pipeline subjects, replies or
// anything else; what it publishes on the pipeline's subjects, and a
// subscription to them, are refused with a permissions violation naming
// the subject. It may discover the stages ($SRV), and a discovery request
// whose reply names a pipeline subject is answered in the guests' account,
// not on that subject: it can neither overhear nor forge a stream.
func TestGuestsHearAndSendNothing(t *testing.T) {
	opKey, _ := nkeys.CreateUser()
	opPub, _ := opKey.PublicKey()
	srv, err := StartEmbedded(EmbeddedOptions{Listen: true, Auth: &Auth{NKey: opPub, Guests: true, Pipeline: "toy"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	refused := make(chan error, 16)
	guest, err := nats.Connect(srv.ClientURL(), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused <- err }))
	if err != nil {
		t.Fatalf("a guest could not connect: %v", err)
	}
	t.Cleanup(guest.Close)
	heard, err := guest.SubscribeSync(">")
	if err != nil {
		t.Fatal(err)
	}
	if err := guest.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-refused:
		t.Fatalf("a guest's subscription to > was refused (nats.js would throw): %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	op, err := nats.Connect(srv.ClientURL(), nats.Nkey(opPub, opKey.Sign))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(op.Close)
	stages, err := srv.Connect("stages")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stages.Close)
	forged, err := stages.SubscribeSync("rfs.>")
	if err != nil {
		t.Fatal(err)
	}
	// A stand-in for a stage's micro service.
	if _, err := stages.Subscribe("$SRV.PING", func(m *nats.Msg) { m.Respond([]byte("pong")) }); err != nil {
		t.Fatal(err)
	}
	stages.Flush()
	for _, subj := range []string{ResultSubject("toy", "", "s"), ResultSubject("toy", "alice", "s"), Subject("toy", KindPCM, "s"),
		TagSubject("toy"), "_INBOX.abc.1", "_INBOX.alice.x", "weather"} {
		if err := op.Publish(subj, []byte("secret")); err != nil {
			t.Fatal(err)
		}
	}
	op.Flush()
	if m, err := heard.NextMsg(300 * time.Millisecond); err == nil {
		t.Fatalf("a guest overheard %s: %q", m.Subject, m.Data)
	}

	if m, err := guest.Request("$SRV.PING", nil, 2*time.Second); err != nil || string(m.Data) != "pong" {
		t.Fatalf("a guest's discovery: %v %v, want the stage's answer", m, err)
	}
	if err := guest.PublishRequest("$SRV.PING", ResultSubject("toy", "alice", "s"), nil); err != nil {
		t.Fatal(err)
	}
	guest.Flush()
	for _, subj := range []string{Subject("toy", KindPCM, "s"), VoiceSubject("toy", "alice", "s"), ResultSubject("toy", "alice", "s")} {
		guest.Publish(subj, []byte("forged"))
		select {
		case err := <-refused:
			if !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), subj) {
				t.Fatalf("a guest's publish on %s: %v, want a permissions violation naming it", subj, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("a guest's publish on %s was not refused", subj)
		}
	}
	for m, err := forged.NextMsg(300 * time.Millisecond); err == nil; m, err = forged.NextMsg(300 * time.Millisecond) {
		if string(m.Data) != "secret" {
			t.Fatalf("a guest made %q arrive on %s", m.Data, m.Subject)
		}
	}
	if _, err := guest.SubscribeSync(ResultSubject("toy", "alice", "*")); err == nil {
		guest.Flush()
		if err := guest.LastError(); !errors.Is(err, nats.ErrPermissionViolation) {
			t.Fatalf("a guest's subscription to alice's results: %v, want a permissions violation", err)
		}
	}
	if e, err := StartEmbedded(EmbeddedOptions{Auth: &Auth{Token: "t", Guests: true}}); err == nil {
		e.Close()
		t.Fatal("a token with guests was accepted")
	}
}
