package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
)

// A voice file keeps a VoiceSession across restarts: magic, version,
// header length and JSON header, then the session's numbers (the running
// sum of recording means as float64, the committed recordings' raw vectors,
// the read-out in use, a running self-training's voice estimate, all
// little-endian), then the SHA-256 of everything before it. The header
// names the model the session belongs to by the SHA-256 of its encoding,
// so a session is never applied to another model.
var voiceFile = envelope{magic: [8]byte{'R', 'F', 'S', 'V', 'O', 'I', 'C', 'E'}, what: "voice file", corrupt: ErrCorruptVoice}

const (
	voiceFormatVersion       = 1
	voiceTaughtFormatVersion = 2
)

// ErrCorruptVoice is wrapped by every error about a damaged voice file.
var ErrCorruptVoice = errors.New("corrupted voice file")

// ErrOtherModel is returned for a voice file written for another model.
var ErrOtherModel = errors.New("voice file belongs to another model")

type voiceHeader struct {
	Model     string  `json:"model"` // hex SHA-256 of the model's encoding
	Prior     float64 `json:"prior"`
	SelfTrain bool    `json:"self_train"`
	N         int     `json:"n"`
	AdaptedOn int     `json:"adapted_on"`
	Mels      int     `json:"mels"`
	Dim       int     `json:"dim"`     // raw vector length
	Rows      int     `json:"rows"`    // raw vectors kept
	ReadOut   bool    `json:"readout"` // a read-out follows the vectors
	// PendingOn is the checkpoint whose self-training had not been taken
	// up when the file was written (0: none); it runs again on loading,
	// on the same recordings with the same estimate.
	PendingOn int `json:"pending_on"`
	// Open is VoiceSession.Open. Left out when empty, so that a file
	// written with no stream open reads in builds from before it.
	Open map[string]int `json:"open,omitempty"`
	// Taught are the classes of the words the voice was taught
	// (VoiceSession.Teach); their word vectors come last. A file with
	// taught words is format version 2, which older builds refuse by
	// name rather than lose the words.
	Taught []int `json:"taught,omitempty"`
}

// modelPrint is a WordClassifier's model fingerprint (Fingerprint).
type modelPrint struct {
	once sync.Once
	sum  string
	err  error
}

// Fingerprint is the hex SHA-256 of the model's encoding: what a voice
// file names its model by.
func (c *WordClassifier) Fingerprint() (string, error) { return c.print.of(c.Model) }

// of computes m's fingerprint on first use.
func (p *modelPrint) of(m *Model) (string, error) {
	p.once.Do(func() {
		h := sha256.New()
		if err := m.Write(h); err != nil {
			p.err = err
			return
		}
		p.sum = hex.EncodeToString(h.Sum(nil))
	})
	return p.sum, p.err
}

// WriteTo encodes the session, a running self-training included (it is
// not waited for: the file records what it trains on, and loading runs it
// again). Like every VoiceSession method it must not run concurrently with
// the session's other methods.
func (s *VoiceSession) WriteTo(w io.Writer) (int64, error) {
	model, err := s.c.Fingerprint()
	if err != nil {
		return 0, err
	}
	h := voiceHeader{Model: model, Prior: s.Prior, SelfTrain: s.SelfTrain, N: s.n, AdaptedOn: s.adaptedOn,
		Mels: len(s.sum), Dim: s.c.Config.Dim(), Rows: len(s.raw), ReadOut: s.readOut != nil, Open: s.Open, Taught: s.taughtLabels}
	if p := s.pending; p != nil {
		h.PendingOn = p.on
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	version := uint32(voiceFormatVersion)
	if len(s.taught) > 0 {
		version = voiceTaughtFormatVersion
	}
	var buf bytes.Buffer
	voiceFile.begin(&buf, version, hj)
	binary.Write(&buf, binary.LittleEndian, s.sum)
	for _, r := range s.raw {
		binary.Write(&buf, binary.LittleEndian, r)
	}
	if s.readOut != nil {
		w := s.readOut.W
		for i := range w.Rows {
			binary.Write(&buf, binary.LittleEndian, w.Data[i*w.Stride:i*w.Stride+w.Cols])
		}
	}
	if p := s.pending; p != nil {
		binary.Write(&buf, binary.LittleEndian, p.est)
	}
	for _, r := range s.taught {
		binary.Write(&buf, binary.LittleEndian, r)
	}
	voiceFile.seal(&buf)
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}

// ReadVoiceSession decodes a session WriteTo wrote for this model. A
// self-training that was running when it was written starts again.
func (c *WordClassifier) ReadVoiceSession(b []byte) (*VoiceSession, error) {
	var h voiceHeader
	version, data, err := voiceFile.open(b, func(v uint32) error {
		if v != voiceFormatVersion && v != voiceTaughtFormatVersion {
			return fmt.Errorf("voice file format version %d; this build reads versions %d and %d", v, voiceFormatVersion, voiceTaughtFormatVersion)
		}
		return nil
	}, &h)
	if err != nil {
		if bytes.HasPrefix(b, connectedVoiceFile.magic[:]) {
			return nil, fmt.Errorf("%w: a connected model's voice file, read with a word model", ErrOtherModel)
		}
		return nil, err
	}
	if (version == voiceTaughtFormatVersion) != (len(h.Taught) > 0) {
		return nil, fmt.Errorf("%w: format version %d with %d taught words", ErrCorruptVoice, version, len(h.Taught))
	}
	model, err := c.Fingerprint()
	if err != nil {
		return nil, err
	}
	if h.Model != model {
		return nil, fmt.Errorf("%w (model %.12s…, this one is %.12s…)", ErrOtherModel, h.Model, model)
	}
	if err := c.checkVoiceHeader(h); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptVoice, err)
	}
	rls := c.Model.RLS
	want := 8*h.Mels + 4*h.Rows*h.Dim
	if h.ReadOut {
		want += 4 * rls.Dim * rls.Classes
	}
	if h.PendingOn > 0 {
		want += 4 * h.Mels
	}
	want += 4 * len(h.Taught) * h.Dim
	if len(data) != want {
		return nil, fmt.Errorf("%w: %d bytes of values, the header needs %d", ErrCorruptVoice, len(data), want)
	}
	s := c.NewVoiceSession()
	s.Prior, s.SelfTrain, s.n, s.adaptedOn, s.Open = h.Prior, h.SelfTrain, h.N, h.AdaptedOn, h.Open
	r := bytes.NewReader(data)
	binary.Read(r, binary.LittleEndian, s.sum)
	f32 := func(n int) ([]float32, error) {
		v := make([]float32, n)
		binary.Read(r, binary.LittleEndian, v)
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: a value is %v", ErrCorruptVoice, x)
			}
		}
		return v, nil
	}
	for _, x := range s.sum {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: the voice's sum is %v", ErrCorruptVoice, x)
		}
	}
	for range h.Rows {
		v, err := f32(h.Dim)
		if err != nil {
			return nil, err
		}
		s.raw = append(s.raw, v)
	}
	if h.ReadOut {
		w, err := f32(rls.Dim * rls.Classes)
		if err != nil {
			return nil, err
		}
		s.readOut = &classifier.RLS{Dim: rls.Dim, Classes: rls.Classes, Lambda: rls.Lambda,
			W: blas32.General{Rows: rls.Dim, Cols: rls.Classes, Stride: rls.Classes, Data: w}}
	}
	var pending *sessionRefit
	if h.PendingOn > 0 {
		est, err := f32(h.Mels)
		if err != nil {
			return nil, err
		}
		pending = &sessionRefit{on: h.PendingOn, applyAt: h.PendingOn + h.PendingOn/2, est: est}
	}
	for _, l := range h.Taught {
		v, err := f32(h.Dim)
		if err != nil {
			return nil, err
		}
		if err := s.Teach(v, c.Model.Labels[l]); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorruptVoice, err)
		}
	}
	if pending != nil {
		s.runSelfTrain(pending)
	}
	return s, nil
}

// checkVoiceHeader checks a voice file's header against the model and
// itself, before anything is allocated from it.
func (c *WordClassifier) checkVoiceHeader(h voiceHeader) error {
	mels, dim := c.Config.Audio.Mels, c.Config.Dim()
	switch {
	case h.Mels != mels || h.Dim != dim:
		return fmt.Errorf("vectors of %d values over %d mel bands, the model's have %d over %d", h.Dim, h.Mels, dim, mels)
	case math.IsNaN(h.Prior) || h.Prior < 0 || h.Prior > 1e9:
		return fmt.Errorf("prior %v", h.Prior)
	case h.N < 0 || h.N > 1<<40:
		return fmt.Errorf("%d recordings", h.N)
	case h.Rows < 0 || h.Rows > min(h.N, LastSessionCheckpoint) || (h.Rows > 0 && !h.SelfTrain):
		return fmt.Errorf("%d recordings' vectors kept of %d (self-training %v)", h.Rows, h.N, h.SelfTrain)
	case h.AdaptedOn < 0 || h.AdaptedOn > h.N || (h.AdaptedOn > 0 && !isSessionCheckpoint(h.AdaptedOn)):
		return fmt.Errorf("read-out self-trained on %d of %d recordings", h.AdaptedOn, h.N)
	case h.ReadOut != (h.AdaptedOn > 0):
		return fmt.Errorf("read-out present %v, self-trained on %d recordings", h.ReadOut, h.AdaptedOn)
	case h.PendingOn < 0 || (h.PendingOn > 0 && (!isSessionCheckpoint(h.PendingOn) || h.PendingOn > h.Rows ||
		h.PendingOn <= h.AdaptedOn || h.N >= h.PendingOn+h.PendingOn/2 || !c.CanAdapt())):
		return fmt.Errorf("a self-training on %d recordings pending at %d (%d vectors kept, read-out from %d)", h.PendingOn, h.N, h.Rows, h.AdaptedOn)
	}
	if len(h.Taught) > MaxTaught {
		return fmt.Errorf("%d taught words (at most %d)", len(h.Taught), MaxTaught)
	}
	for _, l := range h.Taught {
		if l < 0 || l >= len(c.Model.Labels) || c.Model.Labels[l] == FillerLabel {
			return fmt.Errorf("taught class %d of %d", l, len(c.Model.Labels))
		}
	}
	// Each recording was committed by one stream.
	committed := 0
	for stream, n := range h.Open {
		if stream == "" || len(stream) > maxOpenStreamName || n <= 0 || n > h.N-committed {
			return fmt.Errorf("open stream %.40q with %d recordings, of %d in all", stream, n, h.N)
		}
		committed += n
	}
	return nil
}

// maxOpenStreamName bounds the names in a voice file's open streams: far
// above any stream name a pipeline takes (a voice and a stream of at most
// 128 bytes each).
const maxOpenStreamName = 1024

// VoicePath is where a voice of this model named name is kept under dir
// (serve --voices): in a folder named by the model's fingerprint (its
// first 16 hex digits), so each model keeps voices of its own, as the
// name escaped for a file name, or as the name's SHA-256 when escaping
// would make it longer than file systems allow.
func (c *WordClassifier) VoicePath(dir, name string) (string, error) {
	model, err := c.Fingerprint()
	if err != nil {
		return "", err
	}
	return voicePathIn(dir, model, name), nil
}

// voicePathIn is the path of the voice named name of the model whose
// fingerprint is model, in the voice directory dir.
func voicePathIn(dir, model, name string) string {
	return filepath.Join(dir, model[:16], VoiceFileName(name))
}

// VoiceFileName is the file a voice named name is kept in, in each model's
// folder (VoicePath).
func VoiceFileName(name string) string {
	file := url.PathEscape(name) + ".rfv"
	if len(file) > 200 {
		sum := sha256.Sum256([]byte(name))
		file = "sha256-" + hex.EncodeToString(sum[:]) + ".rfv"
	}
	return file
}

// RemoveVoiceFiles deletes what is kept of the voice named name in one
// model's folder of a voice directory: its voice file and the copies of
// it set aside as unreadable (name.rfv.bad, name.rfv.bad.2, …, which hold
// the voice's numbers too). It reports how many files it removed; a
// folder that does not exist holds none.
func RemoveVoiceFiles(folder, name string) (int, error) {
	entries, err := os.ReadDir(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	file, removed := VoiceFileName(name), 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), file)
		if !ok || e.IsDir() || !(rest == "" || rest == ".bad" || rest == ".lock" || isBadCopy(rest)) {
			continue
		}
		if err := os.Remove(filepath.Join(folder, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// isBadCopy reports whether suffix is ".bad.N" for a number N.
func isBadCopy(suffix string) bool {
	n, ok := strings.CutPrefix(suffix, ".bad.")
	if !ok || n == "" {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// LoadVoiceSession reads the voice session kept at path (ReadVoiceSession);
// when there is no file the error wraps fs.ErrNotExist.
func (c *WordClassifier) LoadVoiceSession(path string) (*VoiceSession, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := c.ReadVoiceSession(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Save writes the session to path through a temporary file renamed over
// it, so a crash leaves the old file or the new one, never half of one.
// It makes path's folder (mode 0700: a voice file is what a voice said, in
// numbers) when it is missing.
func (s *VoiceSession) Save(path string) error { return saveAtomically(path, s) }

// saveAtomically writes v to path through a temporary file in the same
// folder renamed over it, so a crash or an error halfway leaves the old
// file or the new one, never half of one. It makes path's folder (mode
// 0700: a voice file is what a voice said, in numbers) when it is missing.
func saveAtomically(path string, v io.WriterTo) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".voice-*")
	if err != nil {
		return err
	}
	_, err = v.WriteTo(f) // one write of the encoded voice
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
