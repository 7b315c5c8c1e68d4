package streaming

import "time"

// The frontend and the decoder remember the streams they have ended, so a
// late copy of a stream's message (a redelivery, a duplicate publish) is
// recognised and dropped, and the frontend refuses new audio under an
// ended stream's name instead of starting a second stream of that name.
// That memory is bounded twice: by age (10 idle timeouts) and by count
// (Pipeline.MaxEnded), oldest first, so a client that ends streams faster
// than they age out (one message with Rfs-Eos per fresh name is enough)
// cannot grow it without limit.

// DefaultMaxEnded is Pipeline.MaxEnded's default: at about 200 bytes an
// entry (name, map and queue), 64 Ki ended streams take some 13 MB per
// stage. At 1000 streams ending a second, an entry still lives a minute,
// far longer than the copies it is kept for take to arrive (a redelivery
// comes after the ack wait, 30 s by default).
const DefaultMaxEnded = 64 << 10

// endedStream remembers a finished stream for a while, so late duplicates
// are recognised and new audio under its name is refused.
type endedStream struct {
	at   time.Time
	next int // sequence numbers below this were handled (frontend)
}

// endedStreams is the memory of ended streams: a map for look-ups and a
// queue in the order they ended, from which the oldest are forgotten.
type endedStreams struct {
	max    int
	byName map[string]endedStream
	order  []endedName // order[head:] are the live entries' names, oldest first
	head   int
}

type endedName struct {
	name string
	at   time.Time // tells a queued name from a later entry of the same name
}

func newEndedStreams(max int) *endedStreams {
	return &endedStreams{max: max, byName: map[string]endedStream{}}
}

// get returns what is remembered of stream.
func (e *endedStreams) get(stream string) (endedStream, bool) {
	v, ok := e.byName[stream]
	return v, ok
}

// add remembers stream as ended, forgetting the oldest entries beyond max.
func (e *endedStreams) add(stream string, v endedStream) {
	e.byName[stream] = v
	e.order = append(e.order, endedName{stream, v.at})
	for len(e.byName) > e.max {
		e.popOldest()
	}
	if e.head > 1024 && e.head > len(e.order)/2 {
		// Reuse the queue's space once most of it is behind the head.
		e.order = append(e.order[:0], e.order[e.head:]...)
		e.head = 0
	}
}

// expire forgets the streams that ended before cutoff.
func (e *endedStreams) expire(cutoff time.Time) {
	for e.head < len(e.order) && e.order[e.head].at.Before(cutoff) {
		e.popOldest()
	}
}

// popOldest forgets the oldest queued stream, unless its name has been
// remembered again since (then the newer entry stays).
func (e *endedStreams) popOldest() {
	q := e.order[e.head]
	e.order[e.head] = endedName{}
	e.head++
	if v, ok := e.byName[q.name]; ok && v.at.Equal(q.at) {
		delete(e.byName, q.name)
	}
}

// len is how many ended streams are remembered.
func (e *endedStreams) len() int { return len(e.byName) }
