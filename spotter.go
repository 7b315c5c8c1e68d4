package rfstream

import (
	"fmt"
	"math"

	"github.com/rfstream/rfstream/frontend"
)

// SpotterConfig sets the online endpointing of a word spotter.
type SpotterConfig struct {
	// ThresholdDB: a frame is speech when its energy exceeds the tracked
	// noise floor by this much.
	ThresholdDB float64 `json:"threshold_db"`
	// MinSpeechMs of speech frames open a word; TrailingSilenceMs of
	// non-speech close it; a word longer than MaxWordMs is closed anyway.
	MinSpeechMs       float64 `json:"min_speech_ms"`
	TrailingSilenceMs float64 `json:"trailing_silence_ms"`
	MaxWordMs         float64 `json:"max_word_ms"`
	// PadMs of audio on each side of a word go to the classifier, whose own
	// speech detector trims them.
	PadMs float64 `json:"pad_ms"`
	// PartialEveryMs: while a word is open, a partial hypothesis this often.
	PartialEveryMs float64 `json:"partial_every_ms"`
}

// DefaultSpotterConfig suits isolated digits spoken with short pauses.
func DefaultSpotterConfig() SpotterConfig {
	return SpotterConfig{ThresholdDB: 15, MinSpeechMs: 60, TrailingSilenceMs: 300, MaxWordMs: 2000, PadMs: 150, PartialEveryMs: 200}
}

// Word is one recognised word with its times in seconds from the start of
// the stream.
type Word struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Conf  float64 `json:"conf"`
}

// Result is what a recogniser reports: a partial hypothesis while a word
// is being spoken, a final one when it is closed. Text is all final words
// so far, space separated, plus the open word in a partial.
type Result struct {
	Text  string `json:"text"`
	Final bool   `json:"final"`
	Words []Word `json:"words"`
	// Error is set on an error result; the stream can go on.
	Error string `json:"error,omitempty"`
}

// WordSpotter finds isolated words in a live stream and classifies each:
// push PCM in chunks of any size, collect results. The result sequence
// depends only on the samples, never on how they were chunked.
type WordSpotter struct {
	cls   *WordClassifier
	cfg   SpotterConfig
	rate  int
	rs    *frontend.Resampler
	ext   *frontend.Extractor
	hop   int
	audio []float32 // model-rate samples from index audioStart on
	// audioStart is the absolute index of audio[0].
	audioStart int64
	frame      int64 // frames analysed
	floor      float64
	floorInit  bool
	speechRun  int
	silenceRun int
	open       bool
	wordStart  int64 // frame where the open word began
	lastPart   int64
	words      []Word
}

// NewWordSpotter starts a spotter for input at rate Hz.
func NewWordSpotter(c *WordClassifier, cfg SpotterConfig, rate int) (*WordSpotter, error) {
	ac := c.Config.Audio
	ac.Deltas, ac.Splice, ac.CMVN, ac.Ceps = 0, 0, "none", 0
	ext, err := frontend.NewExtractor(ac)
	if err != nil {
		return nil, err
	}
	s := &WordSpotter{cls: c, cfg: cfg, rate: rate, ext: ext, hop: ac.Hop()}
	if rate != ac.SampleRate {
		if s.rs, err = frontend.NewResampler(rate, ac.SampleRate); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *WordSpotter) frames(ms float64) int64 {
	return int64(math.Ceil(ms / s.cls.Config.Audio.HopMs))
}

// Push adds samples at the spotter's input rate and returns any results.
func (s *WordSpotter) Push(pcm []float32) []Result {
	if s.rs != nil {
		pcm = s.rs.Push(nil, pcm)
	}
	return s.consume(pcm)
}

// Flush ends the stream: an open word is closed and classified.
func (s *WordSpotter) Flush() []Result {
	var out []Result
	if s.rs != nil {
		out = s.consume(s.rs.Flush(nil))
	}
	s.ext.Flush()
	out = append(out, s.scan()...)
	if s.open {
		out = append(out, s.close(s.frame))
	}
	return out
}

func (s *WordSpotter) consume(pcm []float32) []Result {
	s.audio = append(s.audio, pcm...)
	s.ext.Push(pcm)
	return s.scan()
}

// scan runs the endpointer over the frames the extractor has finished.
func (s *WordSpotter) scan() []Result {
	s.ext.Pop()
	energy := s.ext.PopEnergy()
	var out []Result
	const nats2dB = 10 / math.Ln10
	for _, e := range energy {
		f := s.frame
		s.frame++
		db := e * nats2dB
		if !s.floorInit {
			s.floor, s.floorInit = db, true
		}
		speech := db > s.floor+s.cfg.ThresholdDB
		if !speech {
			// Track the floor quickly down, slowly up, only in non-speech.
			if db < s.floor {
				s.floor = db
			} else {
				s.floor += 0.02 * (db - s.floor)
			}
		}
		switch {
		case !s.open && speech:
			s.speechRun++
			if int64(s.speechRun) >= s.frames(s.cfg.MinSpeechMs) {
				s.open, s.silenceRun = true, 0
				s.wordStart = f - int64(s.speechRun) + 1
				s.lastPart = f
			}
		case !s.open:
			s.speechRun = 0
		case speech:
			s.silenceRun = 0
		default:
			s.silenceRun++
		}
		if !s.open {
			continue
		}
		if int64(s.silenceRun) >= s.frames(s.cfg.TrailingSilenceMs) || f+1-s.wordStart >= s.frames(s.cfg.MaxWordMs) {
			out = append(out, s.close(f+1-int64(s.silenceRun)))
			continue
		}
		if f-s.lastPart >= s.frames(s.cfg.PartialEveryMs) {
			s.lastPart = f
			out = append(out, s.partial(f+1))
		}
	}
	s.trim()
	return out
}

// segment returns the samples of frames [from, to) with padding.
func (s *WordSpotter) segment(from, to int64) *frontend.Audio {
	pad := s.frames(s.cfg.PadMs)
	a := max((from-pad)*int64(s.hop), s.audioStart)
	// Never past the samples of the frames analysed so far: what else is
	// buffered depends on how the input was chunked.
	seen := (s.frame-1)*int64(s.hop) + int64(s.cls.Config.Audio.FrameLen())
	b := min((to+pad)*int64(s.hop)+int64(s.cls.Config.Audio.FrameLen()), seen, s.audioStart+int64(len(s.audio)))
	return &frontend.Audio{Rate: s.cls.Config.Audio.SampleRate, Samples: s.audio[a-s.audioStart : b-s.audioStart]}
}

func (s *WordSpotter) seconds(frame int64) float64 {
	return float64(frame) * s.cls.Config.Audio.HopMs / 1000
}

func (s *WordSpotter) hypothesis(from, to int64) (Word, error) {
	h, _, err := s.cls.Classify(s.segment(from, to))
	if err != nil {
		return Word{}, err
	}
	return Word{Word: h.Label, Start: s.seconds(from), End: s.seconds(to), Conf: h.Conf}, nil
}

func (s *WordSpotter) partial(to int64) Result {
	w, err := s.hypothesis(s.wordStart, to)
	if err != nil {
		return Result{Text: s.text(nil), Words: s.words, Error: err.Error()}
	}
	return Result{Text: s.text(&w), Words: append(append([]Word(nil), s.words...), w)}
}

func (s *WordSpotter) close(end int64) Result {
	s.open, s.speechRun, s.silenceRun = false, 0, 0
	w, err := s.hypothesis(s.wordStart, end)
	if err != nil {
		return Result{Text: s.text(nil), Final: true, Words: s.words, Error: fmt.Sprintf("word at %.2fs: %v", s.seconds(s.wordStart), err)}
	}
	s.words = append(s.words, w)
	return Result{Text: s.text(nil), Final: true, Words: append([]Word(nil), s.words...)}
}

func (s *WordSpotter) text(extra *Word) string {
	t := ""
	for _, w := range s.words {
		if t != "" {
			t += " "
		}
		t += w.Word
	}
	if extra != nil {
		if t != "" {
			t += " "
		}
		t += extra.Word
	}
	return t
}

// trim drops audio no future word can reach: a stream holds at most the
// longest word plus padding.
func (s *WordSpotter) trim() {
	keep := s.frame - s.frames(s.cfg.MaxWordMs) - 2*s.frames(s.cfg.PadMs) - 2
	if s.open {
		keep = min(keep, s.wordStart-s.frames(s.cfg.PadMs)-1)
	}
	drop := keep*int64(s.hop) - s.audioStart
	if drop > 8192 {
		s.audio = append(s.audio[:0], s.audio[drop:]...)
		s.audioStart += drop
	}
}
