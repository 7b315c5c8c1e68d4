package engine_test

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/linalg"
)

// A session written to a voice file and read back goes on exactly as the
// session that was never interrupted: written with nothing learnt yet,
// with a self-training running (which the reader runs again), and with a
// read-out in use.
func TestVoiceFileResumesTheSession(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 40, 310, 1.3)
	row := func(i int) []float32 { return slices.Clone(linalg.Row32(voice, i)) }
	// scores runs recordings from … to-1 through s and returns their scores.
	scores := func(s *engine.VoiceSession, from, to int) [][]float32 {
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

// A clone is the session as it was when cloned, however either goes on:
// cloned at the same cuts as above, the original goes on with the rest of
// its voice and the clone with another voice's recordings, taken in turn,
// and each scores them as an uninterrupted session of the same recordings
// does; the clone's file, written after the original has taken another
// recording, is the file the original would have written at the cut.
func TestClonedSessionsGoOnApart(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, 40, 310, 1.3)
	other, _ := glideVectors(t, c.Config, 40, 180, 0.8)
	// rows are the recordings of voice before cut and of x from cut on.
	rows := func(x blas32.General, cut int) [][]float32 {
		out := make([][]float32, 40)
		for i := range out {
			src := x
			if i < cut {
				src = voice
			}
			out[i] = linalg.Row32(src, i)
		}
		return out
	}
	score := func(s *engine.VoiceSession, row []float32) []float32 {
		v := slices.Clone(row)
		if err := s.Normalise(v, true); err != nil {
			t.Fatal(err)
		}
		return s.Score(v)
	}
	file := func(s *engine.VoiceSession) []byte {
		var b bytes.Buffer
		if _, err := s.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	uninterrupted := func(recs [][]float32) [][]float32 {
		s := c.NewVoiceSession()
		var out [][]float32
		for _, r := range recs {
			out = append(out, score(s, r))
		}
		return out
	}
	for _, cut := range []int{0, 5, 12, 16, 25} {
		own, cloned := rows(voice, cut), rows(other, cut)
		want := [][][]float32{uninterrupted(own), uninterrupted(cloned)}
		s := c.NewVoiceSession()
		for _, r := range own[:cut] {
			score(s, r)
		}
		atCut := file(s)
		clone := s.Clone()
		for i := cut; i < 40; i++ {
			for who, x := range []*engine.VoiceSession{s, clone} {
				if got := score(x, [][][]float32{own, cloned}[who][i]); !slices.Equal(got, want[who][i]) {
					t.Fatalf("cut at %d, recording %d of the %s: scores %v, uninterrupted %v", cut, i+1, []string{"original", "clone"}[who], got, want[who][i])
				}
				if who == 0 && i == cut && !bytes.Equal(file(clone), atCut) {
					t.Fatalf("cut at %d: the clone's file changed when the original went on", cut)
				}
			}
		}
	}
}

// heardSession is a session of the adaptable toy model that has
// committed n recordings of a voice (glideVectors with seed).
func heardSession(t *testing.T, n int, seed uint32) (*engine.WordClassifier, *engine.VoiceSession) {
	t.Helper()
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, _ := glideVectors(t, c.Config, n, seed, 1.3)
	s := c.NewVoiceSession()
	for i := range n {
		if err := s.Normalise(slices.Clone(linalg.Row32(voice, i)), true); err != nil {
			t.Fatal(err)
		}
	}
	return c, s
}

// Damaged voice files and files of another model are refused with errors
// that say so, never half-read.
func TestBadVoiceFilesAreRefused(t *testing.T) {
	c, s := heardSession(t, 12, 320)
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1
	// Open streams that committed more recordings than the session has,
	// or none (sealed as a writer would, so only the counts are wrong).
	withOpen := func(open map[string]int) []byte {
		c := s.Clone()
		c.Open = open
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for name, bad := range map[string][]byte{
		"empty":               nil,
		"truncated":           good[:len(good)-1],
		"flipped":             flipped,
		"a model":             []byte("RFSMODEL" + strings.Repeat("\x00", 60)),
		"open over n":         withOpen(map[string]int{"a": 7, "b": 6}),
		"open with none":      withOpen(map[string]int{"a": 0}),
		"open without a name": withOpen(map[string]int{"": 1}),
	} {
		if _, err := c.ReadVoiceSession(bad); !errors.Is(err, engine.ErrCorruptVoice) {
			t.Errorf("%s: %v, want a corrupted voice file error", name, err)
		}
	}
	other, _ := adaptableModel(t, []float64{1})
	oc, err := engine.NewWordClassifier(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oc.ReadVoiceSession(good); !errors.Is(err, engine.ErrOtherModel) {
		t.Errorf("another model's reader: %v, want ErrOtherModel", err)
	}
}

// The open streams' counts a caller keeps with a session (Open) are
// written with it, read back, and copied by Clone, not shared.
func TestVoiceFileKeepsTheOpenStreams(t *testing.T) {
	c, s := heardSession(t, 5, 350)
	s.Open = map[string]int{"ann.mic": 3, "ann.phone": 2}
	clone := s.Clone()
	s.Open["ann.mic"]++
	if clone.Open["ann.mic"] != 3 {
		t.Errorf("the clone's count changed with the original's: %v", clone.Open)
	}
	var b bytes.Buffer
	if _, err := clone.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := c.ReadVoiceSession(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(r.Open, clone.Open) {
		t.Errorf("read back %v, wrote %v", r.Open, clone.Open)
	}
}

func FuzzReadVoiceSession(f *testing.F) {
	m, _ := adaptableModel(f, []float64{0.5, 1})
	c, err := engine.NewWordClassifier(m)
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
	c, err := engine.NewWordClassifier(m)
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
