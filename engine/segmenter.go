package engine

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/rfstream/rfstream/frontend"
)

// SpotterConfig sets the online endpointing of a Segmenter, and so of the
// recognisers that cut their streams with one (WordSpotter, ConnectedStream).
type SpotterConfig struct {
	// ThresholdDB: a frame is speech when its energy exceeds the noise
	// floor by this much. The floor is the 10th percentile of frame
	// energies from FloorWindowMs before the frame to LookaheadMs after it,
	// so a stream that starts in the middle of a word is still heard.
	ThresholdDB float64 `json:"threshold_db"`
	// MinThresholdDB, when positive, lets the threshold follow the
	// stream's own range: half the distance from the floor to the
	// window's 90th-percentile frame, between MinThresholdDB and
	// ThresholdDB. Speech that fills a tenth of the window 30 dB over the
	// background keeps ThresholdDB; a quiet voice whose words rise only
	// 15 dB is still heard (the fixed rule missed most of such a voice's
	// words); a window of background alone gets MinThresholdDB.
	MinThresholdDB float64 `json:"min_threshold_db,omitempty"`
	FloorWindowMs  float64 `json:"floor_window_ms"`
	LookaheadMs    float64 `json:"lookahead_ms"`
	// EdgeFloorDB is the energy assumed before the stream starts and after
	// it ends when the whole stream is shorter than the floor window, so a
	// recording that is all speech (a clipped digit) still stands out from
	// something. A longer stream is measured against its own frames only:
	// its first decisions wait for a whole window (FloorWindowMs +
	// LookaheadMs of audio), so a microphone's background at the start is
	// not heard as a word.
	EdgeFloorDB float64 `json:"edge_floor_db"`
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
	// PartialGrowth, when positive, spaces the partials of a long word
	// further: the next comes only once the word has grown by this
	// fraction of its length since the last (and PartialEveryMs at the
	// least). A recogniser that decodes every partial segment afresh (the
	// pipeline's stages: a segment is a message) then decodes at most
	// 1 + 1/PartialGrowth times the word's frames in all, however long the
	// word runs, where a partial every PartialEveryMs cost time quadratic
	// in its length.
	PartialGrowth float64 `json:"partial_growth,omitempty"`
	// EdgeFillMs, when positive, puts this much of the stream's own
	// background (frontend.EstimateBackground of the segment's samples)
	// before a segment whose padding would reach before the stream's first
	// sample: a recording that begins at its word's first sample then
	// reaches the decoder with a pause before the word, as its training
	// utterances had (200 ms chosen on held-out clips, experiments/
	// journal/reject.md section 3; filling after a recording's end as well
	// won nothing more there). Such a segment's audio starts
	// EdgeFillSamples before the stream.
	EdgeFillMs float64 `json:"edge_fill_ms,omitempty"`
}

// EdgeFillSamples is how many samples at rate Hz of background the
// segmenter puts at an edge of the stream (SpotterConfig.EdgeFillMs).
func (c SpotterConfig) EdgeFillSamples(rate int) int {
	return int(math.Round(max(c.EdgeFillMs, 0) * float64(rate) / 1000))
}

// DefaultSpotterConfig suits isolated digits spoken with short pauses.
func DefaultSpotterConfig() SpotterConfig {
	return SpotterConfig{ThresholdDB: 15, MinThresholdDB: 6, FloorWindowMs: 1500, LookaheadMs: 300, EdgeFloorDB: -55, MinSpeechMs: 60, TrailingSilenceMs: 300, MaxWordMs: 2000, PadMs: 150, PartialEveryMs: 200}
}

// Segment is a stretch of a stream that holds one word: a partial one
// while the word is still being spoken, a final one when it has ended.
type Segment struct {
	Seq        int     // 0, 1, 2, … in stream order
	Start, End float64 // seconds from the start of the stream
	Final      bool
	Audio      *frontend.Audio // the word with padding, at the model rate
	// BackgroundDB is the stream's background energy in dB where the word
	// began (the segmenter's noise floor), when HasBackground says it is
	// known: WordClassifier.SegmentVector bounds the word's speech detector
	// by it (experiments/journal/audio.md, "The bounded detector again").
	BackgroundDB  float64
	HasBackground bool
	// word is shared by the segments of one word, partial and final, so
	// each frame of the word is analysed once (frontend.WordFrames).
	word *frontend.WordFrames
}

// Segmenter finds isolated words in a live stream by their energy: push
// PCM in chunks of any size, collect segments. The segments depend only on
// the samples, never on how they were chunked.
type Segmenter struct {
	wc    frontend.WordConfig
	cfg   SpotterConfig
	rate  int
	rs    *frontend.Resampler
	ext   *frontend.Extractor
	hop   int
	audio []float32 // model-rate samples from index audioStart on
	// audioStart is the absolute index of audio[0].
	audioStart int64
	energy     []float64 // frame energies in dB from frame energyBase on
	energyBase int64
	analysed   int64 // frames whose energy is known
	decided    int64 // frames classified as speech or not
	horizon    int64 // frames known when the current frame was decided
	speechRun  int
	silenceRun int
	open       bool
	wordStart  int64   // frame where the open word began
	wordFloor  float64 // the noise floor (dB) when it was opened
	wordFrames *frontend.WordFrames
	lastPart   int64
	seq        int
	// floorWindow holds the energies of the frames around the one being
	// decided, in order, as the window slides; shortWindow is the same
	// for a stream shorter than the window, padded with EdgeFloorDB.
	floorWindow sortedWindow
	shortWindow []float64
	// sortEveryFrame rebuilds floorWindow for every frame (tests compare
	// the sliding window against it).
	sortEveryFrame bool
	// finalsOnly cuts no partial segments: a caller that reads only the
	// final words (a whole recording heard offline) need not copy and
	// decode the open word again every PartialEveryMs. The final segments
	// are the same: partials change none of the endpointer's state.
	finalsOnly bool
}

// NewSegmenter starts a segmenter for input at rate Hz that cuts words for
// the word representation wc.
func NewSegmenter(wc frontend.WordConfig, cfg SpotterConfig, rate int) (*Segmenter, error) {
	ac := wc.Audio
	ac.Deltas, ac.Splice, ac.CMVN, ac.Ceps = 0, 0, "none", 0
	ext, err := frontend.NewEnergyMeter(ac) // the segmenter reads energies only
	if err != nil {
		return nil, err
	}
	s := &Segmenter{wc: wc, cfg: cfg, rate: rate, ext: ext, hop: ac.Hop()}
	if rate != ac.SampleRate {
		if s.rs, err = frontend.NewResampler(rate, ac.SampleRate); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Segmenter) frames(ms float64) int64 {
	return int64(math.Ceil(ms / s.wc.Audio.HopMs))
}

// FinalsOnly makes the segmenter cut final segments only, no partial ones;
// call it before the first Push.
func (s *Segmenter) FinalsOnly() { s.finalsOnly = true }

// Push adds samples at the segmenter's input rate.
func (s *Segmenter) Push(pcm []float32) []Segment {
	if s.rs != nil {
		pcm = s.rs.Push(nil, pcm)
	}
	return s.consume(pcm)
}

// Flush ends the stream: an open word is closed.
func (s *Segmenter) Flush() []Segment {
	var out []Segment
	if s.rs != nil {
		out = s.consume(s.rs.Flush(nil))
	}
	s.ext.Flush()
	out = append(out, s.scan(true)...)
	if s.open {
		out = append(out, s.close(s.analysed))
	}
	return out
}

func (s *Segmenter) consume(pcm []float32) []Segment {
	s.audio = append(s.audio, pcm...)
	s.ext.Push(pcm)
	return s.scan(false)
}

// minFrameDB keeps digital silence from dragging the floor to -230 dB.
const minFrameDB = -90

// scan decides every frame whose lookahead has arrived (all of them when
// the stream has ended) and runs the endpointer over them.
func (s *Segmenter) scan(ending bool) []Segment {
	s.ext.Pop()
	const nats2dB = 10 / math.Ln10
	for _, e := range s.ext.PopEnergy() {
		s.energy = append(s.energy, max(e*nats2dB, minFrameDB))
		s.analysed++
	}
	look, win := s.frames(s.cfg.LookaheadMs), s.frames(s.cfg.FloorWindowMs)
	// span is the floor window's length: win frames back, look ahead.
	span := win + look + 1
	var out []Segment
	var window []float64 // sorted energies of the frames around f
	// Until span frames have arrived nothing is decided (unless the stream
	// ends first): the first words wait for a whole window of the stream's
	// own background instead of measuring it against an assumed one.
	for s.decided < s.analysed && (ending || s.decided+look < s.analysed && s.analysed >= span) {
		f := s.decided
		s.decided++
		if s.analysed >= span {
			// The span frames of the stream nearest f: at its start the
			// first span, at its end the last span.
			hi := max(f+look+1, span)
			if ending {
				hi = min(hi, s.analysed)
			}
			lo := hi - span
			s.horizon = hi
			if s.sortEveryFrame {
				s.floorWindow = sortedWindow{}
			}
			window = s.floorWindow.slide(s.energy, s.energyBase, lo, hi)
		} else {
			// A stream shorter than the window (one clipped recording,
			// all speech): the floor is assumed before its first frame
			// and after its last, so the word stands out from something.
			s.horizon = min(f+look+1, s.analysed)
			window = append(s.shortWindow[:0], s.energy[max(f-win, 0)-s.energyBase:s.horizon-s.energyBase]...)
			for k := f - win; k < 0; k++ {
				window = append(window, s.cfg.EdgeFloorDB)
			}
			for k := s.horizon; k < f+look+1; k++ {
				window = append(window, s.cfg.EdgeFloorDB)
			}
			sort.Float64s(window)
			s.shortWindow = window
		}
		floor := window[len(window)/10]
		threshold := s.cfg.ThresholdDB
		if s.cfg.MinThresholdDB > 0 {
			threshold = min(max((window[len(window)*9/10]-floor)/2, s.cfg.MinThresholdDB), s.cfg.ThresholdDB)
		}
		speech := s.energy[f-s.energyBase] > floor+threshold
		switch {
		case !s.open && speech:
			s.speechRun++
			if int64(s.speechRun) >= s.frames(s.cfg.MinSpeechMs) {
				s.open, s.silenceRun = true, 0
				s.wordStart = f - int64(s.speechRun) + 1
				s.wordFloor = floor
				s.wordFrames = new(frontend.WordFrames)
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
		every := s.frames(s.cfg.PartialEveryMs)
		if g := s.cfg.PartialGrowth; g > 0 {
			every = max(every, int64(g*float64(s.lastPart+1-s.wordStart)))
		}
		if !s.finalsOnly && f-s.lastPart >= every {
			s.lastPart = f
			out = append(out, s.partial(f+1))
		}
	}
	if drop := s.decided - span - 1 - s.energyBase; drop > 1024 {
		s.energy = append(s.energy[:0], s.energy[drop:]...)
		s.energyBase += drop
	}
	s.trim()
	return out
}

// segment returns the samples of frames [from, to) with padding, and the
// stream's background where the padding reaches before the stream's start
// (SpotterConfig.EdgeFillMs).
func (s *Segmenter) segment(from, to int64, final bool) Segment {
	pad := s.frames(s.cfg.PadMs)
	flen := int64(s.wc.Audio.FrameLen())
	want := (from - pad) * int64(s.hop)
	a := max(want, s.audioStart)
	// Never past the samples of the frames known when this frame was
	// decided: what else is buffered depends on how the input was chunked.
	seen := (s.horizon-1)*int64(s.hop) + flen
	b := min((to+pad)*int64(s.hop)+flen, seen, s.audioStart+int64(len(s.audio)))
	samples := s.audio[a-s.audioStart : b-s.audioStart]
	// Only the stream's start can lie after a wanted sample: trim keeps
	// every open word's padding.
	if n := s.cfg.EdgeFillSamples(s.wc.Audio.SampleRate); n > 0 && a > want {
		samples = withBackgroundBefore(samples, s.wc.Audio.SampleRate, n)
	} else {
		samples = append([]float32(nil), samples...)
	}
	seg := Segment{Seq: s.seq, Start: s.seconds(from), End: s.seconds(to), Final: final,
		Audio:        &frontend.Audio{Rate: s.wc.Audio.SampleRate, Samples: samples},
		BackgroundDB: s.wordFloor, HasBackground: true, word: s.wordFrames}
	s.seq++
	return seg
}

// edgeFillSeed seeds the background put before a stream's start: fixed,
// so a segment's audio depends only on the stream's samples.
const edgeFillSeed = 0x65646765

// withBackgroundBefore returns n samples of the samples' own background
// followed by the samples.
func withBackgroundBefore(samples []float32, rate, n int) []float32 {
	fill := frontend.EstimateBackground(samples, rate).Noise(n, rand.New(rand.NewPCG(edgeFillSeed, 0)))
	return append(fill, samples...)
}

func (s *Segmenter) seconds(frame int64) float64 {
	return float64(frame) * s.wc.Audio.HopMs / 1000
}

func (s *Segmenter) partial(to int64) Segment { return s.segment(s.wordStart, to, false) }

func (s *Segmenter) close(end int64) Segment {
	s.open, s.speechRun, s.silenceRun = false, 0, 0
	seg := s.segment(s.wordStart, end, true)
	s.wordFrames = nil // the final segment is the word's last
	return seg
}

// trim drops audio no future word can reach: a stream holds at most the
// longest word plus padding.
func (s *Segmenter) trim() {
	keep := s.decided - s.frames(s.cfg.MaxWordMs) - 2*s.frames(s.cfg.PadMs) - 2
	if s.open {
		keep = min(keep, s.wordStart-s.frames(s.cfg.PadMs)-1)
	}
	drop := keep*int64(s.hop) - s.audioStart
	if drop > 8192 {
		s.audio = append(s.audio[:0], s.audio[drop:]...)
		s.audioStart += drop
	}
}

// HeardWord tells whether the live segmenter, with cfg, finds any word in
// a whole recording at rate Hz: what a stream of it would decide before
// any model is asked. A whole-word classifier names one of its words for
// any input, silence included; this is its evidence that there was one.
func HeardWord(wc frontend.WordConfig, cfg SpotterConfig, samples []float32, rate int) (bool, error) {
	s, err := NewSegmenter(wc, cfg, rate)
	if err != nil {
		return false, err
	}
	s.FinalsOnly()
	for _, seg := range append(s.Push(samples), s.Flush()...) {
		if seg.Final {
			return true, nil
		}
	}
	return false, nil
}
