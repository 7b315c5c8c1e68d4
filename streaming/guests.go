package streaming

import (
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// Guests (Auth.Guests): a client that presents no credentials is mapped to
// an nkey made and thrown away (nobody can sign as it), in an account of
// its own. Accounts are NATS's own wall between namespaces: nothing the
// pipeline's clients and stages publish reaches the guests' account, and
// nothing a guest publishes reaches theirs, except the stages' discovery,
// $SRV.>, which the pipeline's account exports as a service. A service
// import routes each answer back to the asker through a reply subject the
// server makes, so a guest that names a victim's result subject as its
// reply makes the stages answer into the guests' account, not onto the
// victim's stream: with one account, permissions alone could not stop
// that, since NATS never checks a reply subject (replies.go).

// guestAccount is the name of the guests' account.
const guestAccount = "rfstream-guests"

// GuestPermissions are a guest's, inside its account: it may publish only
// discovery requests, so that audio or an image it sends is refused
// naming the subject, and a subscription to the pipeline's subjects is
// refused likewise (rfs.>, where nothing of the pipeline would come
// anyway), so that a client without credentials learns at once why it
// hears nothing. A subscription to > is taken: nats.js throws a refused
// subscription at whoever iterates it.
func GuestPermissions() *server.Permissions {
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: []string{"$SRV.>"}},
		Subscribe: &server.SubjectPermission{Deny: []string{"rfs.>"}},
	}
}

// admitGuests adds the guests' account and their nkey to o; linkAccounts
// connects the account to the pipeline's once the server exists.
func admitGuests(o *server.Options) error {
	guest, err := nkeys.CreateUser()
	if err != nil {
		return err
	}
	pub, err := guest.PublicKey()
	if err != nil {
		return err
	}
	acc := server.NewAccount(guestAccount)
	o.Accounts = append(o.Accounts, acc)
	o.Nkeys = append(o.Nkeys, &server.NkeyUser{Nkey: pub, Permissions: GuestPermissions(), Account: acc})
	o.NoAuthUser = pub
	return nil
}
