package parallel

import (
	"errors"
	"runtime"
	"sync"
)

// cores is the CPUs this process may use, as the runtime counted them at
// start (its default GOMAXPROCS, which heeds CPU affinity and cgroup
// limits, or the GOMAXPROCS environment variable). The live stages raise
// GOMAXPROCS above it (rfstream serve --procs); work split for speed
// still wants one worker a core.
var cores = runtime.GOMAXPROCS(0)

// Cores returns how many CPUs work split for speed should use.
func Cores() int { return cores }

// For calls fn(0), …, fn(n−1) from Cores workers and returns when every
// call has returned.
func For(n int, fn func(i int)) {
	workers := min(cores, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// ForErr is For for jobs that can fail: every job runs, and the errors are
// joined in index order (nil when none failed).
func ForErr(n int, fn func(i int) error) error {
	errs := make([]error, n)
	For(n, func(i int) { errs[i] = fn(i) })
	return errors.Join(errs...)
}
