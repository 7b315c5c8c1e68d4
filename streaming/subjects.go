package streaming

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version is the protocol version in every subject.
const Version = "v1"

// Kinds of subject, in pipeline order for audio with a word model (pcm →
// vector → scores → result), for audio with a connected-word model (pcm →
// frames → loglik → result) and for images (image → tags).
const (
	KindPCM    = "pcm"
	KindVector = "vector"
	KindScores = "scores"
	KindFrames = "frames"
	KindLogLik = "loglik"
	KindResult = "result"
	KindImage  = "image"
	KindTags   = "tags"
	// KindVoice carries a named voice's PCM, with the voice in the subject
	// (VoiceSubject) instead of HdrVoice, so that NATS subject permissions
	// can decide which client may speak as which voice.
	KindVoice = "voice"
	// KindForget asks the frontend stage to forget the named voice in the
	// subject's last token (ForgetVoice); it answers on KindForgotten.
	KindForget    = "forget"
	KindForgotten = "forgotten"
	// KindTag is the tagger's request-reply subject, TagSubject: the only
	// kind without a stream token, and the only one a durable pipeline
	// does not store (StoredSubjects), since JetStream would answer a
	// request there with its own acknowledgement.
	KindTag = "tag"
)

// TagSubject returns rfs.v1.<pipeline>.tag, where a request carrying one
// image (as on KindImage, without Rfs-Seq) is answered with its tags (a
// TagsMessage) by one of the pipeline's taggers.
func TagSubject(pipeline string) string { return "rfs." + Version + "." + pipeline + "." + KindTag }

// StoredSubjects are the subjects a durable pipeline keeps in JetStream:
// every kind that flows between clients and stages, KindTag excepted.
func StoredSubjects(pipeline string) []string {
	kinds := []string{KindPCM, KindVoice, KindForget, KindForgotten, KindVector, KindScores, KindFrames, KindLogLik, KindResult, KindImage, KindTags}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = Wildcard(pipeline, k)
	}
	return out
}

// Header names.
const (
	HdrSeq      = "Rfs-Seq"      // message sequence number within a stream, from 0
	HdrRate     = "Rfs-Rate"     // PCM sample rate, Hz
	HdrEncoding = "Rfs-Encoding" // PCM encoding: s16le or f32le
	HdrEOS      = "Rfs-Eos"      // "1" on a stream's last message
	HdrStart    = "Rfs-Start"    // segment start, seconds
	HdrEnd      = "Rfs-End"      // segment end, seconds
	HdrFinal    = "Rfs-Final"    // "1" for a closed word, "0" for a partial
	HdrCount    = "Rfs-Count"    // on an EOS marker: how many segments came before
	HdrError    = "Rfs-Error"    // a stage's error about this segment
	HdrSkipped  = "Rfs-Skipped"  // "1" on scores of a partial word shed under load
	HdrReadOut  = "Rfs-Readout"  // on a word vector: the stream's own read-out (its class count) follows the vector
	HdrVoice    = "Rfs-Voice"    // on PCM: the voice speaking; streams that name the same voice share its session
	// HdrOffset, on PCM (optional): the index in the stream of the
	// message's first sample, at its rate. After messages that never
	// arrived, the frontend places the audio that follows by it, so word
	// times stay those of the stream; without it the missing stretch is
	// estimated as the lost messages times the length of a message.
	HdrOffset = "Rfs-Offset"
	// HdrGap marks a segment message that stands for audio that never
	// reached the frontend (its reason; Rfs-Start and Rfs-End its span):
	// the decoder reports it as a gap of the stream.
	HdrGap = "Rfs-Gap"
	// HdrPart, on the frontend's segments and end-of-stream marker: the
	// PCM sequence number from which the frontend that numbered them has
	// had the stream (0 from its start). A frontend started again takes up
	// its streams with a new part, numbering its segments from 0; the
	// decoder then gives up on what the earlier part did not deliver
	// (reported as a gap) and drops that part's late messages.
	HdrPart = "Rfs-Part"
	// HdrEnded is "1" on an error result that answers a message that came
	// after its stream's end: with the end-of-stream result, it tells a
	// restarted stage of a durable pipeline that the stream has ended
	// (resume.go).
	HdrEnded = "Rfs-Ended"
	// On an end-of-stream marker between stages: the stream's voice
	// session's progress (rfstream.VoiceProgress), for the final result.
	HdrVoiceRecordings = "Rfs-Voice-Recordings"
	HdrVoiceAdaptedOn  = "Rfs-Voice-Adapted-On"
)

// Subject returns rfs.v1.<pipeline>.<kind>.<stream>.
func Subject(pipeline, kind, stream string) string {
	return "rfs." + Version + "." + pipeline + "." + kind + "." + stream
}

// VoiceSubject returns rfs.v1.<pipeline>.voice.<voice>.<stream>, where a
// client publishes the PCM of a stream that the named voice speaks.
func VoiceSubject(pipeline, voice, stream string) string {
	return Subject(pipeline, KindVoice, voice+"."+stream)
}

// VoiceStream returns the name under which the stages know a client's
// stream: the stream's own name, or <voice>.<stream> for a stream that a
// named voice speaks (VoiceSubject). The voice's streams thus live under
// the voice in every later subject, their results included
// (ResultSubject), where NATS permissions can keep them to the voice's
// speaker, and two voices' streams of one name are two streams.
func VoiceStream(voice, stream string) string {
	if voice == "" {
		return stream
	}
	return voice + "." + stream
}

// ResultSubject returns where a stream's results go:
// rfs.v1.<pipeline>.result.<stream>, or …result.<voice>.<stream> for a
// stream the named voice speaks.
func ResultSubject(pipeline, voice, stream string) string {
	return Subject(pipeline, KindResult, VoiceStream(voice, stream))
}

// voiceOf returns the voice of a subject built by VoiceSubject, and "" for
// any other subject.
func voiceOf(pipeline, subject string) string {
	rest, ok := strings.CutPrefix(subject, Subject(pipeline, KindVoice, ""))
	if !ok {
		return ""
	}
	voice, _, _ := strings.Cut(rest, ".")
	return voice
}

// Wildcard matches one kind's subjects for every stream of a pipeline,
// named voices' streams (two tokens, VoiceStream) included.
func Wildcard(pipeline, kind string) string { return Subject(pipeline, kind, ">") }

// StreamOf returns the stream of a subject built by Subject or
// VoiceSubject: everything after rfs.v1.<pipeline>.<kind>., which for a
// voice's stream is VoiceStream(voice, stream).
func StreamOf(subject string) string {
	rest := subject
	for range 4 {
		_, rest, _ = strings.Cut(rest, ".")
	}
	return rest
}

// CheckName rejects pipeline, stream, voice and client names that are not
// one NATS token of at most 128 bytes of printable UTF-8: a name ends up
// in file names, logs and the page, where a control character or a
// kilobyte of name does harm.
func CheckName(what, name string) error {
	if name == "" || len(name) > 128 || strings.ContainsAny(name, ".*>") || !printable(name) {
		return fmt.Errorf("streaming: %s name %s must be 1-128 bytes of printable characters without '.', '*', '>' or spaces", what, clipQuote(name))
	}
	return nil
}

// printable reports whether s is valid UTF-8 with no control, space or
// other non-graphic character.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// clipQuote quotes a value a client sent for an error message, at most its
// first 64 bytes (then its length): an error result that repeated a 900 KB
// header in full was itself 921 KB, and past the server's limit was lost.
func clipQuote(v string) string {
	const most = 64
	if len(v) <= most {
		return strconv.Quote(v)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(v[:cut]), len(v))
}

// checkStreamName checks the name a stream has on its subjects: its own
// name, or a voice's and its own (<voice>.<stream>).
func checkStreamName(stream string) error {
	voice, own, named := strings.Cut(stream, ".")
	if !named {
		return CheckName("stream", stream)
	}
	if err := CheckName("voice", voice); err != nil {
		return err
	}
	return CheckName("stream", own)
}

// ShardOf returns which of shards frontend and decoder processes owns a
// stream, given its name as the stages know it (StreamOf). A named
// voice's streams (<voice>.<stream>) go by the voice alone, so one process
// holds the voice's session and every stream that adds to it; a plain
// stream goes by its name. The rule is FNV-1a (32 bits) of that token,
// modulo shards; docs/streaming.md states it for stages in other
// languages.
func ShardOf(stream string, shards int) int {
	if shards <= 1 {
		return 0
	}
	key, _, _ := strings.Cut(stream, ".")
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(shards))
}
