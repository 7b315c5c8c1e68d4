package flopmeter

import (
	"runtime"
	"testing"
	"time"
)

var sink float64

func TestCPUTimeAdvancesWithWork(t *testing.T) {
	start := cpuTime()
	if start == 0 {
		t.Skip("no CPU clock on this platform")
	}
	x := 0.0
	for k := 0; k < 20_000_000; k++ {
		x += float64(k)
	}
	sink = x
	if d := cpuTime() - start; d <= 0 || d > time.Minute {
		t.Fatalf("CPU time advanced by %v over 2e7 additions", d)
	}
}

func TestReportGivesBothFigures(t *testing.T) {
	r := testing.Benchmark(func(b *testing.B) {
		start := Start()
		x := 0.0
		for i := 0; i < b.N; i++ {
			for k := 0; k < 100_000; k++ {
				x += float64(k)
			}
		}
		sink = x
		Report(b, 100_000, start)
	})
	wall, cpu := r.Extra["GFLOP/s"], r.Extra["GFLOP/s-cpu"]
	if !(wall > 0) {
		t.Fatalf("wall figure %v", wall)
	}
	if cpuTime() > 0 && !(cpu > 0) {
		t.Fatalf("CPU figure %v", cpu)
	}
	t.Logf("%.3g GFLOP/s by the wall clock, %.3g by CPU time", wall, cpu)
}

func TestThreadCPUAdvancesWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := ThreadCPU()
	if !ok {
		t.Skip("no thread CPU clock on this platform")
	}
	x := 0.0
	for k := 0; k < 20_000_000; k++ {
		x += float64(k)
	}
	sink = x
	end, _ := ThreadCPU()
	if d := end - start; d <= 0 || d > time.Minute {
		t.Fatalf("thread CPU time advanced by %v over 2e7 additions", d)
	}
}
