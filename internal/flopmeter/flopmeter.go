package flopmeter

import (
	"testing"
	"time"
)

// Start returns the process's CPU time so far; call it right after
// b.ResetTimer.
func Start() time.Duration { return cpuTime() }

// Report reports flops·b.N as "GFLOP/s" of wall time since the timer was
// reset and as "GFLOP/s-cpu" of the CPU time since start (when the
// platform can tell).
func Report(b *testing.B, flops float64, start time.Duration) {
	work := flops * float64(b.N) / 1e9
	cpu := cpuTime() - start
	b.ReportMetric(work/b.Elapsed().Seconds(), "GFLOP/s")
	if cpu > 0 {
		b.ReportMetric(work/cpu.Seconds(), "GFLOP/s-cpu")
	}
}
