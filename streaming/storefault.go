package streaming

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"
)

// Storage faults of a durable pipeline's JetStream store. The embedded
// server reports its store's write errors (Embedded.OnStoreFault); serve
// hands them to StoreFaults, which counts them among the stages' storage
// errors ($SRV.STATS storage_errors and storage_error) and logs them. A
// client whose stored publish goes unanswered looks there
// (pipelineActivity.storeFault) and fails with the store's own words at once, where it
// used to retry until its patience ran out and say only that no durable
// pipeline seemed to serve.

// storeFaultPrefix starts the storage error of a store fault, which is how
// a client tells it from a voice file's.
const storeFaultPrefix = "the JetStream store failed to write"

// StoreFault counts a write error of the pipeline's JetStream store among
// the stages' storage errors.
func (s *Stages) StoreFault(err error) {
	s.stats.storageFault(fmt.Errorf("%s: %w", storeFaultPrefix, err))
}

// storeFaultLogEvery spaces the log lines of a failing store: a full disk
// fails every write, hundreds a second.
const storeFaultLogEvery = 10 * time.Second

// StoreFaults returns a function for Embedded.OnStoreFault that counts
// each store write error in every one of stages and logs to log the first
// and, at most every 10 s, how many more there were and the last.
func StoreFaults(log io.Writer, stages ...*Stages) func(error) {
	var mu sync.Mutex
	var logged time.Time
	unlogged := 0
	return func(err error) {
		for _, st := range stages {
			st.StoreFault(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); now.Sub(logged) >= storeFaultLogEvery {
			more := ""
			if unlogged > 0 {
				more = fmt.Sprintf(" (and %d more since the last such line)", unlogged)
			}
			fmt.Fprintf(log, "%s%s: %v; messages it cannot store are lost, and clients publishing to it are told so\n", storeFaultPrefix, more, err)
			logged, unlogged = now, 0
			return
		}
		unlogged++
	}
}

// storeFault returns the store fault one of the stages that answered
// reports, "" when none does.
func (now pipelineActivity) storeFault() string {
	for _, answer := range now {
		var st micro.Stats
		if json.Unmarshal([]byte(answer), &st) != nil {
			continue
		}
		for _, ep := range st.Endpoints {
			var ss ServiceStats
			if json.Unmarshal(ep.Data, &ss) == nil && strings.HasPrefix(ss.StorageError, storeFaultPrefix) {
				return ss.StorageError
			}
		}
	}
	return ""
}
