package streaming

import (
	"github.com/nats-io/nats-server/v2/server"
)

// The embedded server's accounts. The stages and the operators are in the
// server's global account, the pipeline's; each confined client
// (Auth.Clients) has an account of its own, and the guests (Auth.Guests)
// one they share. An account sees only what is published in it or
// imported into it, so a client's account holds exactly its namespace:
// its streams go to the pipeline (stream exports of its voice, image and
// forget subjects), the pipeline's answers to them come back (its results,
// tags and forgotten answer), and its requests (its tag subject, $SRV) are
// services, whose answers the server routes back to the asker through a
// reply subject of its own making. NATS never checks a reply subject a
// client names, so in one account a request was a way to make a stage
// publish anywhere: across accounts the answer can only land in the
// asker's account.

// clientAccount names a confined client's account.
func clientAccount(name string) string { return "rfstream-client-" + name }

// linkAccounts makes the exports and imports between the pipeline's
// account and the clients' and guests' once the server exists, and gives
// the pipeline's account JetStream, which a server with accounts of its
// own gives only to those configured for it.
func (a *Auth) linkAccounts(s *server.Server, jetStream bool) error {
	if !a.Guests && len(a.Clients) == 0 {
		return nil
	}
	pipeline := s.GlobalAccount()
	// Discovery is every stage's answer to one request: streamed.
	if err := pipeline.AddServiceExportWithResponse("$SRV.>", server.Streamed, nil); err != nil {
		return err
	}
	if a.Guests {
		guests, err := s.LookupAccount(guestAccount)
		if err != nil {
			return err
		}
		if err := guests.AddServiceImport(pipeline, "$SRV.>", "$SRV.>"); err != nil {
			return err
		}
	}
	for _, c := range a.Clients {
		if err := a.linkClient(s, pipeline, c.Name); err != nil {
			return err
		}
	}
	if jetStream {
		unlimited := server.JetStreamAccountLimits{MaxMemory: -1, MaxStore: -1, MaxStreams: -1, MaxConsumers: -1, MaxAckPending: -1}
		return pipeline.EnableJetStream(map[string]server.JetStreamAccountLimits{"": unlimited}, nil)
	}
	return nil
}

// linkClient connects one confined client's account to the pipeline's.
func (a *Auth) linkClient(s *server.Server, pipeline *server.Account, name string) error {
	acc, err := s.LookupAccount(clientAccount(name))
	if err != nil {
		return err
	}
	only := []*server.Account{acc}
	for _, subject := range []string{ResultSubject(a.Pipeline, name, "*"), Subject(a.Pipeline, KindTags, name+".*"), Subject(a.Pipeline, KindForgotten, name)} {
		if err := pipeline.AddStreamExport(subject, only); err != nil {
			return err
		}
		if err := acc.AddStreamImport(pipeline, subject, ""); err != nil {
			return err
		}
	}
	for _, subject := range []string{VoiceSubject(a.Pipeline, name, "*"), Subject(a.Pipeline, KindImage, name+".*"), Subject(a.Pipeline, KindForget, name)} {
		if err := acc.AddStreamExport(subject, []*server.Account{pipeline}); err != nil {
			return err
		}
		if err := pipeline.AddStreamImport(acc, subject, ""); err != nil {
			return err
		}
	}
	tag := ClientTagSubject(a.Pipeline, name)
	if err := pipeline.AddServiceExportWithResponse(tag, server.Singleton, only); err != nil {
		return err
	}
	if err := acc.AddServiceImport(pipeline, tag, tag); err != nil {
		return err
	}
	return acc.AddServiceImport(pipeline, "$SRV.>", "$SRV.>")
}
