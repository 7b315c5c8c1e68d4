package cli

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// SetSoftMemoryLimit gives the collector a soft limit of three quarters of
// the memory the process may use, unless GOMEMLIMIT sets one. The largest
// evaluations hold many gigabytes live (the MNIST count table beside a
// fit's features and kernel: about 13 GB at 99 000 features), and the
// collector's default goal, twice the live heap, would ask for more memory
// than the machine has; near the limit it collects sooner instead.
func SetSoftMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			return ""
		}
		return string(b)
	}
	if limit := softMemoryLimit(read("/proc/meminfo"), read("/sys/fs/cgroup/memory.max"),
		read("/sys/fs/cgroup/memory/memory.limit_in_bytes")); limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}

// softMemoryLimit is three quarters of the smallest of the machine's
// memory (MemTotal of /proc/meminfo) and the cgroup limits given (a byte
// count, or "max" for none), or 0 when none of them is known.
func softMemoryLimit(meminfo string, cgroupLimits ...string) int64 {
	var least int64
	take := func(b int64) {
		if b > 0 && (least == 0 || b < least) {
			least = b
		}
	}
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
				take(kb << 10)
			}
		}
	}
	for _, s := range cgroupLimits {
		// "max", or cgroup v1's "no limit" (a page-rounded MaxInt64), fail
		// to parse or exceed any real memory; take keeps the least anyway.
		if b, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			take(b)
		}
	}
	return least / 4 * 3
}
