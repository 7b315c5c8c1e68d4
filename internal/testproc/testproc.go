// Package testproc starts the real processes that tests drive (rfstream
// serve, nats-server, Node clients) so that they die with the test binary:
// a test binary killed by a timeout or by hand leaves no serve or
// nats-server behind holding ports and files. Chromium needs nothing from
// here: chromedp's allocator does the same for the browser on Linux.
package testproc

import (
	"context"
	"os/exec"
)

// Command is exec.Command for a child that dies with the test binary.
func Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	dieWithParent(cmd)
	return cmd
}

// CommandContext is exec.CommandContext for a child that dies with the
// test binary.
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	dieWithParent(cmd)
	return cmd
}
