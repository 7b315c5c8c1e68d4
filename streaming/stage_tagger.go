package streaming

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// The tagger stage answers each image message with its top-k tags (a
// TagsMessage) on the stream's tags subject. It keeps no state per stream,
// so any number of processes share its work in the QueueTagger group;
// tagLoop overlaps the decoding, tagging and answering of batches, and
// tagsjson.go writes the replies. It also answers requests on TagSubject
// (onTagRequest), one image each, for clients such as `nats req`.

// MaxImageBytes bounds one image message.
const MaxImageBytes = 768 << 10

// EncU8 marks an image payload of raw 8-bit grey pixels at the model's
// size, row-major; any other payload is an encoded image (PNG, JPEG, GIF,
// PGM).
const EncU8 = "u8"

// TagsMessage is the JSON payload of a tags subject.
type TagsMessage struct {
	Seq  int          `json:"seq"`
	Tags []engine.Tag `json:"tags,omitempty"`
	// Familiarity and OutOfDomain are the model's out-of-domain verdict,
	// when it has a rule (engine.ImageResult).
	Familiarity float64 `json:"familiarity,omitempty"`
	OutOfDomain bool    `json:"out_of_domain,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// TaggerBatch is the most images the tagger stage of p tags in one GEMM.
func TaggerBatch(p Pipeline) int {
	p.defaults()
	return 8 * p.Batch
}

// taggerStage is the tagger stage: the channel its batching worker takes
// image messages from (nil until the stage starts).
type taggerStage struct {
	*core
	imageCh chan work
	// requests holds tag requests by client until a worker takes them
	// (serveRequests), nil until the stage starts.
	requests *fairQueue
}

// Tag requests are answered by as many workers as the process has cores,
// each serving one client's requests at a time, clients in turn (by the
// bytes of their requests: fair.go): one client's image bombs, each
// costing up to a second to decode, delay only that client's other
// images. Before, requests were answered one at a time in arrival order,
// and 150 small PNGs decoding to 2048 × 2048 × 16-bit RGBA held a good
// image's tag 27 s. A client is a confined client's own subject, else the
// connection its reply inbox belongs to (requestClient).
const (
	maxClientTagQueue = 16 << 20 // a client's requests waiting
	maxTagQueue       = 64 << 20 // everyone's
)

// start subscribes the tagger to image streams, from a core queue group or
// from the durable consumer of the same name in a durable pipeline, and to
// requests on TagSubject, and starts its worker.
func (s *taggerStage) start(svc micro.Service) error {
	s.imageCh = make(chan work, 4096)
	deliver := func(w work) { s.imageCh <- w }
	var err error
	if s.p.Durable {
		err = s.consumeDurable(QueueTagger, KindImage, deliver)
	} else {
		err = s.endpoint(svc, KindImage, Wildcard(s.p.Name, KindImage), QueueTagger, func(m *nats.Msg) { deliver(work{m: m}) })
	}
	s.requests = newFairQueue(maxClientTagQueue, maxTagQueue)
	for range runtime.GOMAXPROCS(0) {
		s.wg.Add(1)
		go s.serveRequests()
	}
	if err == nil {
		err = s.requestEndpoint(svc, KindTag, TagSubject(s.p.Name), QueueTagger, micro.HandlerFunc(s.onTagRequest))
	}
	if err == nil {
		// Confined clients ask on a subject that names them (replies.go).
		err = s.requestEndpoint(svc, KindTag+"-client", ClientTagSubject(s.p.Name, "*"), QueueTagger, micro.HandlerFunc(s.onTagRequest))
	}
	// Images have no real-time deadline: a backlog is tagged in GEMMs of up
	// to 8 batches, which is where throughput comes from.
	s.tagLoop(s.imageCh, TaggerBatch(s.p))
	return err
}

// imageBatch is one batch of image messages on its way through the tagger
// stage: decoded, then tagged, then answered.
type imageBatch struct {
	work    []work
	replies []TagsMessage
	x       blas32.General // the decoded images, one row each of ok
	ok      []int          // the indices into work of the rows of x
}

// tagLoop runs the tagger stage as three goroutines joined by channels:
// one gathers a batch and decodes it, one tags it with one GEMM, one
// publishes the replies. While a batch is in its GEMM the next is decoded
// and the one before is answered, so the stage's own work per image (about
// a seventh of the GEMM's time at MNIST's size) no longer adds to it.
// Batches keep their order, and every batch taken from ch is answered
// before the stage's goroutines end.
func (s *taggerStage) tagLoop(ch chan work, limit int) {
	decoded := make(chan *imageBatch, 1)
	tagged := make(chan *imageBatch, 1)
	s.wg.Add(3)
	go func() {
		defer s.wg.Done()
		defer close(decoded)
		for {
			select {
			case <-s.stop:
				return
			case m := <-ch:
				batch := fill(append(make([]work, 0, limit), m), ch, limit)
				s.stats.batches.Add(1)
				decoded <- s.decodeImages(batch)
			}
		}
	}()
	go func() {
		defer s.wg.Done()
		defer close(tagged)
		for b := range decoded {
			s.tagImages(b)
			tagged <- b
		}
	}()
	go func() {
		defer s.wg.Done()
		for b := range tagged {
			s.answerImages(b)
		}
	}()
}

// decodeImages checks and decodes a batch; a message that cannot be tagged
// gets its error reply here.
func (s *taggerStage) decodeImages(batch []work) *imageBatch {
	t := s.p.Images
	b := &imageBatch{work: batch, replies: make([]TagsMessage, len(batch)), x: linalg.NewGeneral32(len(batch), t.Map.InDim())}
	for i, w := range batch {
		m := w.m
		seq, err := headerSeq(m)
		b.replies[i].Seq = seq
		if err != nil {
			b.replies[i].Error = err.Error()
			continue
		}
		if len(m.Data) > MaxImageBytes {
			b.replies[i].Error = fmt.Sprintf("image of %d bytes exceeds the %d-byte limit", len(m.Data), MaxImageBytes)
			continue
		}
		if err := decodeImageInto(linalg.Row32(b.x, len(b.ok)), m, t.Input.Height, t.Input.Width); err != nil {
			b.replies[i].Error = err.Error()
			continue
		}
		b.ok = append(b.ok, i)
	}
	return b
}

// onTagRequest queues a request on TagSubject for the workers
// (serveRequests): the payload is one image as on an image stream
// (Rfs-Encoding u8 for raw pixels), Rfs-Seq is optional and only echoed,
// and the reply is the image's TagsMessage. A client with too much queued
// is answered at once with an error (503).
func (s *taggerStage) onTagRequest(r micro.Request) {
	m := requestMsg(r)
	s.stats.messages.Add(1)
	if checkReply(s.p.Name, m.Subject, m.Reply) != nil {
		// Not tagged either: the work would be for nobody, and the asker,
		// who named another's inbox, cannot be told; $SRV.STATS counts it.
		s.stats.errors.Add(1)
		return
	}
	if !s.requests.push(s.requestClient(m), work{m: m, size: len(m.Data)}, false) {
		s.stats.errors.Add(1)
		reply := TagsMessage{Error: fmt.Sprintf("over %d MiB of this client's tag requests are waiting: ask again once they are answered", maxClientTagQueue>>20)}
		data, _ := appendTagsJSON(nil, reply)
		r.Error("503", reply.Error, data)
	}
}

// serveRequests is one tag request worker: it takes the next client's
// turn of requests and answers them, until the queue closes.
func (s *taggerStage) serveRequests() {
	defer s.wg.Done()
	for {
		client, items, ok := s.requests.turn()
		if !ok {
			return
		}
		for _, w := range items {
			s.answerRequest(w.m)
		}
		s.requests.done(client)
	}
}

// answerRequest tags a request's image alone and answers it: a
// request-reply client waits for its answer, and a batch would make it
// wait for others. A failed image's answer carries micro's error headers,
// as micro.Request.Error would set them. It answers on the stage's
// connection, not through the micro.Request: the worker runs after micro's
// handler has returned, and micro then reads the request's state without a
// lock (a data race the race detector found), so the endpoint's
// $SRV.STATS counts the requests but not these errors; the stage's own
// Stats do.
func (s *taggerStage) answerRequest(m *nats.Msg) {
	reply, code := s.tagOne(m)
	data, err := appendTagsJSON(nil, reply)
	if err != nil {
		reply, code = TagsMessage{Seq: reply.Seq, Error: err.Error()}, "500"
		data, _ = appendTagsJSON(nil, reply)
	}
	answer := &nats.Msg{Subject: m.Reply, Data: data}
	if reply.Error != "" {
		s.stats.errors.Add(1)
		answer.Header = nats.Header{micro.ErrorHeader: []string{reply.Error}, micro.ErrorCodeHeader: []string{code}}
	}
	// The service's own connection, as micro would answer on it. A client
	// gone before its answer is not the stage's fault.
	_ = s.nc.PublishMsg(answer)
}

// requestClient names the client a tag request comes from: a confined
// client's subject names it (ClientTagSubject); otherwise its reply
// subject without the last token, which for NATS clients' inboxes
// (_INBOX.<connection's id>.<request>) is the connection.
func (s *taggerStage) requestClient(m *nats.Msg) string {
	if m.Subject != TagSubject(s.p.Name) {
		return m.Subject
	}
	if i := strings.LastIndexByte(m.Reply, '.'); i > 0 {
		return m.Reply[:i]
	}
	return m.Reply
}

// tagOne tags the image of one request as a batch of one, through the
// same checks and tagging as an image stream's; code is the micro error
// code of a failure: 400 for the request's fault, 500 for the stage's.
func (s *taggerStage) tagOne(m *nats.Msg) (reply TagsMessage, code string) {
	if m.Header.Get(HdrSeq) == "" {
		m.Header.Set(HdrSeq, "0") // optional on a request, its own stream of one
	}
	b := s.decodeImages([]work{{m: m}})
	if len(b.ok) == 0 {
		return b.replies[0], "400"
	}
	s.tagImages(b)
	if b.replies[0].Error != "" {
		return b.replies[0], "500"
	}
	return b.replies[0], ""
}

// decodeImageInto writes the pixels of an image message, scaled to [0, 1],
// into dst, which holds h·w values.
func decodeImageInto(dst []float32, m *nats.Msg, h, w int) error {
	if m.Header.Get(HdrEncoding) == EncU8 {
		if len(m.Data) != h*w {
			return fmt.Errorf("raw image of %d bytes, the model takes %dx%d", len(m.Data), h, w)
		}
		for i, b := range m.Data {
			dst[i] = float32(b) / 255
		}
		return nil
	}
	px, err := frontend.DecodeImage(m.Data, h, w)
	if err != nil {
		return err
	}
	copy(dst, px)
	return nil
}

// tagImages tags a decoded batch, from any streams, with one GEMM.
func (s *taggerStage) tagImages(b *imageBatch) {
	if len(b.ok) == 0 {
		return
	}
	res, err := s.p.Images.Classify(linalg.Rows32(b.x, 0, len(b.ok)), s.p.TopK)
	for j, i := range b.ok {
		if err != nil {
			b.replies[i].Error = err.Error()
		} else {
			r := &b.replies[i]
			r.Tags, r.Familiarity, r.OutOfDomain = res[j].Tags, res[j].Familiarity, res[j].OutOfDomain
		}
	}
}

// answerImages publishes a tagged batch's replies, each on its stream's
// tags subject, and then acknowledges its messages.
func (s *taggerStage) answerImages(b *imageBatch) {
	s.stats.messages.Add(int64(len(b.work)))
	if s.p.hold != nil {
		s.p.hold()
	}
	for i, w := range b.work {
		r := b.replies[i]
		data, err := appendTagsJSON(nil, r)
		if err != nil {
			r = TagsMessage{Seq: r.Seq, Error: err.Error()}
			data, _ = appendTagsJSON(nil, r)
		}
		if r.Error != "" {
			s.stats.errors.Add(1)
		}
		out := nats.NewMsg(Subject(s.p.Name, KindTags, StreamOf(w.m.Subject)))
		out.Data = data
		out.Header.Set(HdrSeq, strconv.Itoa(r.Seq))
		s.nc.PublishMsg(out)
	}
	ackAll(b.work)
}
