package main

import (
	"flag"
	"fmt"

	"github.com/rfstream/rfstream/streaming"
)

// admissionFlags are serve's bounds on what one stream (and all of them)
// may queue and send; the stream that crosses one is ended with an error
// result naming the flag, and the others are served as before
// (docs/streaming.md, "Bounds").
type admissionFlags struct {
	audioRate, audioBurst     float64
	voiceRate, voiceBurst     float64
	streamQueueMiB, stageQMiB int
	voiceStreams              int
}

func (a *admissionFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&a.audioRate, "max-audio-rate", streaming.DefaultMaxAudioRate, "seconds of audio one stream may send per second of wall-clock time, once its --max-audio-burst is spent (stream --fast, the page and /vosk stay far below it)")
	fs.Float64Var(&a.audioBurst, "max-audio-burst", streaming.DefaultMaxAudioBurst, "seconds of audio one stream may send at once before --max-audio-rate applies")
	fs.Float64Var(&a.voiceRate, "max-voice-audio-rate", streaming.DefaultMaxVoiceAudioRate, "as --max-audio-rate, for all the streams of one voice named by subject together (a confined client's, the page's browsers'), whatever connections they come on")
	fs.Float64Var(&a.voiceBurst, "max-voice-audio-burst", streaming.DefaultMaxVoiceAudioBurst, "as --max-audio-burst, for all the streams of one voice named by subject together")
	fs.IntVar(&a.voiceStreams, "max-voice-streams", streaming.DefaultMaxVoiceStreams, "streams one voice named by subject (a confined client's) may have live at once; one more is refused with an error result")
	fs.IntVar(&a.streamQueueMiB, "max-stream-queue-mib", streaming.DefaultMaxStreamQueue>>20, "MiB of messages one stream may have waiting at a stage; a stream over it is ended with an error result")
	fs.IntVar(&a.stageQMiB, "max-stage-queue-mib", streaming.DefaultMaxStageQueue>>20, "MiB of messages all streams together may have waiting at a stage; beyond it the stage stops reading from NATS, whose slow-consumer limit then drops messages (logged; the streams that lose one report a gap)")
}

// apply checks the flags and sets them on p.
func (a *admissionFlags) apply(p *streaming.Pipeline) error {
	switch {
	case !(a.audioRate > 0) || !(a.audioBurst > 0):
		return fmt.Errorf("--max-audio-rate %g, --max-audio-burst %g: want positive numbers of seconds", a.audioRate, a.audioBurst)
	case !(a.voiceRate > 0) || !(a.voiceBurst > 0):
		return fmt.Errorf("--max-voice-audio-rate %g, --max-voice-audio-burst %g: want positive numbers of seconds", a.voiceRate, a.voiceBurst)
	case a.voiceStreams < 1:
		return fmt.Errorf("--max-voice-streams %d: want at least 1", a.voiceStreams)
	case a.streamQueueMiB < 1 || a.stageQMiB < 1:
		return fmt.Errorf("--max-stream-queue-mib %d, --max-stage-queue-mib %d: want at least 1", a.streamQueueMiB, a.stageQMiB)
	case a.streamQueueMiB > a.stageQMiB:
		return fmt.Errorf("--max-stream-queue-mib %d is over --max-stage-queue-mib %d: one stream could fill the stage", a.streamQueueMiB, a.stageQMiB)
	case a.stageQMiB > 1<<14:
		return fmt.Errorf("--max-stage-queue-mib %d: at most %d (16 GiB)", a.stageQMiB, 1<<14)
	}
	p.MaxAudioRate, p.MaxAudioBurst = a.audioRate, a.audioBurst
	p.MaxVoiceAudioRate, p.MaxVoiceAudioBurst = a.voiceRate, a.voiceBurst
	p.MaxStreamQueue, p.MaxStageQueue = a.streamQueueMiB<<20, a.stageQMiB<<20
	p.MaxVoiceStreams = a.voiceStreams
	return nil
}
