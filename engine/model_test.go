package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/maxout"
)

func testModel() *Model {
	mp, _ := maxout.New(4, maxout.Params{M: 3, Q: 2}, 9)
	w := linalg.NewGeneral32(3, 2)
	for i := range w.Data {
		w.Data[i] = float32(i) - 2.5
	}
	return &Model{
		Task:   "toy",
		Labels: []string{"a", "b"},
		Input:  []byte(`{"normalize":"unit"}`),
		Map:    mp.Recipe(),
		RLS:    &classifier.RLS{Dim: 3, Classes: 2, Lambda: 0.5, W: w},
		Blobs:  map[string]blas32.General{"prior": {Rows: 1, Cols: 2, Stride: 2, Data: []float32{0.25, 0.75}}},
		Meta:   map[string]any{"n": 10.0},
	}
}

func encode(t *testing.T, m *Model) []byte {
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestModelRoundTrip(t *testing.T) {
	m := testModel()
	path := filepath.Join(t.TempDir(), "m.rfm")
	if err := SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Task != "toy" || got.Labels[1] != "b" || string(got.Input) != `{"normalize":"unit"}` || got.Meta["n"] != 10.0 {
		t.Fatalf("header fields lost: %+v", got)
	}
	if got.RLS.Lambda != 0.5 || got.RLS.Dim != 3 || got.RLS.Classes != 2 {
		t.Fatalf("read-out header %+v", got.RLS)
	}
	for i, v := range m.RLS.W.Data {
		if got.RLS.W.Data[i] != v {
			t.Fatalf("weight %d: %v, want %v", i, got.RLS.W.Data[i], v)
		}
	}
	if p := got.Blobs["prior"]; p.Cols != 2 || p.Data[1] != 0.75 {
		t.Fatalf("blob lost: %+v", p)
	}
	fm, err := got.FeatureMap()
	if err != nil {
		t.Fatal(err)
	}
	// The rebuilt map computes the same features as the original.
	orig, _ := features.Build(m.Map)
	x := blas32.General{Rows: 1, Cols: 4, Stride: 4, Data: []float32{0.5, -0.5, 0.5, 0.5}}
	a, b := linalg.NewGeneral32(1, 3), linalg.NewGeneral32(1, 3)
	fm.Apply(a, x)
	orig.Apply(b, x)
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			t.Fatal("rebuilt map differs")
		}
	}
}

func TestCorruptModelsAreRefusedClearly(t *testing.T) {
	good := encode(t, testModel())
	flip := append([]byte{}, good...)
	flip[len(flip)/2] ^= 1
	version := append([]byte{}, good...)
	binary.LittleEndian.PutUint32(version[8:], 99)
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"empty":     {nil, "too short"},
		"truncated": {good[:len(good)-7], "checksum"},
		"flipped":   {flip, "checksum"},
		"magic":     {append([]byte("NOTMODEL"), good[8:]...), "bad magic"},
		"version":   {version, "version 99"},
	}
	for name, c := range cases {
		_, err := DecodeModel(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, c.want)
		}
		if name != "version" && !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error does not wrap ErrCorrupt", name)
		}
	}
	if _, err := LoadModel(filepath.Join(t.TempDir(), "missing.rfm")); err == nil {
		t.Error("missing file loaded")
	}
}

// resealed re-encodes a model file with its JSON header changed by edit and
// a fresh checksum: what a careless or hostile writer could produce.
func resealed(t *testing.T, good []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	hlen := int(binary.LittleEndian.Uint32(good[12:]))
	var h map[string]any
	if err := json.Unmarshal(good[16:16+hlen], &h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte{}, good[:12]...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = append(out, js...)
	out = append(out, good[16+hlen:len(good)-sha256.Size]...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

func TestSealedModelsWithImpossibleBlobsAreRefused(t *testing.T) {
	good := encode(t, testModel())
	if _, err := DecodeModel(resealed(t, good, func(map[string]any) {})); err != nil {
		t.Fatalf("resealing unchanged: %v", err)
	}
	for name, dims := range map[string][2]float64{
		"product wraps to zero": {1 << 32, 1 << 32},
		"negative":              {-1, 4},
		"too many values":       {1 << 16, 1 << 15},
	} {
		b := resealed(t, good, func(h map[string]any) {
			blob := h["blobs"].([]any)[0].(map[string]any)
			blob["rows"], blob["cols"] = dims[0], dims[1]
		})
		if _, err := DecodeModel(b); err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "claims") {
			t.Errorf("%s: error %v, want a corrupt blob claim", name, err)
		}
	}
}

func FuzzDecodeModel(f *testing.F) {
	var b bytes.Buffer
	testModel().Write(&b)
	f.Add(b.Bytes())
	f.Add([]byte("RFSMODEL\x01\x00\x00\x00"))
	adaptable := testModel()
	adaptable.Adapt = &Adaptation{VoiceNorm: true, VoiceMean: []float32{0.5, -1}, Rounds: []float64{0.5, 1}, Lambda: 0.1}
	b.Reset()
	adaptable.Write(&b)
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		// As read, and resealed with a fresh checksum, so the fuzzer gets
		// past the checksum into the header and the blobs.
		resealed := data
		if len(data) >= sha256.Size {
			body := data[:len(data)-sha256.Size]
			sum := sha256.Sum256(body)
			resealed = append(append([]byte{}, body...), sum[:]...)
		}
		for _, in := range [][]byte{data, resealed} {
			m, err := DecodeModel(in)
			if err != nil {
				continue
			}
			// Whatever decodes must re-encode to a model that decodes the same.
			var out bytes.Buffer
			if err := m.Write(&out); err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeModel(out.Bytes()); err != nil {
				t.Fatalf("re-encoded model does not decode: %v", err)
			}
		}
	})
}
