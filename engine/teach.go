package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Teaching a voice (enrolment): a person says each word of the model's
// vocabulary once, knowing which word it is, and the model's read-out is
// refitted to those labelled recordings while kept near its own
// (classifier.RefitToward): the training rows it was fitted on are not
// needed, so any model with a linear read-out can be taught, and ten words
// cost a solve of their own size. A connected model learns from each
// recording's frames aligned to the word's states (ConnectedVoice), an
// isolated-word model from its word vectors (VoiceSession.Teach).

// ErrNotInVocabulary is wrapped by the error for a taught label the model
// does not have.
var ErrNotInVocabulary = errors.New("not in the model's vocabulary")

// MaxTaught bounds how many recordings one voice is taught: a few takes of
// each word of a digit model, far below what makes RefitToward's dual
// solve costly.
const MaxTaught = 100

// Pulls toward the model's own read-out (RefitToward's relMu) when
// teaching a voice, chosen on synthetic voices absent from training
// (experiments/journal/enrol.md): frames are many and noisy, so the
// connected model's read-out is held closer than the word model's.
const (
	ConnectedTeachPull = 0.1
	WordTeachPull      = 0.3
)

// teachableLabel returns the class of label among labels, or an error
// naming it and the vocabulary when it is not one of them (the filler,
// which stands for any sound that is no word, cannot be taught).
func teachableLabel(labels []string, label string) (int, error) {
	i := slices.Index(labels, label)
	if i < 0 || label == FillerLabel {
		words := slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return l == FillerLabel })
		return 0, fmt.Errorf("rfstream: %q is %w (%s)", label, ErrNotInVocabulary, strings.Join(words, " "))
	}
	return i, nil
}

// Why a recording is not taught (CheckTeachable).
var (
	ErrTooQuiet = errors.New("too quiet")
	ErrClipped  = errors.New("clipped (too loud)")
	ErrNoSpeech = errors.New("no speech heard (silence or steady noise)")
	ErrTooLong  = errors.New("too long for one word")
)

// Limits of a recording to teach: its loudest 25 ms at least teachMinPeakDB
// (dBFS); at least teachMinSpeech seconds of it within teachSpeechDB of
// that loudest (a short "three" of a real voice, cut tight, has 0.12 s);
// its loudest at least teachMinRangeDB over its quietest tenth (a steady
// sound is no word; a tight clip of a word, with no silence around it,
// still rises and falls by more); at most teachMaxSeconds long, and fewer
// full-scale samples than teachClipShare of them (and teachClipCount).
const (
	teachMinPeakDB  = -45.0
	teachSpeechDB   = 25.0
	teachMinSpeech  = 0.1
	teachMinRangeDB = 10.0
	teachMaxSeconds = 10.0
	teachClipShare  = 0.001
	teachClipCount  = 10
)

// CheckTeachable tells whether a recording (mono samples in [-1, 1] at
// rate Hz) is one a voice can be taught from: a word heard clearly, not
// too quiet, not clipped, not silence or steady noise, not longer than a
// word. The error wraps ErrTooQuiet, ErrClipped, ErrNoSpeech or ErrTooLong
// and says by how much. It reads each sample once.
func CheckTeachable(samples []float32, rate int) error {
	if rate <= 0 {
		return fmt.Errorf("rfstream: sample rate %d", rate)
	}
	if d := float64(len(samples)) / float64(rate); d > teachMaxSeconds {
		return fmt.Errorf("%w: %.1f s (at most %.0f s: say one word)", ErrTooLong, d, teachMaxSeconds)
	}
	clipped := 0
	for _, x := range samples {
		if x >= 0.999 || x <= -0.999 {
			clipped++
		}
	}
	if clipped >= teachClipCount && float64(clipped) > teachClipShare*float64(len(samples)) {
		return fmt.Errorf("%w: %d samples at full scale; speak further from the microphone or turn its level down", ErrClipped, clipped)
	}
	frame := rate / 40 // 25 ms
	var levels []float64
	for i := 0; i+frame <= len(samples); i += frame {
		e := 0.0
		for _, x := range samples[i : i+frame] {
			e += float64(x) * float64(x)
		}
		levels = append(levels, 10*math.Log10(max(e/float64(frame), 1e-10)))
	}
	if len(levels) == 0 {
		return fmt.Errorf("%w: %d samples is shorter than 25 ms", ErrNoSpeech, len(samples))
	}
	sorted := slices.Sorted(slices.Values(levels))
	peak, floor := sorted[len(sorted)-1], sorted[len(sorted)/10]
	if peak < teachMinPeakDB {
		return fmt.Errorf("%w: its loudest part is %.0f dB below full scale (want above %.0f dB); speak closer to the microphone", ErrTooQuiet, -peak, -teachMinPeakDB)
	}
	if peak-floor < teachMinRangeDB {
		return fmt.Errorf("%w: its level varies by %.0f dB (a word rises and falls by more than %.0f)", ErrNoSpeech, peak-floor, teachMinRangeDB)
	}
	speech := 0
	for _, l := range levels {
		if l > peak-teachSpeechDB {
			speech++
		}
	}
	if s := float64(speech) / 40; s < teachMinSpeech {
		return fmt.Errorf("%w: %.2f s of it within %.0f dB of its loudest (want %.2f s)", ErrNoSpeech, s, teachSpeechDB, teachMinSpeech)
	}
	return nil
}
