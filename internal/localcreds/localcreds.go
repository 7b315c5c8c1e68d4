// Package localcreds keeps the local tools' credentials. serve's embedded
// server, given no credentials, does not open its subjects to every local
// process: it makes
// an nkey for the tools of the user who started it, and writes the seed
// to a file only that user can read, named after the port. `rfstream
// stream`, `tag`, `serve --stages` and the rest, told no credentials and
// pointed at a loopback server, present the seed they find there; so they
// keep working with no flags while a process of another user, or any
// client that does not read the file, is a guest who hears and sends
// nothing of the pipeline (streaming.Auth.Guests). The file is the trust
// boundary, as ~/.ssh is: a process that can read it is the same user.
package localcreds

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/rfstream/rfstream/internal/defaults"
)

// SeedPath is where serve's embedded server on a loopback port keeps
// the local tools' seed: under the data cache, which serve and the tools
// share ($RFSTREAM_DATA or ~/.cache/rfstream).
func SeedPath(port int) string {
	return filepath.Join(defaults.DataDir(), "nats", "local-"+strconv.Itoa(port)+".seed")
}

// WriteSeed writes seed for the server on port, readable by this user
// only. A file left by a serve that was killed is replaced: its seed
// opens nothing any more.
func WriteSeed(port int, seed []byte) (string, error) {
	path := SeedPath(port)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("local credentials: %w", err)
	}
	// CreateTemp makes the file 0600 before a byte of the seed is in it,
	// and the rename leaves no moment where a reader sees half a seed.
	f, err := os.CreateTemp(dir, ".local-*")
	if err != nil {
		return "", fmt.Errorf("local credentials: %w", err)
	}
	_, werr := f.Write(append(seed, '\n'))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("local credentials: %w", werr)
	}
	return path, nil
}

// SeedFor returns the local tools' seed file for servers, a --nats
// value, when it names one loopback server and serve left a seed for its
// port; else "".
func SeedFor(servers string) string {
	if strings.Contains(servers, ",") {
		return ""
	}
	s := servers
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.User != nil || (u.Scheme != "nats" && u.Scheme != "tls") {
		return ""
	}
	port, err := strconv.Atoi(u.Port())
	if u.Port() == "" {
		port, err = 4222, nil
	}
	if err != nil || !IsLoopback(u.Hostname()) {
		return ""
	}
	path := SeedPath(port)
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// IsLoopback reports whether host is this machine's loopback by name or
// address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RefusedHint adds to a permissions violation from a loopback server at
// url, for a command given no credentials, that serve may have left its
// credentials where the command did not look: a serve started with another
// $RFSTREAM_DATA, or by another user.
func RefusedHint(err error, url string, hasCredentials bool) error {
	if !errors.Is(err, nats.ErrPermissionViolation) || hasCredentials {
		return err
	}
	port, ok := loopbackPort(url)
	if !ok {
		return err
	}
	return fmt.Errorf("%w\n(with no credentials this command is a guest of serve's embedded server: it looked for rfstream's own in %s, where serve writes them under its user's data cache ($RFSTREAM_DATA or ~/.cache/rfstream); run it as that user with the same $RFSTREAM_DATA, or give --nkey with serve's file)", err, SeedPath(port))
}

// Stale reports whether err, from connecting to servers with the local
// tools' seed SeedFor found, says the server there does not take that
// seed: a serve killed before it could remove its file left it for a port
// that another server (a plain nats-server, which refuses nkeys, or
// another serve with its own) now has. The command then connects without
// it, as it would have with no file on the disk.
func Stale(servers string, err error) bool {
	return SeedFor(servers) != "" && (errors.Is(err, nats.ErrNkeysNotSupported) || errors.Is(err, nats.ErrAuthorization))
}

// loopbackPort is the port of a loopback server URL.
func loopbackPort(raw string) (int, bool) {
	u, err := url.Parse(raw)
	if err != nil || !IsLoopback(u.Hostname()) || u.Port() == "" {
		return 0, false
	}
	port, err := strconv.Atoi(u.Port())
	return port, err == nil
}
