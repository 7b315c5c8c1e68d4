package progress

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// PeakRSSMB is the process's peak resident set size in MiB (VmHWM), or 0
// where /proc is not available. Long jobs report it beside their timings
// (evaluation tables, feature-selection records kept in model files).
func PeakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}
