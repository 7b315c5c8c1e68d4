package streaming

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// The embedded server's trust boundary. Without Auth anyone who reaches
// the loopback port may publish and read every subject. With it, the
// server takes only the identities Auth lists, and with Guests those that
// present none, who can touch nothing of the pipeline: operators (a user and
// password, an nkey, or one token shared by all) may do everything, while
// each client of a clients file is confined to a namespace of its own, its
// name: it may publish its own streams and read only their results, so it
// can neither read another's audio, tags or transcripts nor forge or end
// another's stream. The stages connect in process with an identity of
// their own (an nkey made at start that never leaves the process).

// Auth is who may connect to the embedded server (EmbeddedOptions.Auth).
type Auth struct {
	// Token is one secret every client presents, with every right. The
	// NATS server cannot check a token beside users or nkeys, so it
	// excludes the other fields.
	Token string
	// User and Password are an operator with every right.
	User, Password string
	// NKey is the public key (U…) of an operator with every right.
	NKey string
	// Clients are confined to their namespaces of Pipeline
	// (ClientPermissions).
	Clients  []Client
	Pipeline string
	// Guests admits a client that presents no credentials into an
	// account of its own (guests.go): it neither hears nor sends anything
	// of the pipeline, so it cannot overhear or forge another client's
	// streams, and may only discover the stages ($SRV). It is admitted at
	// all so that a plain client learns, subject by subject, that it is
	// refused (a permissions violation) instead of finding no server; the
	// token excludes it, as it does nkeys.
	Guests bool
}

// Client is one entry of a clients file: a name, which is also the
// namespace its streams live in, and exactly one way to prove it.
type Client struct {
	Name string `json:"name"`
	// Password is the client's password, or better its bcrypt hash (as
	// `nats server passwd` or `htpasswd -nB` print), which the server
	// compares without the file ever holding the password.
	Password string `json:"password,omitempty"`
	// NKey is the client's public user nkey (U…); the client signs with
	// the seed, which stays with it.
	NKey string `json:"nkey,omitempty"`
}

// MaxClientsFile bounds a clients file, which is read whole.
const MaxClientsFile = 1 << 20

// ReadClients reads a clients file (ParseClients).
func ReadClients(path string) ([]Client, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("clients file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxClientsFile+1))
	if err != nil {
		return nil, fmt.Errorf("clients file %s: %w", path, err)
	}
	clients, err := ParseClients(b)
	if err != nil {
		return nil, fmt.Errorf("clients file %s: %w", path, err)
	}
	return clients, nil
}

// ParseClients reads a clients file's JSON:
//
//	{"clients": [{"name": "alice", "password": "$2a$11$…"},
//	             {"name": "bob", "nkey": "UD…"}]}
//
// Names are stream-name tokens (CheckName), each once; every client has a
// password or an nkey, not both; unknown fields are refused, so a
// misspelt key does not silently leave a client without its secret.
func ParseClients(b []byte) ([]Client, error) {
	if len(b) > MaxClientsFile {
		return nil, fmt.Errorf("larger than %d bytes", MaxClientsFile)
	}
	var file struct {
		Clients []Client `json:"clients"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("not a clients file (want {\"clients\": [{\"name\": …, \"password\" or \"nkey\": …}]}): %w", err)
	}
	if dec.More() {
		return nil, errors.New("text after the clients object")
	}
	if len(file.Clients) == 0 {
		return nil, errors.New("no clients listed")
	}
	seen := map[string]bool{}
	for i, c := range file.Clients {
		if err := CheckName("client", c.Name); err != nil {
			return nil, fmt.Errorf("client %d: %w", i+1, err)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("client %q listed twice", c.Name)
		}
		seen[c.Name] = true
		switch {
		case (c.Password == "") == (c.NKey == ""):
			return nil, fmt.Errorf("client %q: give a password or an nkey, one of them", c.Name)
		case c.NKey != "" && !nkeys.IsValidPublicUserKey(c.NKey):
			return nil, fmt.Errorf("client %q: nkey is not a public user key (U…; the seed, S…, stays with the client)", c.Name)
		}
	}
	return file.Clients, nil
}

// ClientPermissions confine a client to its namespace of a pipeline. It
// may publish its voice's audio streams (VoiceSubject with the client's
// name as the voice), its image streams (rfs.v1.<pipeline>.image.<name>.*),
// ask to forget its voice, request tags on its own subject
// (ClientTagSubject, answered only in its inbox: replies.go) and discovery
// ($SRV.>); it may read its streams' results and tags, the answer about
// its voice, and replies on its own inbox prefix, InboxPrefix(name),
// which it must set (nats.CustomInboxPrefix, `nats --inbox-prefix`, nats.js
// inboxPrefix) to make requests. Everything else is refused by the server.
func ClientPermissions(pipeline, name string) *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			VoiceSubject(pipeline, name, "*"),
			Subject(pipeline, KindImage, name+".*"),
			Subject(pipeline, KindForget, name),
			ClientTagSubject(pipeline, name),
			"$SRV.>",
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{
			ResultSubject(pipeline, name, "*"),
			Subject(pipeline, KindTags, name+".*"),
			Subject(pipeline, KindForgotten, name),
			InboxPrefix(name) + ".>",
		}},
	}
}

// InboxPrefix is the reply-subject prefix a confined client uses:
// _INBOX.<name>, so no client can subscribe to another's replies.
func InboxPrefix(name string) string { return "_INBOX." + name }

// confines reports whether a lists clients to namespaces.
func (a *Auth) confines() bool { return a != nil && len(a.Clients) > 0 }

// check refuses an Auth the server would misread.
func (a *Auth) check() error {
	switch {
	case a.Token != "" && (a.User != "" || a.NKey != "" || len(a.Clients) > 0 || a.Guests):
		return errors.New("a token is one secret for every client: it cannot be combined with users, nkeys, a clients file or guests")
	case (a.User == "") != (a.Password == ""):
		return errors.New("a user needs a password, and a password a user")
	case a.NKey != "" && !nkeys.IsValidPublicUserKey(a.NKey):
		return errors.New("the operator's nkey is not a public user key")
	case len(a.Clients) > 0 && CheckName("pipeline", a.Pipeline) != nil:
		return fmt.Errorf("clients need the pipeline they are confined to: %w", CheckName("pipeline", a.Pipeline))
	}
	for _, c := range a.Clients {
		if c.Name == a.User {
			return fmt.Errorf("client %q has the operator's user name", c.Name)
		}
	}
	return nil
}

// apply configures the server for a, and returns the stages' identity: an
// nkey pair made now, or nil when the token is the only credential.
func (a *Auth) apply(o *server.Options) (nkeys.KeyPair, error) {
	if err := a.check(); err != nil {
		return nil, fmt.Errorf("streaming: embedded server credentials: %w", err)
	}
	if a.Token != "" {
		o.Authorization = a.Token
		return nil, nil
	}
	stages, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	pub, err := stages.PublicKey()
	if err != nil {
		return nil, err
	}
	o.Nkeys = []*server.NkeyUser{{Nkey: pub}}
	if a.NKey != "" {
		o.Nkeys = append(o.Nkeys, &server.NkeyUser{Nkey: a.NKey})
	}
	if a.User != "" {
		o.Users = append(o.Users, &server.User{Username: a.User, Password: a.Password})
	}
	if a.Guests {
		if err := admitGuests(o); err != nil {
			return nil, err
		}
	}
	for _, c := range a.Clients {
		perms := ClientPermissions(a.Pipeline, c.Name)
		acc := server.NewAccount(clientAccount(c.Name))
		o.Accounts = append(o.Accounts, acc)
		if c.NKey != "" {
			o.Nkeys = append(o.Nkeys, &server.NkeyUser{Nkey: c.NKey, Permissions: perms, Account: acc})
		} else {
			o.Users = append(o.Users, &server.User{Username: c.Name, Password: c.Password, Permissions: perms, Account: acc})
		}
	}
	return stages, nil
}

// Describe says in one line what a requires, for serve's log.
func (a *Auth) Describe() string {
	var parts []string
	if a.Token != "" {
		parts = append(parts, "a token")
	}
	if a.User != "" {
		parts = append(parts, "user "+a.User)
	}
	if a.NKey != "" {
		parts = append(parts, "nkey "+a.NKey[:8]+"…")
	}
	if len(a.Clients) > 0 {
		parts = append(parts, fmt.Sprintf("%d confined clients", len(a.Clients)))
	}
	if a.Guests {
		parts = append(parts, "clients without credentials as guests, who can neither hear nor send the pipeline's subjects, only discover its services")
	}
	return strings.Join(parts, ", ")
}
