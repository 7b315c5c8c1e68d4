package streaming

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/internal/linalg"
)

// The features stage maps what the frontend sends to what the decoder
// reads: word vectors to class scores (scoreVectors, with a word model),
// frames to HMM-state log-likelihoods (scoreFrames, with a connected one).
// It keeps no state per stream, so any number of processes share its work
// in the QueueFeatures group; loop (pipeline.go) hands it batches, so that
// one GEMM serves many streams, and with ShedPartials stalePartials picks
// the partial words of a batch not worth scoring.

// featuresStage is the features stage: the queue its batching worker takes
// the streams' segments from, in turn.
type featuresStage struct {
	*core
	queue  *fairQueue // the streams' segments (fair.go)
	taught taughtVoices
}

// start subscribes the features stage to what the frontend sends, from a
// core queue group or from the durable consumer of the same name in a
// durable pipeline, and starts its batching worker.
func (s *featuresStage) start(svc micro.Service) error {
	toFeatures, _ := s.p.audioKinds()
	var err error
	if s.p.Durable {
		err = s.consumeDurable(QueueFeatures, toFeatures, s.admitSegment)
	} else {
		err = s.endpoint(svc, toFeatures, Wildcard(s.p.Name, toFeatures), QueueFeatures, func(m *nats.Msg) { s.admitSegment(work{m: m}) })
	}
	// Shedding looks at the whole backlog (up to 8 batches) at once, so
	// each stream keeps at most its newest partial.
	limit := s.p.Batch
	if s.p.ShedPartials {
		limit = 8 * s.p.Batch
	}
	if s.p.Connected != nil {
		s.loop(s.queue, limit, s.scoreFrames)
	} else {
		s.loop(s.queue, limit, s.scoreVectors)
	}
	return err
}

// admitSegment is the features stage's callback (core NATS; a durable
// consumer's messages are bounded by its MaxAckPending instead). A
// segment over its stream's bound is answered at once with an error, so
// the decoder still counts it; an end-of-stream marker is always queued.
func (s *featuresStage) admitSegment(w work) {
	stream := StreamOf(w.m.Subject)
	force := w.ack != nil || headerBool(w.m, HdrEOS)
	s.splitReadOut(&w)
	if s.queue.push(stream, w, force) {
		return
	}
	s.stats.dropped.Add(1)
	_, kind := s.p.audioKinds()
	out := nats.NewMsg(Subject(s.p.Name, kind, stream))
	for k, v := range w.m.Header {
		out.Header[k] = v
	}
	out.Header.Del(HdrReadOut)
	out.Header.Set(HdrError, fmt.Sprintf("the stream has more segments queued at the features stage than the %d bytes a stream may (serve --max-stream-queue-mib); segment dropped", s.p.MaxStreamQueue))
	s.nc.PublishMsg(out)
}

// scoreVectors maps a batch of word vectors from any streams in one GEMM.
func (s *featuresStage) scoreVectors(batch []work) {
	dim := s.p.Words.Config.Dim()
	s.stats.vectors.Add(int64(len(batch)))
	stale := s.stalePartials(batch)
	var rows []int
	var vectors [][]float32
	var readOuts []*classifier.RLS
	var last lastReadOut // a stream's segments in a row share theirs (fairQueue.push)
	bad := map[int]string{}
	for i, w := range batch {
		m := w.m
		if m.Header.Get(HdrError) != "" || stale[i] || len(m.Data) == 0 {
			continue
		}
		v, r, err := s.wordMessage(w, dim, &last)
		if err != nil {
			bad[i] = err.Error()
			continue
		}
		rows, vectors, readOuts = append(rows, i), append(vectors, v), append(readOuts, r)
	}
	var scores blas32.General
	if len(rows) > 0 {
		x := linalg.NewGeneral32(len(rows), dim)
		for j, v := range vectors {
			copy(linalg.Row32(x, j), v)
		}
		scores = s.p.Words.ScoreRowsWith(x, readOuts)
	}
	if s.p.hold != nil {
		s.p.hold()
	}
	j := 0
	for i, w := range batch {
		m := w.m
		out := nats.NewMsg(Subject(s.p.Name, KindScores, StreamOf(m.Subject)))
		for k, v := range m.Header {
			out.Header[k] = v
		}
		switch {
		case stale[i]:
			out.Header.Set(HdrSkipped, "1")
		case j < len(rows) && rows[j] == i:
			out.Data = EncodeF32(linalg.Row32(scores, j))
			j++
		case bad[i] != "":
			out.Header.Set(HdrError, bad[i])
		}
		out.Header.Del(HdrReadOut)
		s.nc.PublishMsg(out)
	}
	ackAll(batch)
}

// splitReadOut moves a word segment's read-out, the values after its
// word vector, from its payload to w.readOut, the vector to a payload of
// its own, so that what the stream's queue holds of the message is the
// vector, and the read-out once for the segments that share it
// (fairQueue.push). A message of a connected model, without a read-out,
// or too short to hold one is left as it came (wordMessage says what is
// wrong with it).
func (s *featuresStage) splitReadOut(w *work) {
	if s.p.Words == nil || w.m.Header.Get(HdrReadOut) == "" {
		return
	}
	n := 4 * s.p.Words.Config.Dim()
	if len(w.m.Data) <= n {
		return
	}
	w.readOut = w.m.Data[n:]
	w.m.Data = slices.Clone(w.m.Data[:n])
}

// lastReadOut is the read-out wordMessage decoded last, and the bytes it
// came from.
type lastReadOut struct {
	raw []byte
	r   *classifier.RLS
}

// wordMessage decodes a word vector message: the vector, and the
// stream's own read-out when the frontend stage sent one (HdrReadOut).
// A read-out that is last's bytes (shared in the queue) is last's, not
// decoded again; last then holds the message's.
func (s *featuresStage) wordMessage(w work, dim int, last *lastReadOut) ([]float32, *classifier.RLS, error) {
	m := w.m
	h := m.Header.Get(HdrReadOut)
	if h == "" {
		values, err := DecodeF32(m.Data)
		if err != nil {
			return nil, nil, err
		}
		if len(values) != dim {
			return nil, nil, fmt.Errorf("word vector of %d bytes, the model takes %d values", len(m.Data), dim)
		}
		return values, nil, nil
	}
	model := s.p.Words.Model.RLS
	classes, err := strconv.Atoi(h)
	if err != nil || classes != model.Classes {
		return nil, nil, fmt.Errorf("%s header %s: the model has %d classes", HdrReadOut, clipQuote(h), model.Classes)
	}
	size := len(m.Data) + len(w.readOut)
	if size%4 != 0 {
		return nil, nil, fmt.Errorf("streaming: %d-byte float32 payload", size)
	}
	if want := dim + model.Dim*classes; size/4 != want {
		return nil, nil, fmt.Errorf("word vector with a read-out of %d values, the model takes %d", size/4, want)
	}
	vector, readOut := m.Data, w.readOut
	if readOut == nil { // not split (splitReadOut): one payload
		vector, readOut = m.Data[:4*dim], m.Data[4*dim:]
	}
	values, err := DecodeF32(vector)
	if err != nil {
		return nil, nil, err
	}
	if sameArray(readOut, last.raw) && len(readOut) == len(last.raw) {
		return values, last.r, nil
	}
	weights, err := DecodeF32(readOut)
	if err != nil {
		return nil, nil, err
	}
	for _, x := range weights {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, nil, fmt.Errorf("the stream's read-out holds %v", x)
		}
	}
	r := &classifier.RLS{Dim: model.Dim, Classes: classes, W: blas32.General{Rows: model.Dim, Cols: classes, Stride: classes, Data: weights}}
	*last = lastReadOut{raw: readOut, r: r}
	return values, r, nil
}

// scoreFrames turns each segment's frames into HMM-state log-likelihoods.
// A segment holds a whole utterance (hundreds of frames), so each is one
// GEMM of its own, and each is published as soon as it is scored: a batch
// of 64 utterances once took 40 s on a loaded two-core machine, and holding
// every stream's log-likelihoods until the last was scored kept all of them
// silent that long (past a client's 30 s wait for any result;
// experiments/journal/streaming.md). Batching only saves the channel round
// trips. A stream's segments are in order in the batch, so they are
// published in order.
func (s *featuresStage) scoreFrames(batch []work) {
	s.stats.vectors.Add(int64(len(batch)))
	stale := s.stalePartials(batch)
	for i, w := range batch {
		out := s.frameScores(w.m, stale[i])
		if i == 0 && s.p.hold != nil {
			s.p.hold()
		}
		s.nc.PublishMsg(out)
		if s.p.scored != nil {
			s.p.scored(StreamOf(w.m.Subject))
		}
	}
	ackAll(batch)
}

// frameScores is the log-likelihoods message for one segment of frames
// (or the marker, gap or error it passes on).
func (s *featuresStage) frameScores(m *nats.Msg, stale bool) *nats.Msg {
	c := s.taught.recognizer(&s.p, m.Header.Get(HdrVoice))
	dim := c.BaseDim()
	out := nats.NewMsg(Subject(s.p.Name, KindLogLik, StreamOf(m.Subject)))
	for k, v := range m.Header {
		out.Header[k] = v
	}
	switch {
	case stale:
		out.Header.Set(HdrSkipped, "1")
	case m.Header.Get(HdrError) != "" || headerBool(m, HdrEOS) || m.Header.Get(HdrGap) != "":
	case len(m.Data) == 0 || len(m.Data)%(4*dim) != 0:
		out.Header.Set(HdrError, fmt.Sprintf("frames of %d bytes, the model takes rows of %d values", len(m.Data), dim))
	default:
		v, _ := DecodeF32(m.Data)
		base := blas32.General{Rows: len(v) / dim, Cols: dim, Stride: dim, Data: v}
		ll := c.LogLikelihoods(c.Splice(base))
		if n := 4 * ll.Rows * ll.Cols; n > maxPayload(s.nc) {
			out.Header.Set(HdrError, fmt.Sprintf("log-likelihoods of %d bytes are more than the server's message limit", n))
			break
		}
		out.Data = EncodeF32(ll.Data[:ll.Rows*ll.Cols])
	}
	return out
}

// stalePartials marks, with ShedPartials, the partial words of a batch
// whose stream has a later segment or its end-of-stream marker in the same
// batch.
func (s *featuresStage) stalePartials(batch []work) map[int]bool {
	if !s.p.ShedPartials || len(batch) < 2 {
		return nil
	}
	const eos = int(^uint(0) >> 1)
	latest := map[string]int{}
	seqs := make([]int, len(batch))
	for i, w := range batch {
		seq, err := headerInt(w.m, HdrSeq, -1)
		if headerBool(w.m, HdrEOS) {
			seq = eos
		} else if err != nil {
			seq = -1
		}
		seqs[i] = seq
		if k := StreamOf(w.m.Subject); seq > latestOr(latest, k) {
			latest[k] = seq
		}
	}
	var stale map[int]bool
	for i, w := range batch {
		if seqs[i] >= 0 && seqs[i] != eos && w.m.Header.Get(HdrFinal) == "0" && w.m.Header.Get(HdrGap) == "" && latest[StreamOf(w.m.Subject)] > seqs[i] {
			if stale == nil {
				stale = map[int]bool{}
			}
			stale[i] = true
		}
	}
	s.stats.shed.Add(int64(len(stale)))
	return stale
}

func latestOr(m map[string]int, k string) int {
	if v, ok := m[k]; ok {
		return v
	}
	return -1
}
