package rfstream_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/linalg"
)

// A session written to a voice file and read back goes on exactly as the
// session that was never interrupted: written with nothing learnt yet,
// with a self-training running (which the reader runs again), and with a
// read-out in use.
func TestVoiceFileResumesTheSession(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := rfstream.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 40, 310, 1.3)
	row := func(i int) []float32 { return slices.Clone(linalg.Row32(voice, i)) }
	// scores runs recordings from … to-1 through s and returns their scores.
	scores := func(s *rfstream.VoiceSession, from, to int) [][]float32 {
		var out [][]float32
		for i := from; i < to; i++ {
			v := row(i)
			if err := s.Normalise(v, true); err != nil {
				t.Fatal(err)
			}
			out = append(out, s.Score(v))
		}
		return out
	}
	whole := c.NewVoiceSession()
	want := scores(whole, 0, 40)
	if whole.AdaptedOn() != 20 {
		t.Fatalf("the uninterrupted session's read-out was self-trained on %d recordings, want 20", whole.AdaptedOn())
	}
	// 5: before any checkpoint; 12: the first checkpoint's rounds running;
	// 16: its read-out in use; 25: the second's running.
	for _, cut := range []int{0, 5, 12, 16, 25} {
		s := c.NewVoiceSession()
		scores(s, 0, cut)
		var b bytes.Buffer
		if _, err := s.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		r, err := c.ReadVoiceSession(b.Bytes())
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if r.Recordings() != cut || r.AdaptedOn() != s.AdaptedOn() {
			t.Fatalf("cut at %d: read %d recordings adapted on %d, wrote %d and %d", cut, r.Recordings(), r.AdaptedOn(), s.Recordings(), s.AdaptedOn())
		}
		got := scores(r, cut, 40)
		for i, g := range got {
			if !slices.Equal(g, want[cut+i]) {
				t.Fatalf("cut at %d, recording %d: scores %v after reading, %v uninterrupted", cut, cut+i+1, g, want[cut+i])
			}
		}
	}
}

// Damaged voice files and files of another model are refused with errors
// that say so, never half-read.
func TestBadVoiceFilesAreRefused(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := rfstream.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 12, 320, 1.3)
	s := c.NewVoiceSession()
	for i := range 12 {
		if err := s.Normalise(slices.Clone(linalg.Row32(voice, i)), true); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)-1],
		"flipped":   flipped,
		"a model":   []byte("RFSMODEL" + strings.Repeat("\x00", 60)),
	} {
		if _, err := c.ReadVoiceSession(bad); !errors.Is(err, rfstream.ErrCorruptVoice) {
			t.Errorf("%s: %v, want a corrupted voice file error", name, err)
		}
	}
	other, _ := adaptableModel(t, []float64{1})
	oc, err := rfstream.NewWordClassifier(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oc.ReadVoiceSession(good); !errors.Is(err, rfstream.ErrOtherModel) {
		t.Errorf("another model's reader: %v, want ErrOtherModel", err)
	}
}

func FuzzReadVoiceSession(f *testing.F) {
	m, _ := adaptableModel(f, []float64{0.5, 1})
	c, err := rfstream.NewWordClassifier(m)
	if err != nil {
		f.Fatal(err)
	}
	voice, _ := glideVectors(f, c.Config, 12, 330, 1.3)
	for _, n := range []int{0, 3, 12} {
		s := c.NewVoiceSession()
		for i := range n {
			s.Normalise(slices.Clone(linalg.Row32(voice, i)), true)
		}
		var b bytes.Buffer
		s.WriteTo(&b)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := c.ReadVoiceSession(b)
		if err != nil {
			return
		}
		// What was read writes back to the same bytes.
		var w bytes.Buffer
		if _, err := s.WriteTo(&w); err != nil || !bytes.Equal(w.Bytes(), b) {
			t.Fatalf("read then written: %v, %d bytes differ from %d", err, w.Len(), len(b))
		}
	})
}

// A session that did not keep its recordings (SelfTrain off when they
// came) and is told to self-train later says it cannot at its checkpoint,
// instead of training on some of them or failing harder.
func TestSelfTrainingTurnedOnLateIsRefused(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := rfstream.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 5, 340, 1.3)
	s := c.NewVoiceSession()
	s.SelfTrain = false
	for i := range 10 {
		if i == 5 {
			s.SelfTrain = true
		}
		err := s.Normalise(slices.Clone(linalg.Row32(voice, i)), true)
		if (err != nil) != (i == 9) || (err != nil && !strings.Contains(err.Error(), "kept 5 of its 10 recordings")) {
			t.Fatalf("recording %d: %v", i+1, err)
		}
	}
}
