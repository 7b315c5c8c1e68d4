package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// One address has at most tagsPerHost images at the tagger: the page's
// users share one NATS connection, so this is the only share one of them
// has. Another address is unaffected, and a share comes back when its
// image is answered.
func TestAnAddressHasItsShareOfTheTagger(t *testing.T) {
	hs, _, _ := page(t)
	s := hs.Config.Handler.(*Server)
	img := pngOf(t, toymodels.Bars(0, 0), 8)
	post := func() (int, string, http.Header) {
		r, err := http.Post(hs.URL+"/api/tag", "image/png", bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b), r.Header
	}
	// The test's client is 127.0.0.1; its other images are "at the tagger".
	var releases []func()
	for range tagsPerHost {
		release, ok := s.tags.take("127.0.0.1:40000")
		if !ok {
			t.Fatal("a share refused before the address had them all")
		}
		releases = append(releases, release)
	}
	code, body, h := post()
	if code != http.StatusTooManyRequests || h.Get("Retry-After") != "1" || !strings.Contains(body, "2 images being tagged") {
		t.Fatalf("an address with every share posted: %d %q (Retry-After %q)", code, body, h.Get("Retry-After"))
	}
	other, ok := s.tags.take("10.0.0.9:1")
	if !ok {
		t.Fatal("another address refused")
	}
	other()
	releases[0]()
	code, body, _ = post()
	var m streaming.TagsMessage
	if code != http.StatusOK || json.Unmarshal([]byte(body), &m) != nil || len(m.Tags) == 0 {
		t.Fatalf("after a share came back: %d %q", code, body)
	}
	releases[1]()
	if n := len(s.tags.byHost); n != 0 {
		t.Fatalf("%d addresses remembered with nothing at the tagger", n)
	}
}
