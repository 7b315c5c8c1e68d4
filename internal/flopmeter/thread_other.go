//go:build !linux

package flopmeter

import "time"

// ThreadCPU is unknown here.
func ThreadCPU() (time.Duration, bool) { return 0, false }
