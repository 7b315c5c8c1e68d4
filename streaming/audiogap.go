package streaming

import (
	"fmt"
	"math"
	"strconv"

	"github.com/nats-io/nats.go"
)

// Audio that never reached the frontend: PCM messages the reorder window
// gave up on, or, for a frontend started again mid-stream, every message
// before the first it got. The frontend keeps the stream's clock
// (frontStream.pos) running over the missing stretch, so the words after
// it keep the times they have in the stream, drops a word whose audio
// straddles the stretch (sending its span as a gap marker instead), and
// sends the decoder a gap marker for the stretch, which the stream's
// end-of-stream result then lists as a gap (frontendStage.skipAudio and
// placeSegment, stage_frontend.go). Before, the words after a lost stretch
// came earlier by its length, and a restarted frontend counted times from
// the first message it got.

// maxOffset bounds HdrOffset: 2⁴⁸ samples are more than a century of
// 48 kHz audio.
const maxOffset = 1 << 48

// audioCut is where a stretch of missing audio lies in the segmenter's
// time (which counts only the samples that arrived): at seconds into it,
// and the shift, in seconds, that takes a segmenter time from there on to
// the stream's.
type audioCut struct {
	at, shift float64
}

// cutsKept is how long, in segmenter seconds, a cut is kept once a later
// one exists: longer than a word (MaxWordMs) with its padding and the
// segmenter's lookahead, the oldest a segment still to come may start.
const cutsKept = 30

// headerOffset reads HdrOffset, or -1 without it.
func headerOffset(m *nats.Msg) (int64, error) {
	h := m.Header.Get(HdrOffset)
	if h == "" {
		return -1, nil
	}
	v, err := strconv.ParseInt(h, 10, 64)
	if err != nil || v < 0 || v > maxOffset {
		return -1, fmt.Errorf("%s header %s is not a sample index from 0 to %d; message dropped", HdrOffset, clipQuote(h), int64(maxOffset))
	}
	return v, nil
}

// missing returns how many samples of the stream lie between the audio
// handled so far and a message of n samples at offset (-1: unknown): by
// the offset when there is one, else the messages skipped times the
// length of a message (the last one handled, or this one for a stream
// taken up mid-way).
func (st *frontStream) missing(offset int64, n int) int64 {
	switch {
	case offset >= 0:
		return offset - st.pos // an overlap (negative) is not a gap
	case st.lostMsgs > 0:
		chunk := st.chunk
		if chunk == 0 {
			chunk = n
		}
		return int64(st.lostMsgs) * int64(chunk)
	}
	return 0
}

// streamTime turns a time of the segmenter into the stream's.
func (st *frontStream) streamTime(t float64) float64 {
	shift := 0.0
	for _, c := range st.cuts {
		if t >= c.at {
			shift = c.shift
		}
	}
	if shift == 0 {
		return t
	}
	// To the microsecond, so that a time the stream's own clock would give
	// (frames × hop) comes out as the same float64, not 1 ulp off.
	return math.Round((t+shift)*1e6) / 1e6
}
