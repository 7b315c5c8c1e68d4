package streaming

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// gather sends a request on subject and returns every reply that comes
// within wait: discovery subjects are answered by every service instance.
func gather(t *testing.T, nc *nats.Conn, subject string, wait time.Duration) []*nats.Msg {
	t.Helper()
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest(subject, inbox, nil); err != nil {
		t.Fatal(err)
	}
	var out []*nats.Msg
	deadline := time.Now().Add(wait)
	for {
		m, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			return out
		}
		out = append(out, m)
	}
}

// controlSubject is micro.ControlSubject, which fails only for verbs
// outside PING, INFO and STATS.
func controlSubject(t *testing.T, verb micro.Verb, name, id string) string {
	t.Helper()
	s, err := micro.ControlSubject(verb, name, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request sends one request and decodes its JSON reply into v.
func request(t *testing.T, nc *nats.Conn, subject string, v any) {
	t.Helper()
	m, err := nc.Request(subject, nil, 5*time.Second)
	if err != nil {
		t.Fatalf("request on %s: %v", subject, err)
	}
	if err := json.Unmarshal(m.Data, v); err != nil {
		t.Fatalf("reply on %s: %v (%q)", subject, err, m.Data)
	}
}

// Every stage answers micro discovery with its name, version, pipeline,
// the subjects it takes (as endpoints, with the queue group of the
// stateless ones) and counters that agree with what was sent.
func TestStagesAnswerMicroDiscovery(t *testing.T) {
	_, nc, st := pipeline(t, false)

	pings := gather(t, nc, controlSubject(t, micro.PingVerb, "", ""), 500*time.Millisecond)
	ids := map[string]string{}
	for _, m := range pings {
		var p micro.Ping
		if err := json.Unmarshal(m.Data, &p); err != nil {
			t.Fatal(err)
		}
		if p.Type != micro.PingResponseType || p.Version != DefaultServiceVersion || p.Metadata["pipeline"] != "toy" || p.ID == "" {
			t.Fatalf("ping reply %+v", p)
		}
		ids[p.Name] = p.ID
	}
	var names []string
	for n := range ids {
		names = append(names, n)
	}
	sort.Strings(names)
	want := []string{ServiceName(StageDecoder), ServiceName(StageFeatures), ServiceName(StageFrontend), ServiceName(StageTagger)}
	if len(pings) != 4 || !slices.Equal(names, want) {
		t.Fatalf("$SRV.PING answered by %v (%d replies), want %v", names, len(pings), want)
	}

	// INFO: each stage's endpoints are the subjects it subscribes to.
	wantEndpoints := map[string][]string{
		StageFrontend: {"forget rfs.v1.toy.forget.* ", "pcm rfs.v1.toy.pcm.* ", "voice rfs.v1.toy.voice.*.* "},
		StageFeatures: {"vector rfs.v1.toy.vector.> rfs-features"},
		StageDecoder:  {"scores rfs.v1.toy.scores.> "},
		StageTagger:   {"image rfs.v1.toy.image.> rfs-tagger", "tag rfs.v1.toy.tag rfs-tagger", "tag-client rfs.v1.toy.tag.* rfs-tagger"},
	}
	for stage, wantEP := range wantEndpoints {
		var info micro.Info
		// The instance's own subject, by the ID its ping gave.
		request(t, nc, controlSubject(t, micro.InfoVerb, ServiceName(stage), ids[ServiceName(stage)]), &info)
		var got []string
		for _, e := range info.Endpoints {
			got = append(got, e.Name+" "+e.Subject+" "+e.QueueGroup)
		}
		sort.Strings(got)
		if info.Type != micro.InfoResponseType || info.Description == "" || !slices.Equal(got, wantEP) {
			t.Fatalf("%s: info %+v, endpoints %q, want %q", stage, info, got, wantEP)
		}
	}

	// STATS after a stream and some images: micro's request counts are
	// the messages each endpoint took, and the stages' own counters ride
	// along as data.
	a := &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}
	streamAll(t, nc, "counted", a, StreamOptions{ChunkMs: 100, Encoding: EncF32})
	audioMessages := st.Stats().Messages
	raw, _ := barImages(t, 5)
	for _, b := range raw {
		m := nats.NewMsg(TagSubject("toy"))
		m.Data = b
		m.Header.Set(HdrEncoding, EncU8)
		if _, err := nc.RequestMsg(m, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nc.Request(TagSubject("toy"), []byte("not an image"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	var front, tagger micro.Stats
	request(t, nc, controlSubject(t, micro.StatsVerb, ServiceName(StageFrontend), ""), &front)
	request(t, nc, controlSubject(t, micro.StatsVerb, ServiceName(StageTagger), ""), &tagger)
	byName := func(s micro.Stats, name string) *micro.EndpointStats {
		for _, e := range s.Endpoints {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no endpoint %s in %+v", name, s)
		return nil
	}
	if pcm := byName(front, KindPCM); int64(pcm.NumRequests) != audioMessages || pcm.ProcessingTime <= 0 {
		t.Fatalf("frontend pcm endpoint: %+v, want %d requests (the stages' message count) and a processing time", pcm, audioMessages)
	}
	tag := byName(tagger, KindTag)
	// The failed image is answered by a worker, after the handler: micro
	// does not count it, the stages' errors do.
	if tag.NumRequests != 6 || tag.ProcessingTime <= 0 {
		t.Fatalf("tagger tag endpoint: %+v, want 6 requests", tag)
	}
	var data ServiceStats
	if err := json.Unmarshal(tag.Data, &data); err != nil {
		t.Fatal(err)
	}
	if s := st.Stats(); data.Messages != s.Messages || data.Messages != audioMessages+6 || data.Errors != s.Errors || data.Errors < 1 {
		t.Fatalf("stats data %+v, stages' counters %+v, want %d messages", data, s, audioMessages+6)
	}
}

// Each instance of a stage is its own service instance: two feature
// workers in a queue group answer PING under one name with two IDs.
func TestEveryStageInstanceIsDiscovered(t *testing.T) {
	words, _ := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	for range 2 {
		nc, err := srv.Connect("features")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		st, err := Start(nc, Pipeline{Name: "toy", Words: words, Version: "1.2.3"}, StageFeatures)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
	}
	client, err := srv.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ids := map[string]bool{}
	for _, m := range gather(t, client, controlSubject(t, micro.PingVerb, ServiceName(StageFeatures), ""), 500*time.Millisecond) {
		var p micro.Ping
		if err := json.Unmarshal(m.Data, &p); err != nil || p.Version != "1.2.3" {
			t.Fatalf("ping %q: %v", m.Data, err)
		}
		ids[p.ID] = true
	}
	if len(ids) != 2 {
		t.Fatalf("%d feature workers answered, want 2", len(ids))
	}
	if got := gather(t, client, controlSubject(t, micro.PingVerb, ServiceName(StageTagger), ""), 200*time.Millisecond); len(got) != 0 {
		t.Fatalf("a tagger answered where none runs: %q", got[0].Data)
	}
}

// pngOf encodes 8-bit grey pixels as a PNG.
func pngOf(t *testing.T, px []byte, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	copy(img.Pix, px)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tagRequest sends one image to the tag subject and decodes the reply.
func tagRequest(t *testing.T, nc *nats.Conn, pipeline string, data []byte, hdr map[string]string) (TagsMessage, *nats.Msg) {
	t.Helper()
	return tagRequestOn(t, nc, TagSubject(pipeline), data, hdr)
}

// tagRequestOn is tagRequest on a subject of its own (ClientTagSubject).
func tagRequestOn(t *testing.T, nc *nats.Conn, subject string, data []byte, hdr map[string]string) (TagsMessage, *nats.Msg) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = data
	for k, v := range hdr {
		m.Header.Set(k, v)
	}
	reply, err := nc.RequestMsg(m, 5*time.Second)
	if err != nil {
		t.Fatalf("tag request: %v", err)
	}
	var r TagsMessage
	if err := json.Unmarshal(reply.Data, &r); err != nil {
		t.Fatalf("tag reply %q: %v", reply.Data, err)
	}
	return r, reply
}

// checkTagRequests asks for the tags of PNG and raw bar images by
// request-reply and compares them with the tagger in process; a damaged
// image gets an error reply with micro's error headers.
func checkTagRequests(t *testing.T, nc *nats.Conn, pipeline string) {
	t.Helper()
	_, tagger := toys(t)
	raw, _ := barImages(t, 4)
	for i, px := range raw {
		file := pngOf(t, px, 8, 8)
		want, err := tagger.TagImage(file, 2)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := tagRequest(t, nc, pipeline, file, nil)
		if got.Error != "" || got.Seq != 0 || !sameTags(got.Tags, want) {
			t.Fatalf("PNG %d by request: %+v, in process %+v", i, got, want)
		}
		if wantLabel := []string{"horizontal", "vertical"}[i%2]; got.Tags[0].Label != wantLabel {
			t.Fatalf("PNG %d tagged %q, want %q", i, got.Tags[0].Label, wantLabel)
		}
		got, _ = tagRequest(t, nc, pipeline, px, map[string]string{HdrEncoding: EncU8, HdrSeq: strconv.Itoa(40 + i)})
		if got.Error != "" || got.Seq != 40+i || !sameTags(got.Tags, want) {
			t.Fatalf("raw image %d by request: %+v, want seq %d and %+v", i, got, 40+i, want)
		}
	}
	for _, c := range []struct {
		data []byte
		hdr  map[string]string
	}{
		{[]byte("\x89PNG but not really"), nil},
		{raw[0][:10], map[string]string{HdrEncoding: EncU8}},
		{raw[0], map[string]string{HdrEncoding: EncU8, HdrSeq: "minus one"}},
		{make([]byte, MaxImageBytes+1), nil},
	} {
		got, m := tagRequest(t, nc, pipeline, c.data, c.hdr)
		if got.Error == "" || len(got.Tags) != 0 || m.Header.Get(micro.ErrorCodeHeader) != "400" || m.Header.Get(micro.ErrorHeader) != got.Error {
			t.Fatalf("bad image %q…: reply %+v, headers %v", c.data[:min(len(c.data), 12)], got, m.Header)
		}
	}
}

// One image in, its tags out, on one subject and without Rfs-Seq: what
// `nats req rfs.v1.<pipeline>.tag --file x.png` sends.
func TestTagByRequestReply(t *testing.T) {
	_, nc, _ := pipeline(t, false)
	checkTagRequests(t, nc, "toy")
}

// A durable pipeline does not store the tag subject: JetStream would
// otherwise answer the request first, with its own acknowledgement.
func TestTagByRequestReplyInADurablePipeline(t *testing.T) {
	_, images := toys(t)
	srv, err := StartEmbedded(EmbeddedOptions{JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("all")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	st, err := Start(nc, Pipeline{Name: "dur", Images: images, TopK: 2, Durable: true}, StageTagger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	checkTagRequests(t, nc, "dur")
	// The image streams still go through the store.
	raw, want := barImages(t, 3)
	got, err := TagImages(t.Context(), nc, "dur", "stored", raw, true, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !sameTags(got[i].Tags, want[i]) {
			t.Fatalf("stored image %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
