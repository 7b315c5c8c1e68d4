package streaming

import (
	"sort"

	"github.com/nats-io/nats.go"
)

// reorder holds a stream's messages until they can be taken in sequence.
// Both stateful stages keep one per stream: the frontend for PCM messages
// (frontStream; advance gives up on a gap once more than Pipeline.Window
// later messages are held), the decoder for scores (decStream, which waits
// for a gap until the stream goes idle).
type reorder struct {
	next    int
	pending map[int]*nats.Msg
	bytes   int // payload bytes held in pending (Pipeline.MaxHeldBytes)
}

// add files m under seq; it reports false for a duplicate.
func (r *reorder) add(seq int, m *nats.Msg) bool {
	if seq < r.next {
		return false
	}
	if _, dup := r.pending[seq]; dup {
		return false
	}
	r.pending[seq] = m
	r.bytes += len(m.Data)
	return true
}

// take returns the next message in sequence, if it is there.
func (r *reorder) take() (*nats.Msg, bool) {
	m, ok := r.pending[r.next]
	if ok {
		delete(r.pending, r.next)
		r.bytes -= len(m.Data)
		r.next++
	}
	return m, ok
}

// skip declares the messages before the earliest held one lost and
// returns the range skipped.
func (r *reorder) skip() (int, int) {
	keys := make([]int, 0, len(r.pending))
	for k := range r.pending {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	from := r.next
	r.next = keys[0]
	return from, keys[0] - 1
}
