package decode

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time used by the calling OS thread (RUSAGE_THREAD),
// so a benchmark on a loaded machine can report throughput per busy core
// rather than per wall-clock second. The caller locks its goroutine to the
// thread.
func threadCPU() (time.Duration, bool) {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
