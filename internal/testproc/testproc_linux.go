//go:build linux

package testproc

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to SIGKILL the child when its parent dies.
// Strictly, Linux sends the signal when the thread that started the child
// ends, not the process; the Go runtime ends a thread only when a goroutine
// locked to it (runtime.LockOSThread) returns still locked, and the tests
// start their children from ordinary goroutines, so here the thread lives
// as long as the test binary does.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
