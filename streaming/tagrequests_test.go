package streaming

import (
	"bytes"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// bombPNG is a PNG that compresses to a few kilobytes and decodes to 15 MB
// (1400 × 1400 16-bit RGBA, under the 16 MiB a decode may take): a tenth
// of a second or more of one core each.
func bombPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, image.NewRGBA64(image.Rect(0, 0, 1400, 1400))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// One client's image bombs delay only its own images: while a connection
// has 40 bombs waiting, another connection's good image is answered before
// most of them, by a worker of its own turn. Before, requests were
// answered one at a time in arrival order, and 150 such bombs held a good
// image's tag 27 s.
func TestOneClientsImageBombsDelayOnlyItsOwn(t *testing.T) {
	srv, good, _ := pipeline(t, false)
	bomber, err := srv.Connect("bomber")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bomber.Close)
	bombs := make(chan *nats.Msg, 64)
	inbox := bomber.NewInbox()
	sub, err := bomber.ChanSubscribe(inbox+".*", bombs)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	bomb := bombPNG(t)
	const n = 40
	for i := range n {
		if err := bomber.PublishRequest(TagSubject("toy"), inbox+"."+string(rune('a'+i%26))+string(rune('a'+i/26)), bomb); err != nil {
			t.Fatal(err)
		}
	}
	bomber.Flush()
	time.Sleep(50 * time.Millisecond) // the bombs are queued before the good image
	raw, _ := barImages(t, 1)
	m := nats.NewMsg(TagSubject("toy"))
	m.Data = raw[0]
	m.Header.Set(HdrEncoding, EncU8)
	start := time.Now()
	reply, err := good.RequestMsg(m, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	answered := len(bombs)
	if bytes.Contains(reply.Data, []byte(`"error"`)) {
		t.Fatalf("the good image: %s", reply.Data)
	}
	// Drain the bombs' answers: every one is answered (tagged or refused
	// with a reason), none lost.
	for got := answered; got < n; got++ {
		select {
		case <-bombs:
		case <-time.After(60 * time.Second):
			t.Fatalf("%d of the %d bombs answered", got, n)
		}
	}
	t.Logf("the good image was answered in %v, after %d of the bomber's %d", took.Round(time.Millisecond), answered, n)
	if answered > n/2 {
		t.Fatalf("the good image waited for %d of the bomber's %d images", answered, n)
	}
}
