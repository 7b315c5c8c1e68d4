package streaming

import (
	"bytes"
	"sync"
)

// Fair scheduling between streams. A stage's subscription delivers every
// stream's messages in one sequence, so a stage that handled them in that
// order made every stream wait behind whatever any stream had sent before:
// an attacker's hundreds of megabytes, or thousands of stream ends. Now the
// subscription callback only files each message in a queue of its stream
// (fairQueue.push, a few checks and no decoding), and the stage's worker
// serves the streams in turn: each turn, a stream may have up to
// fairQuantum more bytes of its messages handled (deficit round robin, so a
// stream of big messages gets its share in bytes, not in messages, and a
// stream of small ones is not held to one message a turn). A stream's
// backlog then delays that stream; another stream waits at most one turn
// of each stream with work waiting, whatever their backlogs.

// fairQuantum is the bytes of messages a stream's turn adds to what it
// may have handled: 64 KiB is 4 s of 8 kHz 16-bit audio, so a turn of every
// one of a few hundred busy streams stays within a frame of work each.
const fairQuantum = 64 << 10

// minItemCost is what a message costs a turn at least, headers and all,
// so that header-only messages (end-of-stream markers, payloads refused
// for size) are not free.
const minItemCost = 256

// fairQueue holds the messages of a stage's streams until the stage's
// worker takes them, stream by stream in turn.
type fairQueue struct {
	mu        sync.Mutex
	cond      *sync.Cond // signalled when a stream becomes ready, room is made, or the queue closes
	streams   map[string]*fairStream
	ready     []string // streams with messages waiting and no turn running, in turn order
	bytes     int      // cost of every message queued
	maxStream int      // cost one stream may have queued (push refuses beyond it)
	maxTotal  int      // cost all streams may have queued (push waits beyond it)
	closed    bool
}

// fairStream is one stream's queue.
type fairStream struct {
	items   []work
	bytes   int
	deficit int  // bytes its turns have allowed and not yet used
	running bool // a worker is serving its turn
}

func newFairQueue(maxStream, maxTotal int) *fairQueue {
	q := &fairQueue{streams: map[string]*fairStream{}, maxStream: maxStream, maxTotal: maxTotal}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// itemCost is what an item holds queued: its payload, and its read-out
// when no item queued before it shares that.
func itemCost(w work) int {
	c := max(len(w.m.Data), minItemCost)
	if w.paysReadOut {
		c += len(w.readOut)
	}
	return c
}

// sameArray reports whether two read-outs are one copy.
func sameArray(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// push files w under stream. It reports false, leaving w out, when the
// stream's queue would pass maxStream, unless force is set (a stream's
// closing message, which must reach the stage); a replayed message waits
// for room instead. While the queue as a whole
// is over maxTotal it waits for room, so the backlog stays in the NATS
// client, whose pending limits then apply; it reports false once the
// queue is closed.
//
// A read-out equal to that of the stream's last queued item is shared with
// it, and counted once.
func (q *fairQueue) push(stream string, w work, force bool) bool {
	w.paysReadOut = w.readOut != nil
	cost := itemCost(w)
	q.mu.Lock()
	defer q.mu.Unlock()
	for !force && !q.closed && (q.bytes > 0 && q.bytes+cost > q.maxTotal || w.replayed && q.overStream(stream, cost)) {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	st := q.streams[stream]
	if st == nil {
		st = &fairStream{}
		q.streams[stream] = st
	}
	if force && w.refuse != "" && len(st.items) > 0 && st.items[len(st.items)-1].refuse != "" {
		return true // one closing item a stream is enough
	}
	// Decided after any wait: the item it would share with may have been
	// taken meanwhile.
	if n := len(st.items); w.readOut != nil && n > 0 && bytes.Equal(st.items[n-1].readOut, w.readOut) {
		w.readOut, w.paysReadOut = st.items[n-1].readOut, false
		cost = itemCost(w)
	}
	if !force && st.bytes+cost > q.maxStream {
		if len(st.items) == 0 && !st.running {
			delete(q.streams, stream)
		}
		return false
	}
	st.items = append(st.items, w)
	st.bytes += cost
	q.bytes += cost
	if len(st.items) == 1 && !st.running {
		q.ready = append(q.ready, stream)
		q.cond.Broadcast()
	}
	return true
}

// overStream reports, with q.mu held, whether cost more would take
// stream's queue, which holds something, over maxStream.
func (q *fairQueue) overStream(stream string, cost int) bool {
	st := q.streams[stream]
	return st != nil && st.bytes > 0 && st.bytes+cost > q.maxStream
}

// busy reports whether stream has messages queued or a turn running: a
// stream whose messages wait here is not idle, however long they wait.
func (q *fairQueue) busy(stream string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.streams[stream] != nil
}

// empty reports whether nothing is queued or being served.
func (q *fairQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.streams) == 0
}

// close wakes every waiter; later pushes are refused, and turn and batch
// report false (what is still queued is dropped: Close waits for the
// queues to empty first, up to its deadline).
func (q *fairQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// turn waits for the next stream in turn and returns the messages its turn
// allows, in order (possibly none, when its next message is bigger than
// its deficit so far); the worker calls done when it has handled them. It
// reports false once the queue is closed.
func (q *fairQueue) turn() (string, []work, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && len(q.ready) == 0 {
		q.cond.Wait()
	}
	if q.closed {
		return "", nil, false
	}
	stream := q.ready[0]
	q.ready[0] = ""
	q.ready = q.ready[1:]
	st := q.streams[stream]
	st.running = true
	st.deficit += fairQuantum
	return stream, q.takeAllowed(st, -1), true
}

// takeAllowed removes from st the messages at its head that its deficit
// covers, up to limit of them (no limit when negative).
func (q *fairQueue) takeAllowed(st *fairStream, limit int) []work {
	n, used := 0, 0
	for n < len(st.items) && n != limit {
		c := itemCost(st.items[n])
		if used+c > st.deficit {
			break
		}
		used += c
		n++
	}
	taken := make([]work, n)
	copy(taken, st.items)
	clear(st.items[:n])
	st.items = st.items[n:]
	st.deficit -= used
	released := used
	if n > 0 && len(st.items) > 0 {
		// The read-out the last item taken shares with the next one stays
		// queued with it: the next one now pays for it (the first of the
		// items sharing it, which paid, was taken).
		if head := &st.items[0]; !head.paysReadOut && sameArray(head.readOut, taken[n-1].readOut) {
			head.paysReadOut = true
			released -= len(head.readOut)
		}
	}
	st.bytes -= released
	q.bytes -= released
	if n > 0 {
		q.cond.Broadcast() // room for a push waiting on maxTotal
	}
	return taken
}

// done ends stream's turn: with messages left it goes to the back of the
// line, otherwise it is forgotten.
func (q *fairQueue) done(stream string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.streams[stream]
	st.running = false
	q.settle(stream, st)
}

// settle puts a stream whose turn ended back in line, or forgets it.
func (q *fairQueue) settle(stream string, st *fairStream) {
	if len(st.items) > 0 {
		q.ready = append(q.ready, stream)
		return
	}
	delete(q.streams, stream)
}

// batch waits until some stream is ready and returns up to limit messages
// taken in turns: each stream in line gets a turn (fairQuantum more bytes),
// then the next, around again while the batch has room and messages wait.
// It is for a stateless stage, whose one worker takes a whole batch at
// once; it reports false once the queue is closed.
func (q *fairQueue) batch(limit int) ([]work, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && len(q.ready) == 0 {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	var out []work
	for len(out) < limit && len(q.ready) > 0 {
		// One pass over the streams in line now; each goes back in line
		// (settle) if it still has messages.
		for n := len(q.ready); n > 0 && len(out) < limit; n-- {
			stream := q.ready[0]
			q.ready[0] = ""
			q.ready = q.ready[1:]
			st := q.streams[stream]
			st.deficit += fairQuantum
			out = append(out, q.takeAllowed(st, limit-len(out))...)
			if len(st.items) == 0 {
				st.deficit = 0
			}
			q.settle(stream, st)
		}
	}
	return out, true
}
