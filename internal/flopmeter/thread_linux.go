package flopmeter

import (
	"syscall"
	"time"
)

// ThreadCPU is the user and system time of the calling OS thread, and
// whether the platform can tell. A benchmark that locks its goroutine to
// its thread (runtime.LockOSThread) measures its own work with it, however
// many other jobs share the cores.
func ThreadCPU() (time.Duration, bool) {
	const rusageThread = 1 // RUSAGE_THREAD, which package syscall does not name
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
