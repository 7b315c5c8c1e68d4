package streaming

import "testing"

// A request is answered only on an inbox of whoever could ask on its
// subject: any inbox on the shared tag subject, the named client's own on
// its subject; never a pipeline subject, another's inbox or no reply.
func TestRepliesGoOnlyToTheirAskers(t *testing.T) {
	for _, c := range []struct {
		subject, reply string
		ok             bool
	}{
		{TagSubject("p"), "_INBOX.abc", true},
		{TagSubject("p"), "_INBOX.alice.x.1", true},
		{TagSubject("p"), ResultSubject("p", "alice", "s"), false},
		{TagSubject("p"), "_INBOX.", false},
		{TagSubject("p"), "", false},
		{ClientTagSubject("p", "bob"), "_INBOX.bob.x.1", true},
		{ClientTagSubject("p", "bob"), "_INBOX.bobby.x", false},
		{ClientTagSubject("p", "bob"), "_INBOX.alice.x", false},
		{ClientTagSubject("p", "bob"), "_INBOX.bob.", false},
		{ClientTagSubject("p", "bob"), ResultSubject("p", "bob", "s"), false},
		{ClientTagSubject("p", "bob"), "_R_.aB3.x", true}, // the server's, for a service import
		{TagSubject("p"), "_R_.", false},
	} {
		if err := checkReply("p", c.subject, c.reply); (err == nil) != c.ok {
			t.Errorf("a request on %s with reply %q: %v, want answered %v", c.subject, c.reply, err, c.ok)
		}
	}
}
