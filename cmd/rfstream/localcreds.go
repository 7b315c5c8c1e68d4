package main

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/internal/localcreds"
)

// refusedHint adds to a permissions violation from a loopback server
// that serve may have left this command's credentials where it did not
// look: a serve started with another $RFSTREAM_DATA, or by another user.
func (f *natsFlags) refusedHint(err error) error {
	if !errors.Is(err, nats.ErrPermissionViolation) || f.user != "" || f.token != "" || f.nkey != "" || f.creds != "" {
		return err
	}
	u, perr := url.Parse(f.url)
	if perr != nil || !localcreds.IsLoopback(u.Hostname()) || u.Port() == "" {
		return err
	}
	port, _ := strconv.Atoi(u.Port())
	return fmt.Errorf("%w\n(with no credentials this command is a guest of serve's embedded server: it looked for rfstream's own in %s, where serve writes them under its user's data cache ($RFSTREAM_DATA or ~/.cache/rfstream); run it as that user with the same $RFSTREAM_DATA, or give --nkey with serve's file)", err, localcreds.SeedPath(port))
}
