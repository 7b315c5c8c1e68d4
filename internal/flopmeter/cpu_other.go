//go:build !unix

package flopmeter

import "time"

// cpuTime is unknown here: Report then gives the wall figure only.
func cpuTime() time.Duration { return 0 }
