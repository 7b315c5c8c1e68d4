package web

import (
	"net"
	"sync"
)

// tagsPerHost is how many of one address's images the page has at the
// tagger at once. The page sends every user's images on its one NATS
// connection, so the tagger's fair queue (one share per client) sees all
// page users as one client; without a share per address here, one user's
// forty slow images stand before everyone else's. Two lets a user's next
// image wait at the tagger while the last one is decoded.
const tagsPerHost = 2

// shares counts each address's requests being served, up to per an
// address (the tagger's images, the recordings being heard). An address
// with none is forgotten, so the map holds no more entries than the
// requests the HTTP server is serving.
type shares struct {
	per    int
	mu     sync.Mutex
	byHost map[string]int
}

func newShares(per int) *shares { return &shares{per: per, byHost: map[string]int{}} }

// take claims one of remote's shares; ok is false when it has them all.
// release gives the share back and must be called once after ok.
func (t *shares) take(remote string) (release func(), ok bool) {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byHost[host] >= t.per {
		return nil, false
	}
	t.byHost[host]++
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.byHost[host]--; t.byHost[host] <= 0 {
			delete(t.byHost, host)
		}
	}, true
}
