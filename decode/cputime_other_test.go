//go:build !linux

package decode

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
