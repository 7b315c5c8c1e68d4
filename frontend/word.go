package frontend

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"
)

// WordConfig describes the fixed-size representation of an isolated word:
// the log-mel frames of its speech region, resampled in time to a fixed
// number of frames, so whole-word maps see vectors of one length whatever
// the word's duration.
type WordConfig struct {
	Audio  AudioConfig `json:"audio"`
	Frames int         `json:"frames"` // frames after time resampling
	// MarginDB: frames within this many dB of the loud end of the
	// utterance's energy range count as speech.
	MarginDB float64 `json:"margin_db"`
	// FloorShare: speech frames must also rise above the noise floor by
	// this share of the floor-to-loud range. 0 means the default 1/3 (so
	// models saved before the field existed keep their vectors); a
	// negative value turns the rule off, leaving MarginDB alone. The
	// floor is the 5th percentile of frame energy, which in a recording
	// trimmed close to the word is already speech: there the rule cuts
	// quiet consonants (experiments/journal/audio.md, fifth round).
	FloorShare float64 `json:"floor_share,omitempty"`
	// MaxGapMs, when positive, keeps only the speech around the loudest
	// frame: the region grows from it across quiet stretches of at most
	// this many ms (a stop's closure, a weak syllable), and sound after a
	// longer silence (a click as the recorder stops, a breath) is left
	// out. 0: every frame from the first to the last above the threshold.
	MaxGapMs float64 `json:"max_gap_ms,omitempty"`
	// LevelLiftDB, when positive, raises every frame of the resampled
	// patch toward the loudest frame's level (the mean of its log-mel
	// bands), by at most this many dB, before RangeDB's clamp. Sibilants
	// and other fricatives are commonly 15-25 dB weaker than the vowels
	// beside them, and by how much differs between voices and
	// microphones; lifting them keeps a weak /s/ from vanishing next to a
	// loud vowel while the spectral shape of each frame stays as it was.
	// Frames quieter still (background) are lifted by the same most.
	LevelLiftDB float64 `json:"level_lift_db,omitempty"`
	// RangeDB clamps log-mel values more than this far below the patch's
	// peak (0: no clamp), so the noise floor of silent bands, whose log is
	// large and random, does not dominate the vector.
	RangeDB float64 `json:"range_db"`
	// BandMean removes each band's mean over the word (cepstral mean
	// normalisation in the log-mel domain: a fixed channel gain cancels).
	BandMean bool `json:"band_mean"`
	// Lifter, when positive, smooths each frame's log-mel spectrum by
	// keeping only its first Lifter cepstral coefficients (DCT-II, then
	// back): the spectral envelope stays, the pitch harmonics that narrow
	// low bands resolve go, and the patch keeps its time × band layout, so
	// the spectro-warp group still acts on it.
	Lifter int `json:"lifter,omitempty"`
}

// DefaultWordConfig is 40 log-mel bands × 32 frames.
func DefaultWordConfig() WordConfig {
	return WordConfig{Audio: DefaultAudioConfig(), Frames: 32, MarginDB: 35, RangeDB: 60}
}

// Dim is the length of a word vector.
func (w WordConfig) Dim() int { return w.Audio.Mels * w.Frames }

// defaultFloorShare is the noise-floor rule's share when FloorShare is 0:
// a speech frame rises a third of the way from the floor to the loud level.
const defaultFloorShare = 1.0 / 3

// SpeechFloorShare is the noise-floor rule's share in effect (see
// FloorShare): 1/3 by default, 0 when the rule is off.
func (w WordConfig) SpeechFloorShare() float64 {
	switch {
	case w.FloorShare == 0:
		return defaultFloorShare
	case w.FloorShare < 0:
		return 0
	}
	return w.FloorShare
}

// SpeechRegion returns the first and one-past-last frame whose log energy
// lies within marginDB of the utterance's loud level (its 95th percentile),
// and above its noise floor (5th percentile) by a third of the range.
// Between them every frame is kept: words have quiet stretches inside.
func SpeechRegion(logEnergy []float64, marginDB float64) (int, int) {
	return SpeechRegionShare(logEnergy, marginDB, defaultFloorShare)
}

// SpeechThreshold is the log energy (natural-log power) a speech frame
// must reach: within marginDB of the loud level (95th percentile) and
// floorShare of the way from the noise floor (5th percentile) to it.
func SpeechThreshold(logEnergy []float64, marginDB, floorShare float64) float64 {
	n := len(logEnergy)
	if n == 0 {
		return math.Inf(1)
	}
	s := append([]float64(nil), logEnergy...)
	sort.Float64s(s)
	loud, floor := s[(n*95)/100], s[(n*5)/100]
	// log energy is natural-log power: dB = 10·log10(e)·nats.
	return math.Max(loud-marginDB/(10*math.Log10(math.E)), floor+(loud-floor)*floorShare)
}

// SpeechRegionShare is SpeechRegion with the noise-floor rule's share of
// the range given (0: the margin below the loud level alone decides).
func SpeechRegionShare(logEnergy []float64, marginDB, floorShare float64) (int, int) {
	if len(logEnergy) == 0 {
		return 0, 0
	}
	return regionAtOrAbove(logEnergy, SpeechThreshold(logEnergy, marginDB, floorShare))
}

// regionAtOrAbove is the first to one-past-last frame at or above thr, or
// every frame when none is.
func regionAtOrAbove(logEnergy []float64, thr float64) (int, int) {
	n := len(logEnergy)
	start, end := -1, -1
	for i, e := range logEnergy {
		if e >= thr {
			if start < 0 {
				start = i
			}
			end = i + 1
		}
	}
	if start < 0 {
		return 0, n
	}
	return start, end
}

// SpeechRegionAroundPeak returns the region of frames at or above thr
// that contains the loudest frame, bridging runs of at most maxGap frames
// below thr: it grows from the peak in both directions and stops at the
// first longer quiet stretch.
func SpeechRegionAroundPeak(logEnergy []float64, thr float64, maxGap int) (int, int) {
	n := len(logEnergy)
	if n == 0 {
		return 0, 0
	}
	peak := 0
	for i, e := range logEnergy {
		if e > logEnergy[peak] {
			peak = i
		}
	}
	start, end := peak, peak+1
	for i, quiet := peak-1, 0; i >= 0 && quiet <= maxGap; i-- {
		if logEnergy[i] >= thr {
			start, quiet = i, 0
		} else {
			quiet++
		}
	}
	for i, quiet := peak+1, 0; i < n && quiet <= maxGap; i++ {
		if logEnergy[i] >= thr {
			end, quiet = i+1, 0
		} else {
			quiet++
		}
	}
	return start, end
}

// SpeechRegion is the region of frames the word vector resamples, by the
// config's detector (MarginDB, FloorShare, MaxGapMs).
func (w WordConfig) SpeechRegion(logEnergy []float64) (int, int) {
	return w.speechRegionOver(logEnergy, math.Inf(-1))
}

// SpeechOverBackgroundDB is how far above a stream's background a frame
// of a segment cut from that stream must be to count as speech: twice the
// background's power, so at least as much of the frame is word as is
// background. A file's detector cannot know the background (FSDD's files
// are trimmed into the word), so it sets no such bound; in a stream the
// segmenter measures it, and without it a model whose noise-floor rule is
// off keeps a loud stream's padding as speech (experiments/journal/audio.md).
const SpeechOverBackgroundDB = 6

// SpeechRegionOverBackground is SpeechRegion for a segment of a stream
// whose background energy the segmenter estimated (dB, as its frame
// energies): frames less than SpeechOverBackgroundDB above it are not
// speech. When no frame rises that far the config's detector decides
// alone, so a quiet word is still heard.
func (w WordConfig) SpeechRegionOverBackground(logEnergy []float64, backgroundDB float64) (int, int) {
	least := (backgroundDB + SpeechOverBackgroundDB) / nats2dB
	for _, e := range logEnergy {
		if e >= least {
			return w.speechRegionOver(logEnergy, least)
		}
	}
	return w.SpeechRegion(logEnergy)
}

// nats2dB converts natural-log power to decibels.
const nats2dB = 10 / math.Ln10

// speechRegionOver is the config's detector with frames below least
// (natural-log power) never speech.
func (w WordConfig) speechRegionOver(logEnergy []float64, least float64) (int, int) {
	if len(logEnergy) == 0 {
		return 0, 0
	}
	thr := math.Max(SpeechThreshold(logEnergy, w.MarginDB, w.SpeechFloorShare()), least)
	if w.MaxGapMs > 0 {
		return SpeechRegionAroundPeak(logEnergy, thr, int(math.Round(w.MaxGapMs/w.Audio.HopMs)))
	}
	return regionAtOrAbove(logEnergy, thr)
}

// WordVector computes the word representation of a signal at the config's
// sample rate. The vector is mean-removed and unit-length: loudness and
// channel gain do not matter, the spectral shape does.
func WordVector(w WordConfig, samples []float32) ([]float32, error) {
	return WordVectorOnsetTrimmed(w, samples, 0)
}

// TrimOnset moves the start of the speech region [a, b) later by trim
// frames, keeping at least the region's second half: a word whose
// detected speech is short (a clipped "six" is 140-190 ms in FSDD) still
// keeps its vowel. trim ≤ 0 leaves a unchanged.
func TrimOnset(a, b, trim int) int {
	if trim <= 0 {
		return a
	}
	return a + min(trim, (b-a)/2)
}

// TrimOffset moves the end of the speech region [a, b) earlier by trim
// frames, keeping at least the region's first half (TrimOnset's mirror).
// trim ≤ 0 leaves b unchanged.
func TrimOffset(a, b, trim int) int {
	if trim <= 0 {
		return b
	}
	return b - min(trim, (b-a)/2)
}

// WordVectorOnsetTrimmed is WordVector with the start of the detected
// speech region moved trimMs later (see TrimOnset; 0: WordVector itself).
// It imitates a recording cut after its first sound was spoken, as some
// of FSDD's "six" files begin at the vowel with the /s/ cut away
// (experiments/journal/audio.md, fifth and sixth rounds): training copies made this way
// show the model such words. The detector runs on the whole recording, so
// the trim is measured from where it found speech, not from the file's
// first sample, whose lead-in of background differs between recordings.
func WordVectorOnsetTrimmed(w WordConfig, samples []float32, trimMs float64) ([]float32, error) {
	return WordVectorTrimmed(w, samples, trimMs, 0)
}

// WordVectorTrimmed is WordVector with the start of the detected speech
// region moved onsetMs later (see WordVectorOnsetTrimmed) and its end
// offsetMs earlier (see TrimOffset). An offset trim imitates a word cut
// from a stream whose background is as loud as the word's decay: the
// segment's detector cannot tell the decay from the background and ends
// the word early (experiments/journal/audio.md, "Where the segments' words end").
func WordVectorTrimmed(w WordConfig, samples []float32, onsetMs, offsetMs float64) ([]float32, error) {
	return wordVector(w, samples, onsetMs, offsetMs, w.SpeechRegion, LogMel)
}

// WordVectorOverBackground is WordVector for a segment cut from a stream
// whose background energy (dB) the segmenter estimated: see
// SpeechRegionOverBackground.
func WordVectorOverBackground(w WordConfig, samples []float32, backgroundDB float64) ([]float32, error) {
	return w.vectorOverBackground(samples, backgroundDB, LogMel)
}

// VectorOverBackground is WordVectorOverBackground for one of the
// segments of a word that f follows (partial words, then the closed one):
// the same vector, with only the frames f has not seen analysed.
func (f *WordFrames) VectorOverBackground(w WordConfig, samples []float32, backgroundDB float64) ([]float32, error) {
	return w.vectorOverBackground(samples, backgroundDB, f.LogMel)
}

func (w WordConfig) vectorOverBackground(samples []float32, backgroundDB float64, logMel func(AudioConfig, []float32) (blas32.General, []float64)) ([]float32, error) {
	if math.IsNaN(backgroundDB) || math.IsInf(backgroundDB, 0) {
		return nil, fmt.Errorf("frontend: background of %g dB", backgroundDB)
	}
	return wordVector(w, samples, 0, 0, func(energy []float64) (int, int) {
		return w.SpeechRegionOverBackground(energy, backgroundDB)
	}, logMel)
}

// wordVector computes the word vector over the speech region that region
// finds in the frame energies, its start moved trimMs later and its end
// endTrimMs earlier.
func wordVector(w WordConfig, samples []float32, trimMs, endTrimMs float64, region func(logEnergy []float64) (int, int), logMel func(AudioConfig, []float32) (blas32.General, []float64)) ([]float32, error) {
	if w.Frames < 2 {
		return nil, fmt.Errorf("frontend: word of %d frames", w.Frames)
	}
	if w.Lifter < 0 {
		return nil, fmt.Errorf("frontend: lifter of %d coefficients", w.Lifter)
	}
	if trimMs < 0 || math.IsNaN(trimMs) || math.IsInf(trimMs, 0) {
		return nil, fmt.Errorf("frontend: onset trim of %g ms", trimMs)
	}
	if endTrimMs < 0 || math.IsNaN(endTrimMs) || math.IsInf(endTrimMs, 0) {
		return nil, fmt.Errorf("frontend: offset trim of %g ms", endTrimMs)
	}
	if w.LevelLiftDB < 0 || math.IsNaN(w.LevelLiftDB) || math.IsInf(w.LevelLiftDB, 0) {
		return nil, fmt.Errorf("frontend: level lift of %g dB", w.LevelLiftDB)
	}
	frames, energy := logMel(w.Audio, samples)
	if frames.Rows == 0 {
		return nil, fmt.Errorf("frontend: empty recording")
	}
	a, b := region(energy)
	a = TrimOnset(a, b, int(math.Round(trimMs/w.Audio.HopMs)))
	b = TrimOffset(a, b, int(math.Round(endTrimMs/w.Audio.HopMs)))
	mels := w.Audio.Mels
	out := make([]float32, w.Dim())
	// Linear interpolation in time over frames [a, b).
	span := float64(b - a - 1)
	for t := 0; t < w.Frames; t++ {
		pos := float64(a)
		if span > 0 {
			pos += span * float64(t) / float64(w.Frames-1)
		}
		i0 := int(math.Floor(pos))
		i1 := min(i0+1, b-1)
		f := float32(pos - float64(i0))
		r0 := frames.Data[i0*frames.Stride : i0*frames.Stride+mels]
		r1 := frames.Data[i1*frames.Stride : i1*frames.Stride+mels]
		dst := out[t*mels : (t+1)*mels]
		for k := range dst {
			dst[k] = (1-f)*r0[k] + f*r1[k]
		}
	}
	if w.LevelLiftDB > 0 {
		liftLevels(out, mels, float32(w.LevelLiftDB/(10*math.Log10(math.E))))
	}
	if w.RangeDB > 0 {
		peak := out[0]
		for _, v := range out {
			peak = max(peak, v)
		}
		floor := peak - float32(w.RangeDB/(10*math.Log10(math.E)))
		for i, v := range out {
			out[i] = max(v, floor)
		}
	}
	if w.Lifter > 0 && w.Lifter < mels {
		smoothBands(out, mels, w.Lifter)
	}
	if w.BandMean {
		for k := 0; k < mels; k++ {
			var m float32
			for t := 0; t < w.Frames; t++ {
				m += out[t*mels+k]
			}
			m /= float32(w.Frames)
			for t := 0; t < w.Frames; t++ {
				out[t*mels+k] -= m
			}
		}
	}
	UnitWordVector(out)
	return out, nil
}

// liftLevels adds to every frame (mels log values) of patch the distance
// from its mean to the loudest frame's mean, capped at most (in the
// patch's natural-log units).
func liftLevels(patch []float32, mels int, most float32) {
	frames := len(patch) / mels
	level := make([]float32, frames)
	loudest := float32(math.Inf(-1))
	for t := range level {
		var sum float32
		for _, v := range patch[t*mels : (t+1)*mels] {
			sum += v
		}
		level[t] = sum / float32(mels)
		loudest = max(loudest, level[t])
	}
	for t, l := range level {
		lift := min(loudest-l, most)
		row := patch[t*mels : (t+1)*mels]
		for k := range row {
			row[k] += lift
		}
	}
}

// smoothBands replaces every frame (mels values) of patch by its
// projection on the first k orthonormal DCT-II basis vectors.
func smoothBands(patch []float32, mels, k int) {
	basis := make([][]float64, k)
	for i := range basis {
		basis[i] = make([]float64, mels)
		s := math.Sqrt(2 / float64(mels))
		if i == 0 {
			s = math.Sqrt(1 / float64(mels))
		}
		for j := range basis[i] {
			basis[i][j] = s * math.Cos(math.Pi*float64(i)*(float64(j)+0.5)/float64(mels))
		}
	}
	smooth := make([]float64, mels)
	for f := 0; f+mels <= len(patch); f += mels {
		row := patch[f : f+mels]
		clear(smooth)
		for _, b := range basis {
			var c float64
			for j, v := range row {
				c += b[j] * float64(v)
			}
			for j := range smooth {
				smooth[j] += c * b[j]
			}
		}
		for j := range row {
			row[j] = float32(smooth[j])
		}
	}
}
