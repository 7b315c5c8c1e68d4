package streaming

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// A stateful stage (frontend, decoder) keeps each stream's state in
// memory. In a durable pipeline its input stays stored, so a stage started
// again after its predecessor died takes the streams still open up from
// their first stored message: it rebuilds the state its predecessor held
// from the same messages, in the same order, and numbers its output as the
// predecessor did (part 0, segments from 0), so what it publishes again is
// dropped downstream as copies (by Rfs-Seq) and what the predecessor never
// published follows. A stream is still open if its input is stored and no
// end-of-stream result is: the last message on its result subject is
// neither the end-of-stream result nor an answer to a message after the
// end (HdrEnded).

// maxResumedSubjects bounds the stored subjects a starting stage looks
// at (one or two requests each to the server); a store holding more is not
// resumed from at all, its stages starting at the store's next message.
const maxResumedSubjects = 4096

// resumePoint is where a stateful stage starts reading its input subject
// from the store, and which of the messages stored before it started
// (sequence ≤ last) it takes.
type resumePoint struct {
	from, last uint64
	open       map[string]bool // streams taken up from the store
}

// takes reports whether the stage handles the message at store sequence
// seq of stream: every message stored after its start, and an open
// stream's earlier ones.
func (r resumePoint) takes(seq uint64, stream string) bool {
	return seq > r.last || r.open[stream]
}

// resumeFrom finds the resume point of the stage reading filter (whose
// subjects' streams are StreamOf them) in the store of pipeline; owns says
// which streams are the stage's (its shard's).
func resumeFrom(ctx context.Context, store jetstream.Stream, pipeline, filter string, owns func(string) bool) (resumePoint, error) {
	info, err := store.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return resumePoint{}, fmt.Errorf("streaming: the store's subjects %s: %w", filter, err)
	}
	r := resumePoint{from: info.State.LastSeq + 1, last: info.State.LastSeq, open: map[string]bool{}}
	if len(info.State.Subjects) > maxResumedSubjects {
		return r, nil
	}
	for subject := range info.State.Subjects {
		stream := StreamOf(subject)
		if !owns(stream) {
			continue
		}
		ended, err := hasEnded(ctx, store, pipeline, stream)
		if err != nil {
			return resumePoint{}, err
		}
		if ended {
			continue
		}
		first, err := store.GetMsg(ctx, info.State.FirstSeq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // aged out meanwhile
		}
		if err != nil {
			return resumePoint{}, fmt.Errorf("streaming: the first stored message on %s: %w", subject, err)
		}
		r.open[stream] = true
		r.from = min(r.from, first.Sequence)
	}
	return r, nil
}

// hasEnded reports whether stream's last stored result says it has ended.
func hasEnded(ctx context.Context, store jetstream.Stream, pipeline, stream string) (bool, error) {
	last, err := store.GetLastMsgForSubject(ctx, Subject(pipeline, KindResult, stream))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("streaming: the last result of stream %q: %w", stream, err)
	}
	return last.Header.Get(HdrEOS) == "1" || last.Header.Get(HdrEnded) == "1", nil
}
