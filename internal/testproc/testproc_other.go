//go:build !linux

package testproc

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal;
// there a killed test binary can still leave its children running.
func dieWithParent(*exec.Cmd) {}
