package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// ConnectedVoice is a voice taught to a connected model: the recordings it
// was taught (their frames and the classes a forced alignment to the
// known word gave them) and the recogniser whose frame read-out is refitted
// to them (Connected). Only models with an RLS read-out can be taught.
type ConnectedVoice struct {
	// Pull is how near the model's read-out the voice's is kept
	// (classifier.RefitToward's relMu; ConnectedTeachPull unless set,
	// before teaching).
	Pull float64
	// Copies, when set, makes copies of each recording taught (say,
	// played a little faster and slower), which are taught with it as
	// the same word, before teaching.
	Copies func(*frontend.Audio) ([]*frontend.Audio, error)
	// Strings is how many strings of the voice's taught words (3 to 6 of
	// its recordings, cut to their speech and joined by pauses of its own
	// background StringPauses seconds long) it is also taught, made again
	// from all its words whenever it learns one: ten words taught alone
	// teach no word following another (TaughtStrings, TaughtStringPauses
	// unless set, before teaching).
	Strings      int
	StringPauses [2]float64
	// GuardMisses is the guard against teaching a voice the model already
	// hears well: when at least GuardWords one-word recordings were taught
	// (and kept) and the model alone hears all of them right but at most
	// GuardMisses, the voice keeps the model's recogniser. The recordings
	// are heard by the model before any teaching, so they are a fair
	// sample of how it hears the voice alone. Off by default: round E5 of
	// experiments/journal/enrol.md found it keeps voices the model trained
	// on as they were, but costs unheard synthetic voices, heard right
	// alone and not in fluent speech, 11–14 points of WER. Negative: no
	// guard (TaughtGuardMisses unless set, before first use).
	GuardMisses int
	// GuardStrings makes the guard also ask that the model alone hear
	// right every string the voice would be taught of its words (Strings):
	// a voice whose words alone are heard may still be heard worse in
	// strings (TaughtGuardStrings unless set, before first use).
	GuardStrings bool
	c            *Connected
	frames       []blas32.General // each taught recording's input frames (with its copies')
	classes      [][]int          // their aligned classes
	labels       []string         // the word each said
	audio        [][]float32      // each recording at the model's rate (nil in a file of version 1)
	// stats are ZᵀZ and ZᵀY of every taught frame's features, which the
	// read-out is refitted from (classifier.RefitTowardGram) with the
	// strings' frames.
	stats *classifier.RLSAccumulator
	// words is the model refitted to the words (nil before any);
	// adapted, to the words and the strings, made when first used.
	words   *Connected
	mu      sync.Mutex // guards adapted
	adapted *Connected
}

// How many strings a voice is taught from its words, and their pauses
// (ConnectedVoice.Strings), chosen on synthetic voices absent from
// training (experiments/journal/enrol.md, round E3: pooled WER 17.3 →
// 11.7 % after ten words; tight joins did better on strings and worse on
// words alone).
var (
	TaughtGuardMisses   = -1
	TaughtGuardStrings  = false
	TaughtStrings       = 6
	TaughtStringPauses  = [2]float64{0.1, 0.4}
	taughtStringWords   = [2]int{3, 6}
	taughtStringEdgeSec = 0.3
)

// GuardWords is the fewest one-word recordings the guard (GuardMisses)
// judges a voice on: most of an enrolment's ten.
const GuardWords = 8

// NewVoice starts a voice the model has not been taught.
func (c *Connected) NewVoice() (*ConnectedVoice, error) {
	if c.Input.Classifier != "rls" {
		return nil, fmt.Errorf("rfstream: a voice can be taught to a model with an RLS read-out; this one's is %s", c.Input.Classifier)
	}
	return &ConnectedVoice{c: c, Pull: ConnectedTeachPull, Strings: TaughtStrings, StringPauses: TaughtStringPauses, GuardMisses: TaughtGuardMisses, GuardStrings: TaughtGuardStrings}, nil
}

// Fingerprint is the hex SHA-256 of the model's encoding: what a voice
// file names its model by.
func (c *Connected) Fingerprint() (string, error) { return c.print.of(c.Model) }

// VoicePath is where a voice of this model named name is kept under dir:
// in the model's own folder, as for word models (WordClassifier.VoicePath).
func (c *Connected) VoicePath(dir, name string) (string, error) {
	model, err := c.Fingerprint()
	if err != nil {
		return "", err
	}
	return voicePathIn(dir, model, name), nil
}

// Connected is the recogniser to use for the voice: the model with its
// read-out refitted to what the voice was taught, or the model itself
// before any teaching. The strings of its words are made and learnt when
// it is first asked for after teaching (a second or two), not at each
// word taught.
func (v *ConnectedVoice) Connected() *Connected {
	if v.words == nil {
		return v.c
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.adapted == nil {
		a, err := v.adapt()
		if err != nil {
			// Cannot happen for recordings that were taught (each was
			// framed and aligned once); the words alone still hold.
			return v.words
		}
		v.adapted = a
	}
	return v.adapted
}

// adapt is the voice's recogniser: the model itself when the guard keeps
// it (heardWell), else the model refitted to the words and their strings
// (withStrings).
func (v *ConnectedVoice) adapt() (*Connected, error) {
	if v.heardWell() {
		return v.c, nil
	}
	return v.withStrings()
}

// Guarded says whether the voice keeps the model's recogniser because the
// model already hears its taught words (GuardMisses).
func (v *ConnectedVoice) Guarded() bool { return v.words != nil && v.Connected() == v.c }

// heardWell is the guard (GuardMisses): whether the model alone, as the
// live recogniser hears a whole recording, gets all but at most
// GuardMisses of the voice's kept one-word recordings right, there being
// at least GuardWords of them.
func (v *ConnectedVoice) heardWell() bool {
	if v.GuardMisses < 0 {
		return false
	}
	plain := liveRecognizer{start: connectedStarter(v.c, true)}
	rate := v.c.Input.Audio.SampleRate
	var takes [][]float32
	var said []string
	misses := 0
	for i, a := range v.audio {
		if a == nil || strings.Contains(v.labels[i], " ") {
			continue
		}
		takes, said = append(takes, a), append(said, v.labels[i])
		res, err := plain.Recognize(a, rate)
		if err != nil || res.Text != v.labels[i] {
			misses++
		}
	}
	if len(takes) < GuardWords || misses > v.GuardMisses {
		return false
	}
	if !v.GuardStrings || v.Strings <= 0 {
		return true
	}
	// The strings withStrings would teach (the same recordings, count,
	// pauses and seed).
	strs, err := v.c.joinWords(takes, said, v.Strings, v.StringPauses, uint64(len(v.labels)))
	if err != nil {
		return false
	}
	for _, st := range strs {
		res, err := plain.Recognize(st.samples, rate)
		if err != nil || res.Text != strings.Join(st.words, " ") {
			return false
		}
	}
	return true
}

// wordsConnected is the model refitted to the words taught, or the model.
func (v *ConnectedVoice) wordsConnected() *Connected {
	if v.words == nil {
		return v.c
	}
	return v.words
}

// Recognizer hears whole recordings of the voice as NewRecognizer hears
// them with the model (the live pipeline's way), with the voice's
// recogniser.
func (v *ConnectedVoice) Recognizer() Recognizer {
	return liveRecognizer{start: connectedStarter(v.Connected(), true)}
}

// NewStream starts a live stream of the voice at rate Hz, as a stream of
// the model (NewConnectedStream with its default segmentation).
func (v *ConnectedVoice) NewStream(rate int) (Stream, error) {
	return connectedStarter(v.Connected(), false)(rate)
}

// Taught is the number of recordings the voice was taught.
func (v *ConnectedVoice) Taught() int { return len(v.labels) }

// Words are the words taught, in order.
func (v *ConnectedVoice) Words() []string { return append([]string(nil), v.labels...) }

// Teach teaches the voice a recording of the word label: its frames are
// aligned to the word's states (between optional silences) by the model
// refitted to the words taught before it, and the read-out is refitted to
// every frame taught so far (and, when first used, to the strings made of
// the words: Strings). A label the model does not have is refused by name; a
// recording too short for the word's states is refused too.
func (v *ConnectedVoice) Teach(a *frontend.Audio, label string) error {
	return v.teach(a, []string{label}, v.Copies)
}

// teach teaches a recording of the words, with the copies makeCopies
// makes of it (nil: none), then the strings made of every word taught.
func (v *ConnectedVoice) teach(a *frontend.Audio, words []string, makeCopies func(*frontend.Audio) ([]*frontend.Audio, error)) error {
	ws := make([]int, len(words))
	for i, word := range words {
		w, err := teachableLabel(v.c.Model.Labels, word)
		if err != nil {
			return err
		}
		ws[i] = w
	}
	label := strings.Join(words, " ")
	if len(v.labels) >= MaxTaught {
		return fmt.Errorf("rfstream: the voice has been taught %d recordings, the most it takes", MaxTaught)
	}
	var err error
	now := v.wordsConnected()
	takes := []*frontend.Audio{a}
	if makeCopies != nil {
		copies, err := makeCopies(a)
		if err != nil {
			return err
		}
		takes = append(takes, copies...)
	}
	var xs []blas32.General
	var classes []int
	var kept []float32 // the recording at the model's rate
	rows := 0
	for i, a := range takes {
		if a.Rate != now.Input.Audio.SampleRate {
			if a, err = frontend.Resample(a, now.Input.Audio.SampleRate); err != nil {
				return err
			}
		}
		if i == 0 {
			kept = a.Samples
		}
		lead, trail, err := now.edgeSilence(a.Samples)
		if err != nil {
			return err
		}
		a = padWithBackground(a, max(0, teachPadSeconds-lead), max(0, teachPadSeconds-trail), uint64(len(v.labels)))
		x, err := now.Frames(a)
		if err != nil {
			return err
		}
		cl, err := now.alignTaught(a.Samples, x, ws)
		if err != nil {
			return fmt.Errorf("rfstream: aligning the recording to %q: %w", label, err)
		}
		xs, classes, rows = append(xs, x), append(classes, cl...), rows+x.Rows
	}
	if rows > classifier.MaxTowardRows {
		return fmt.Errorf("rfstream: a recording of %d frames (with its copies), more than the %d one word may hold", rows, classifier.MaxTowardRows)
	}
	x := linalg.NewGeneral32(rows, now.Input.Audio.Dim())
	row := 0
	for _, f := range xs {
		for r := range f.Rows {
			copy(linalg.Row32(x, row), linalg.Row32(f, r))
			row++
		}
	}
	stats, err := v.withStats(x, classes)
	if err != nil {
		return err
	}
	refitted, err := v.refit(stats)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.stats, v.frames, v.classes, v.labels, v.audio, v.words, v.adapted = stats, append(v.frames, x), append(v.classes, classes), append(v.labels, label), append(v.audio, kept), refitted, nil
	v.mu.Unlock()
	return nil
}

// withStrings is the voice's recogniser refitted to its words' statistics
// and to v.Strings strings made of its one-word recordings, aligned by the
// recogniser refitted to the words alone: it depends only on what the
// voice holds, so a voice read from its file hears as the one written.
func (v *ConnectedVoice) withStrings() (*Connected, error) {
	stats, labels, audio, words := v.stats, v.labels, v.audio, v.words
	if v.Strings <= 0 {
		return words, nil
	}
	var err error
	var takes [][]float32
	var said []string
	for i, a := range audio {
		if a != nil && !strings.Contains(labels[i], " ") {
			takes, said = append(takes, a), append(said, labels[i])
		}
	}
	if len(takes) < 2 {
		return words, nil
	}
	strs, err := words.joinWords(takes, said, v.Strings, v.StringPauses, uint64(len(labels)))
	if err != nil {
		return nil, err
	}
	all := stats.Clone()
	for _, st := range strs {
		ws := make([]int, len(st.words))
		for i, w := range st.words {
			if ws[i], err = teachableLabel(v.c.Model.Labels, w); err != nil {
				return nil, err
			}
		}
		x, err := words.Frames(&frontend.Audio{Rate: words.Input.Audio.SampleRate, Samples: st.samples})
		if err != nil {
			return nil, err
		}
		cl, err := words.alignTaught(st.samples, x, ws)
		if err != nil {
			return nil, fmt.Errorf("rfstream: aligning a string of the voice's words: %w", err)
		}
		if err := all.Add(features.Apply(v.c.Map, x, 0), cl); err != nil {
			return nil, err
		}
	}
	return v.refit(all)
}

// joinedString is a string made of a voice's taught words.
type joinedString struct {
	samples []float32
	words   []string
}

// joinWords makes count strings of 3 to 6 of the recordings (samples at
// the model's rate; said, their words), drawn with seed: each cut to its
// speech region (by energy, as teaching finds it, and a frame either side)
// and joined by pauses of pauses[0] to pauses[1] seconds of the voice's
// background (the median level of the recordings' own), with 0.3 s of it
// before and after.
func (c *Connected) joinWords(recs [][]float32, said []string, count int, pauses [2]float64, seed uint64) ([]joinedString, error) {
	rate := c.Input.Audio.SampleRate
	hop := int(c.Input.Audio.HopMs / 1000 * float64(rate))
	cut := make([][]float32, len(recs))
	rooms := make([]frontend.Background, len(recs))
	for i, r := range recs {
		energy, err := c.frameEnergy(r)
		if err != nil {
			return nil, err
		}
		start, end := frontend.SpeechRegion(energy, teachMarginDB)
		lo, hi := max(0, (start-1)*hop), min(len(r), (end+1)*hop)
		if lo >= hi {
			lo, hi = 0, len(r)
		}
		cut[i] = r[lo:hi]
		rooms[i] = frontend.EstimateBackground(r, rate)
	}
	slices.SortStableFunc(rooms, func(x, y frontend.Background) int { return cmp.Compare(x.Level, y.Level) })
	room := rooms[len(rooms)/2]
	rng := rand.New(rand.NewPCG(seed, 0x6a6f696e))
	out := make([]joinedString, count)
	for k := range out {
		n := taughtStringWords[0] + rng.IntN(taughtStringWords[1]-taughtStringWords[0]+1)
		var samples []float32
		for j := range n {
			w := rng.IntN(len(cut))
			pause := taughtStringEdgeSec
			if j > 0 {
				pause = pauses[0] + (pauses[1]-pauses[0])*rng.Float64()
			}
			samples = append(samples, room.Noise(int(pause*float64(rate)), rng)...)
			samples = append(samples, cut[w]...)
			out[k].words = append(out[k].words, said[w])
		}
		out[k].samples = append(samples, room.Noise(int(taughtStringEdgeSec*float64(rate)), rng)...)
	}
	return out, nil
}

// withStats returns the voice's taught statistics with the frames x of
// classes added, the voice's own left as they are.
func (v *ConnectedVoice) withStats(x blas32.General, classes []int) (*classifier.RLSAccumulator, error) {
	var stats *classifier.RLSAccumulator
	if v.stats == nil {
		stats = classifier.NewRLSAccumulator(v.c.Model.RLS.Dim, v.c.Model.RLS.Classes)
		stats.Float64 = true
	} else {
		stats = v.stats.Clone()
	}
	if err := stats.Add(features.Apply(v.c.Map, x, 0), classes); err != nil {
		return nil, err
	}
	return stats, nil
}

// A taught recording gets its own background (frontend.EstimateBackground)
// added before and after its word where it has less than teachPadSeconds
// of silence there, so the silence states learn the voice's pauses too: a
// recording cut tight to its word taught the read-out none, and the
// voice's recogniser then heard words in the pauses of its strings (a real
// voice's clips: "8 0" for a "0" with silence around it). Padding every
// recording, even those with silence enough, cost the synthetic voices'
// whole strings 8.6 points of WER (experiments/journal/enrol.md).
const teachPadSeconds = 0.3

// edgeSilence is how many seconds of samples (at the model's rate) come
// before and after its word (frontend.SpeechRegion on the frames' energy).
func (c *Connected) edgeSilence(samples []float32) (lead, trail float64, err error) {
	energy, err := c.frameEnergy(samples)
	if err != nil || len(energy) == 0 {
		return 0, 0, err
	}
	start, end := frontend.SpeechRegion(energy, teachMarginDB)
	hop := c.Input.Audio.HopMs / 1000
	return float64(start) * hop, float64(len(energy)-end) * hop, nil
}

// frameEnergy is the log energy of each of the model's frames of samples.
func (c *Connected) frameEnergy(samples []float32) ([]float64, error) {
	meter, err := frontend.NewEnergyMeter(c.Input.Audio)
	if err != nil {
		return nil, err
	}
	meter.Push(samples)
	meter.Flush()
	meter.Pop()
	return meter.PopEnergy(), nil
}

// padWithBackground returns a with lead and trail seconds of noise like
// its quietest stretches before and after it, drawn with seed.
func padWithBackground(a *frontend.Audio, lead, trail float64, seed uint64) *frontend.Audio {
	if lead == 0 && trail == 0 {
		return a
	}
	bg := frontend.EstimateBackground(a.Samples, a.Rate)
	rng := rand.New(rand.NewPCG(seed, 0x706164))
	out := append(bg.Noise(int(lead*float64(a.Rate)), rng), a.Samples...)
	return &frontend.Audio{Rate: a.Rate, Samples: append(out, bg.Noise(int(trail*float64(a.Rate)), rng)...)}
}

// teachMarginDB is how far below a taught recording's loud level its
// word may go (frontend.SpeechRegion), as the word models' default.
const teachMarginDB = 35

// alignTaught labels the frames x of a recording of the words ws with
// classes: the frames of its speech region (by energy, as the word models
// find a word) are force-aligned to the words' states (with optional
// silence between words), the rest split over the silence states. The
// region is found without the model, because a voice the model has not
// learnt is what it hears worst: aligned freely, its word went to silence
// but for a few frames.
func (c *Connected) alignTaught(samples []float32, x blas32.General, ws []int) ([]int, error) {
	energy, err := c.frameEnergy(samples)
	if err != nil {
		return nil, err
	}
	if len(energy) != x.Rows {
		return nil, fmt.Errorf("%d energies for %d frames", len(energy), x.Rows)
	}
	start, end := frontend.SpeechRegion(energy, teachMarginDB)
	units := make([]decode.Unit, len(ws))
	for i, w := range ws {
		units[i] = c.words[w]
	}
	labels, err := decode.BootstrapLabels(x.Rows, start, end, units, c.sil)
	if err != nil {
		return nil, err
	}
	ll := linalg.Rows32(c.LogLikelihoods(x), start, end)
	var sil *decode.Unit
	if len(units) > 1 {
		sil = &c.sil
	}
	al, err := decode.Align(units, sil, ll, decode.LinearConfig{NoEdgeSilence: true, NoInnerSilence: len(units) == 1}, c.options())
	if err != nil {
		return labels, nil // too few frames to align: the uniform split stands
	}
	copy(labels[start:end], al.Classes)
	return labels, nil
}

// refit is the model with its read-out refitted to the taught frames'
// statistics.
func (v *ConnectedVoice) refit(stats *classifier.RLSAccumulator) (*Connected, error) {
	r, err := classifier.RefitTowardGram(v.c.Model.RLS, stats, v.Pull)
	if err != nil {
		return nil, err
	}
	cc := *v.c
	cc.post = classifier.NewPackedCalibratedRLS(r, v.c.Input.Temperature)
	return &cc, nil
}

// A connected voice file: the envelope, a JSON header naming the model by
// its fingerprint and the taught words with their frame counts, then each
// recording's frames (float32) and aligned classes (int32), little-endian.
// The read-out is not stored: refitting it on loading costs a solve the
// size of the taught frames.
var connectedVoiceFile = envelope{magic: [8]byte{'R', 'F', 'S', 'C', 'V', 'O', 'I', 'C'}, what: "connected voice file", corrupt: ErrCorruptVoice}

// Version 2 adds each recording's samples at the model's rate (the
// strings a voice is taught are made of them); version 1 files, without,
// are still read, and their voices taught no strings of what they hold.
const connectedVoiceVersion = 2

type connectedVoiceHeader struct {
	Model  string   `json:"model"`
	Dim    int      `json:"dim"`
	Words  []string `json:"words"`
	Frames []int    `json:"frames"`
	// Samples is each recording's number of samples (0: not kept).
	Samples []int `json:"samples,omitempty"`
}

// WriteTo encodes the voice.
func (v *ConnectedVoice) WriteTo(w io.Writer) (int64, error) {
	model, err := v.c.Fingerprint()
	if err != nil {
		return 0, err
	}
	h := connectedVoiceHeader{Model: model, Dim: v.c.Input.Audio.Dim(), Words: v.labels, Frames: make([]int, len(v.frames)), Samples: make([]int, len(v.frames))}
	for i, f := range v.frames {
		h.Frames[i], h.Samples[i] = f.Rows, len(v.audio[i])
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	connectedVoiceFile.begin(&buf, connectedVoiceVersion, hj)
	for i, f := range v.frames {
		for r := range f.Rows {
			binary.Write(&buf, binary.LittleEndian, linalg.Row32(f, r))
		}
		cl := make([]int32, len(v.classes[i]))
		for j, c := range v.classes[i] {
			cl[j] = int32(c)
		}
		binary.Write(&buf, binary.LittleEndian, cl)
	}
	for _, a := range v.audio {
		binary.Write(&buf, binary.LittleEndian, a)
	}
	connectedVoiceFile.seal(&buf)
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}

// ReadVoice decodes a voice WriteTo wrote for this model and refits its
// read-out. A file of another model is refused (ErrOtherModel), naming
// both.
func (c *Connected) ReadVoice(b []byte) (*ConnectedVoice, error) {
	var h connectedVoiceHeader
	_, data, err := connectedVoiceFile.open(b, func(ver uint32) error {
		if ver != 1 && ver != connectedVoiceVersion {
			return fmt.Errorf("connected voice file format version %d; this build reads versions 1 and %d", ver, connectedVoiceVersion)
		}
		return nil
	}, &h)
	if err != nil {
		if bytes.HasPrefix(b, voiceFile.magic[:]) {
			return nil, fmt.Errorf("%w: a word model's voice file, read with a connected model", ErrOtherModel)
		}
		return nil, err
	}
	model, err := c.Fingerprint()
	if err != nil {
		return nil, err
	}
	if h.Model != model {
		return nil, fmt.Errorf("%w (model %.12s…, this one is %.12s…)", ErrOtherModel, h.Model, model)
	}
	dim := c.Input.Audio.Dim()
	if h.Dim != dim || len(h.Words) != len(h.Frames) || len(h.Words) > MaxTaught {
		return nil, fmt.Errorf("%w: %d words with %d frame counts of %d values (the model's frames have %d)", ErrCorruptVoice, len(h.Words), len(h.Frames), h.Dim, dim)
	}
	if h.Samples == nil {
		h.Samples = make([]int, len(h.Frames))
	}
	want := 0
	for i, n := range h.Frames {
		if n <= 0 || n > classifier.MaxTowardRows {
			return nil, fmt.Errorf("%w: a recording of %d frames", ErrCorruptVoice, n)
		}
		want += n * (4*dim + 4)
		if i >= len(h.Samples) || h.Samples[i] < 0 || float64(h.Samples[i]) > teachMaxSeconds*float64(c.Input.Audio.SampleRate) {
			return nil, fmt.Errorf("%w: %d sample counts for %d recordings", ErrCorruptVoice, len(h.Samples), len(h.Frames))
		}
		want += 4 * h.Samples[i]
	}
	if len(h.Samples) != len(h.Frames) {
		return nil, fmt.Errorf("%w: %d sample counts for %d recordings", ErrCorruptVoice, len(h.Samples), len(h.Frames))
	}
	if len(data) != want {
		return nil, fmt.Errorf("%w: %d bytes of values, the header needs %d", ErrCorruptVoice, len(data), want)
	}
	v, err := c.NewVoice()
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(data)
	for i, n := range h.Frames {
		words := strings.Fields(h.Words[i])
		if len(words) == 0 {
			return nil, fmt.Errorf("%w: a recording of no words", ErrCorruptVoice)
		}
		for _, w := range words {
			if _, err := teachableLabel(c.Model.Labels, w); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrCorruptVoice, err)
			}
		}
		f := linalg.NewGeneral32(n, dim)
		binary.Read(r, binary.LittleEndian, f.Data)
		for _, x := range f.Data {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: a frame value is %v", ErrCorruptVoice, x)
			}
		}
		cl32 := make([]int32, n)
		binary.Read(r, binary.LittleEndian, cl32)
		cl := make([]int, n)
		for j, k := range cl32 {
			if k < 0 || int(k) >= c.classes {
				return nil, fmt.Errorf("%w: frame class %d of %d", ErrCorruptVoice, k, c.classes)
			}
			cl[j] = int(k)
		}
		if v.stats, err = v.withStats(f, cl); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorruptVoice, err)
		}
		v.frames, v.classes = append(v.frames, f), append(v.classes, cl)
	}
	for _, n := range h.Samples {
		var a []float32
		if n > 0 {
			a = make([]float32, n)
			binary.Read(r, binary.LittleEndian, a)
			for _, x := range a {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("%w: a sample is %v", ErrCorruptVoice, x)
				}
			}
		}
		v.audio = append(v.audio, a)
	}
	v.labels = h.Words
	if len(v.frames) > 0 {
		if v.words, err = v.refit(v.stats); err != nil {
			return nil, err
		}
		if v.adapted, err = v.adapt(); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// LoadVoice reads the voice kept at path (ReadVoice); when there is no
// file the error wraps fs.ErrNotExist.
func (c *Connected) LoadVoice(path string) (*ConnectedVoice, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := c.ReadVoice(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// LoadTaughtVoice reads the voice named name that the connected model m
// was taught in the voice folder dir (`rfstream enroll`); a voice never
// taught to m is an error that says how to teach it.
func LoadTaughtVoice(m *Model, dir, name string) (*ConnectedVoice, error) {
	c, err := NewConnected(m)
	if err != nil {
		return nil, err
	}
	path, err := c.VoicePath(dir, name)
	if err != nil {
		return nil, err
	}
	v, err := c.LoadVoice(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("voice %q has not been taught to this model (nothing in %s): rfstream enroll --voice %s", name, filepath.Dir(path), name)
	}
	return v, err
}

// Save writes the voice to path through a temporary file renamed over it
// (as VoiceSession.Save does).
func (v *ConnectedVoice) Save(path string) error { return saveAtomically(path, v) }
