package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/linalg"
)

// A voice file of version 1 (no recordings kept) is still read: its words
// are learnt, and no strings are made of them, since nothing to make them
// of was kept.
func TestConnectedVoiceFileVersion1IsRead(t *testing.T) {
	m, err := LoadModel("../testdata/tones-rls.rfm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.NewVoice()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"lo", "hi"} {
		if err := v.Teach(&frontend.Audio{Rate: 8000, Samples: fixtures.OtherVoiceTones([]string{w}, uint32(50+i))}, w); err != nil {
			t.Fatal(err)
		}
	}
	// Version 1: the header without sample counts, the frames and classes.
	model, err := c.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	h := connectedVoiceHeader{Model: model, Dim: c.Input.Audio.Dim(), Words: v.labels}
	for _, f := range v.frames {
		h.Frames = append(h.Frames, f.Rows)
	}
	hj, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	connectedVoiceFile.begin(&buf, 1, hj)
	for i, f := range v.frames {
		for r := range f.Rows {
			binary.Write(&buf, binary.LittleEndian, linalg.Row32(f, r))
		}
		cl := make([]int32, len(v.classes[i]))
		for j, k := range v.classes[i] {
			cl[j] = int32(k)
		}
		binary.Write(&buf, binary.LittleEndian, cl)
	}
	connectedVoiceFile.seal(&buf)
	r, err := c.ReadVoice(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Words(), []string{"lo", "hi"}) || len(r.audio) != 2 || r.audio[0] != nil {
		t.Fatalf("read back %q with %d recordings kept", r.Words(), len(r.audio))
	}
	x, err := c.Frames(&frontend.Audio{Rate: 8000, Samples: fixtures.OtherVoiceTones([]string{"lo", "hi", "lo"}, 7)})
	if err != nil {
		t.Fatal(err)
	}
	got, words := r.Connected().LogLikelihoods(x), v.words.LogLikelihoods(x)
	if !slices.Equal(got.Data, words.Data) {
		t.Error("a version 1 voice does not hear as its words alone")
	}
	if all := v.Connected().LogLikelihoods(x); slices.Equal(all.Data, words.Data) {
		t.Error("the voice taught now (with its recordings) learnt no strings")
	}
}
