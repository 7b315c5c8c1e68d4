// Package nodeclients finds the third-party Node.js clients (nats.js) that
// tests drive against rfstream: mk/nodeclients.sh installs them in the data
// cache, and make test runs it first.
package nodeclients

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rfstream/rfstream/internal/defaults"
)

// NatsJS returns node and the node_modules folder holding nats.js
// ($RFSTREAM_NODE_CLIENTS, else node-clients in the data cache). A test
// without node is skipped, saying why it needs it; node without nats.js is
// a failure, because make test installs it.
func NatsJS(t testing.TB, why string) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: %s (apt-get install nodejs npm)", why)
	}
	dir := os.Getenv("RFSTREAM_NODE_CLIENTS")
	if dir == "" {
		dir = filepath.Join(defaults.DataDir(), "node-clients")
	}
	modules = filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@nats-io", "transport-node", "package.json")); err != nil {
		t.Fatalf("nats.js is not installed in %s: run mk/nodeclients.sh %s (make test does), or set RFSTREAM_NODE_CLIENTS", dir, dir)
	}
	return node, modules
}
