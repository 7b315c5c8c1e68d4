package main

import (
	"fmt"
	"runtime"

	"github.com/rfstream/rfstream/internal/parallel"
)

// procsUsage explains --procs. More Ps than cores trade capacity for the
// latency of a message's hops between stages when something else fills
// the cores: a hop woken behind busy goroutines waits for a P (up to Go's
// 10 ms slice per busy one), while with spare Ps it gets a thread the
// kernel runs at once. Measured on two cores (experiments/journal/
// streaming.md, Nov 27): a valid-audio flood's stall of the other streams,
// median 155 ms with 2 Ps, 67 ms with 4, 49 ms with 8; the streams
// bench-stream held, 500–600 with 2, 300–500 with 4, 400 with 8. Hence
// the runtime's own default, one P a core.
const procsUsage = "Go scheduler threads (GOMAXPROCS) for the stages; 0: the runtime's own (the GOMAXPROCS variable, else one a core). More than the cores trades concurrent streams for a shorter stall of the others under a flood (docs/streaming.md)"

// setLiveProcs sets GOMAXPROCS for a process that runs live stages (0
// leaves it) and returns the line that reports it.
func setLiveProcs(n int) (string, error) {
	if n < 0 {
		return "", fmt.Errorf("--procs %d: want 1 or more (0: the default)", n)
	}
	if n > 0 {
		runtime.GOMAXPROCS(n)
	}
	return fmt.Sprintf("Go threads (GOMAXPROCS): %d for %d cores", runtime.GOMAXPROCS(0), parallel.Cores()), nil
}
