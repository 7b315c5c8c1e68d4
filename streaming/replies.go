package streaming

import (
	"errors"
	"fmt"
	"strings"
)

// Who a stage's answer may go to. NATS checks what a client publishes on,
// never the reply subject it names, so a request is a way to make a stage
// publish, with the stages' every right, wherever the asker likes: before
// this check a confined client could ask for tags with another client's
// result subject or inbox as the reply, and the tagger published there. A
// stage therefore answers only on an inbox of the one who asked: on
// TagSubject, any _INBOX.… (operators, and every client of an open
// server, may read any inbox anyway); on ClientTagSubject, where the
// server lets only the named client publish, the client's own inbox,
// InboxPrefix(name), where only it may subscribe.

// ClientTagSubject returns rfs.v1.<pipeline>.tag.<client>, where a
// confined client asks for tags (ClientPermissions): its answer goes only
// to the client's own inbox.
func ClientTagSubject(pipeline, client string) string { return TagSubject(pipeline) + "." + client }

// serviceReply prefixes the reply subjects the server makes for a request
// that reaches the pipeline's account through a service import (a
// confined client's or a guest's: accounts.go); no client can name one.
const serviceReply = "_R_."

// askerInbox returns the prefix a reply to a request on subject must have
// to reach only the one who could ask there.
func askerInbox(pipeline, subject string) string {
	if client, ok := strings.CutPrefix(subject, TagSubject(pipeline)+"."); ok {
		return InboxPrefix(client) + "."
	}
	return "_INBOX."
}

// checkReply refuses to answer a request whose reply is not an inbox of
// its asker (askerInbox); the error is the stage's to count and log, as
// the asker cannot be told.
func checkReply(pipeline, subject, reply string) error {
	if reply == "" {
		return errors.New("a request without a reply subject")
	}
	if strings.HasPrefix(reply, serviceReply) && len(reply) > len(serviceReply) {
		return nil // made by the server, which routes it back to the asker's account
	}
	if want := askerInbox(pipeline, subject); !strings.HasPrefix(reply, want) || len(reply) == len(want) {
		return fmt.Errorf("a request on %s with the reply %q, which is not an inbox under %s: not answered (a reply goes only to its asker)", subject, reply, want)
	}
	return nil
}
