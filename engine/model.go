package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
)

// FormatVersion is the newest model file format this build reads and
// writes. Version 2 adds Model.Adapt; a model without it is still written
// as version 1, so older builds go on reading it, and an adaptable model
// is refused by them as a newer format, not as a damaged file. Other
// versions are refused with an error that says so.
const FormatVersion = 2

// formatVersion is the oldest version that can hold m.
func (m *Model) formatVersion() uint32 {
	if m.Adapt != nil {
		return 2
	}
	return 1
}

// modelFile is the frame of a model file.
var modelFile = envelope{magic: [8]byte{'R', 'F', 'S', 'M', 'O', 'D', 'E', 'L'}, what: "model", corrupt: ErrCorrupt}

// maxHeader and maxBlob bound what a file may claim before we allocate.
const (
	maxHeader = 16 << 20
	maxBlob   = 1 << 30 // float32 values
)

// Model is everything needed to run a trained recogniser: the recipe of its
// feature map (not the projections: they are regenerated from the seed), the
// learned read-out, the labels, and task-owned configuration of the input
// stage and the decoder.
type Model struct {
	Task   string   `json:"task"`
	Labels []string `json:"labels"`
	// Input is the task's input configuration (normalisation, frontend).
	Input json.RawMessage `json:"input,omitempty"`
	// Map is the recipe of the feature map.
	Map features.Recipe `json:"map"`
	// RLS is the linear read-out, when the model has one.
	RLS *classifier.RLS `json:"-"`
	// Decoder is the decoder's configuration, when the task has one.
	Decoder json.RawMessage `json:"decoder,omitempty"`
	// Adapt says how an isolated-word model adapts to a new voice (nil:
	// it does not; see Adaptation).
	Adapt *Adaptation `json:"adapt,omitempty"`
	// Blobs holds further named matrices (e.g. softmax weights, priors).
	Blobs map[string]blas32.General `json:"-"`
	// Meta is free-form provenance: training set, λ, error on held-out data.
	Meta map[string]any `json:"meta,omitempty"`
}

type blobHeader struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

type fileHeader struct {
	Model
	RLSLambda float64      `json:"rls_lambda,omitempty"`
	Blobs     []blobHeader `json:"blobs"`
}

const rlsBlob = "rls.W"

// Metadata keys a connected model's training writes and its users read.
const (
	// PausesMeta names how the pauses of the model's training strings were
	// rendered (datasets.PauseRendering): a model trained on pauses
	// rendered otherwise decodes today's strings worse.
	PausesMeta = "string_pauses"
	// FillerMeta says whether the model was trained with a filler unit
	// ("none", or on which voices); a model without it predates the
	// filler, and rejects no word.
	FillerMeta = "filler"
)

// Write encodes m: magic, version, header length and JSON header, the blobs
// as little-endian float32, then the SHA-256 of everything before it.
func (m *Model) Write(w io.Writer) error {
	h := fileHeader{Model: *m}
	blobs := map[string]blas32.General{}
	for k, v := range m.Blobs {
		if k == rlsBlob {
			return fmt.Errorf("rfstream: blob name %q is reserved", k)
		}
		blobs[k] = v
	}
	if m.RLS != nil {
		blobs[rlsBlob] = m.RLS.W
		h.RLSLambda = m.RLS.Lambda
	}
	names := make([]string, 0, len(blobs))
	for k := range blobs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		h.Blobs = append(h.Blobs, blobHeader{Name: k, Rows: blobs[k].Rows, Cols: blobs[k].Cols})
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("rfstream: encoding model header: %w", err)
	}
	var buf bytes.Buffer
	modelFile.begin(&buf, m.formatVersion(), hj)
	var f [4]byte
	for _, k := range names {
		b := blobs[k]
		// A blob without columns holds no values whatever its rows (and its
		// data may be empty: rows beyond the first have no offset in it).
		for i := 0; i < b.Rows && b.Cols > 0; i++ {
			for _, v := range b.Data[i*b.Stride : i*b.Stride+b.Cols] {
				binary.LittleEndian.PutUint32(f[:], math.Float32bits(v))
				buf.Write(f[:])
			}
		}
	}
	modelFile.seal(&buf)
	_, err = w.Write(buf.Bytes())
	return err
}

// SaveModel writes m to path atomically (a temporary file renamed over it).
func SaveModel(path string, m *Model) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".model-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := m.Write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// LoadModel reads and verifies the model file at path.
func LoadModel(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := DecodeModel(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ErrCorrupt is wrapped by every error about a damaged model file.
var ErrCorrupt = errors.New("corrupted model file")

// DecodeModel parses and verifies an encoded model.
func DecodeModel(b []byte) (*Model, error) {
	var h fileHeader
	version, data, err := modelFile.open(b, func(version uint32) error {
		if version < 1 || version > FormatVersion {
			return fmt.Errorf("model format version %d; this build reads versions 1 to %d (retrain or use a matching rfstream)", version, FormatVersion)
		}
		return nil
	}, &h)
	if err != nil {
		return nil, err
	}
	m := h.Model
	if m.Adapt != nil && version < 2 {
		// Builds from before adaptable models were versioned (Nov 23)
		// wrote them as version 1; say so rather than only "corrupted".
		return nil, fmt.Errorf("%w: a version %d file with an adaptation (adaptable models are version 2; one written by an rfstream from before Nov 23 must be trained again)", ErrCorrupt, version)
	}
	m.Blobs = nil
	off := 0
	for _, bh := range h.Blobs {
		// Each side is bounded before the product, which could otherwise wrap
		// around to a small number for a crafted header with a valid checksum.
		if bh.Rows < 0 || bh.Cols < 0 || bh.Rows > maxBlob || bh.Cols > maxBlob || bh.Rows*bh.Cols > maxBlob {
			return nil, fmt.Errorf("%w: blob %q claims %d×%d values", ErrCorrupt, bh.Name, bh.Rows, bh.Cols)
		}
		n := bh.Rows * bh.Cols
		if off+4*n > len(data) {
			return nil, fmt.Errorf("%w: blob %q runs past the end of the data", ErrCorrupt, bh.Name)
		}
		g := blas32.General{Rows: bh.Rows, Cols: bh.Cols, Stride: max(bh.Cols, 1), Data: make([]float32, n)}
		for i := range g.Data {
			g.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[off+4*i:]))
		}
		off += 4 * n
		if bh.Name == rlsBlob {
			m.RLS = &classifier.RLS{Dim: bh.Rows, Classes: bh.Cols, Lambda: h.RLSLambda, W: g}
			continue
		}
		if m.Blobs == nil {
			m.Blobs = map[string]blas32.General{}
		}
		m.Blobs[bh.Name] = g
	}
	if off != len(data) {
		return nil, fmt.Errorf("%w: %d bytes after the last blob", ErrCorrupt, len(data)-off)
	}
	if m.RLS != nil && len(m.Labels) != 0 && m.Task != TaskConnected && m.Task != TaskPhones && m.RLS.Classes != len(m.Labels) {
		// (A connected model's read-out scores HMM states, not its words.)
		return nil, fmt.Errorf("%w: read-out has %d classes but %d labels", ErrCorrupt, m.RLS.Classes, len(m.Labels))
	}
	return &m, nil
}

// FeatureMap rebuilds the model's feature map from its recipe and checks
// that it fits the read-out.
func (m *Model) FeatureMap() (features.Map, error) {
	fm, err := features.Load(m.Map)
	if err != nil {
		return nil, err
	}
	if m.RLS != nil && fm.OutDim() != m.RLS.Dim {
		return nil, fmt.Errorf("rfstream: map gives %d features but the read-out expects %d", fm.OutDim(), m.RLS.Dim)
	}
	return fm, nil
}
