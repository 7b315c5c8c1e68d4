package engine_test

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// voiceString is fixtures.OtherVoiceTones as audio: a voice the tone
// model hears wrong until taught.
func voiceString(words []string, seed uint32) []float32 { return fixtures.OtherVoiceTones(words, seed) }

// pause is a stretch of the tone words' background.
func pause(sec float64, seed uint32) []float32 {
	out := make([]float32, int(sec*8000))
	lcg := seed
	for i := range out {
		lcg = lcg*1664525 + 1013904223
		out[i] = fixtures.ToneFloor * (float32(lcg>>8)/float32(1<<24) - 0.5)
	}
	return out
}

func TestTaughtConnectedVoiceHearsTheVoice(t *testing.T) {
	c, err := engine.NewConnected(loadTones(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	str := []string{"lo", "hi", "lo", "lo", "hi"}
	a := &frontend.Audio{Rate: 8000, Samples: voiceString(str, 7)}
	before, err := c.Recognize(a)
	if err != nil {
		t.Fatal(err)
	}
	if before.Text == strings.Join(str, " ") {
		t.Fatalf("the model already hears the voice's string (%q): the test needs a voice it hears wrong", before.Text)
	}
	v, err := c.NewVoice()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"lo", "hi"} {
		if err := v.Teach(&frontend.Audio{Rate: 8000, Samples: voiceString([]string{w}, uint32(50+i))}, w); err != nil {
			t.Fatal(err)
		}
	}
	after, err := v.Connected().Recognize(a)
	if err != nil {
		t.Fatal(err)
	}
	if after.Text != strings.Join(str, " ") {
		t.Errorf("taught the voice's two words, it heard %q, said %q (before: %q)", after.Text, strings.Join(str, " "), before.Text)
	}
	if again, _ := c.Recognize(a); again.Text != before.Text {
		t.Errorf("teaching a voice changed the model's own recogniser: %q, was %q", again.Text, before.Text)
	}

	// The voice's file gives the same recogniser; another model refuses it.
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := c.ReadVoice(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := r.Connected().Recognize(a); again.Text != after.Text || r.Taught() != 2 {
		t.Errorf("read back: heard %q from %d taught words, want %q from 2", again.Text, r.Taught(), after.Text)
	}
	other, err := engine.NewConnected(loadTones(t, "softmax"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ReadVoice(b.Bytes()); !errors.Is(err, engine.ErrOtherModel) {
		t.Errorf("another model read the voice: %v", err)
	}
	if _, err := other.NewVoice(); err == nil {
		t.Error("a softmax model was given a voice to teach")
	}
	flipped := slices.Clone(b.Bytes())
	flipped[len(flipped)/2] ^= 1
	if _, err := c.ReadVoice(flipped); !errors.Is(err, engine.ErrCorruptVoice) {
		t.Errorf("a damaged file: %v", err)
	}
	wc, _ := heardSession(t, 1, 1)
	if _, err := wc.ReadVoiceSession(b.Bytes()); !errors.Is(err, engine.ErrOtherModel) {
		t.Errorf("a word model read a connected voice: %v", err)
	}
}

// Copies of a taught recording are taught with it as the same word: the
// voice holds one word per recording, hears the string, and reads back
// the same from its file.
func TestTaughtCopiesAreTheSameWord(t *testing.T) {
	c, err := engine.NewConnected(loadTones(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.NewVoice()
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	v.Copies = func(a *frontend.Audio) ([]*frontend.Audio, error) {
		made++
		louder := &frontend.Audio{Rate: a.Rate, Samples: slices.Clone(a.Samples)}
		for i := range louder.Samples {
			louder.Samples[i] *= 1.5
		}
		return []*frontend.Audio{louder}, nil
	}
	for i, w := range []string{"lo", "hi"} {
		if err := v.Teach(&frontend.Audio{Rate: 8000, Samples: voiceString([]string{w}, uint32(50+i))}, w); err != nil {
			t.Fatal(err)
		}
	}
	if made != 2 || v.Taught() != 2 || !slices.Equal(v.Words(), []string{"lo", "hi"}) {
		t.Fatalf("copies made %d times, the voice holds %d words %v: want 2, [lo hi]", made, v.Taught(), v.Words())
	}
	str := []string{"lo", "hi", "lo", "lo", "hi"}
	a := &frontend.Audio{Rate: 8000, Samples: voiceString(str, 7)}
	heard, err := v.Connected().Recognize(a)
	if err != nil {
		t.Fatal(err)
	}
	if heard.Text != strings.Join(str, " ") {
		t.Errorf("taught two words and their copies, heard %q, said %q", heard.Text, strings.Join(str, " "))
	}
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := c.ReadVoice(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Connected().Recognize(a)
	if err != nil {
		t.Fatal(err)
	}
	if again.Text != heard.Text || r.Taught() != 2 {
		t.Errorf("read back: heard %q from %d words, want %q from 2", again.Text, r.Taught(), heard.Text)
	}
}

// A voice is also taught strings made of its words: they change its
// read-out but are not words it holds, and its file, which keeps the
// recordings, reads back the same recogniser.
func TestTaughtVoiceLearnsStringsOfItsWords(t *testing.T) {
	c, err := engine.NewConnected(loadTones(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	teach := func(strings int) *engine.ConnectedVoice {
		v, err := c.NewVoice()
		if err != nil {
			t.Fatal(err)
		}
		v.Strings = strings
		for i, w := range []string{"lo", "hi"} {
			if err := v.Teach(&frontend.Audio{Rate: 8000, Samples: voiceString([]string{w}, uint32(50+i))}, w); err != nil {
				t.Fatal(err)
			}
		}
		return v
	}
	v, plain := teach(engine.TaughtStrings), teach(0)
	if v.Taught() != 2 || !slices.Equal(v.Words(), []string{"lo", "hi"}) {
		t.Fatalf("taught %d: %q", v.Taught(), v.Words())
	}
	str := []string{"lo", "hi", "lo", "lo", "hi"}
	a := &frontend.Audio{Rate: 8000, Samples: voiceString(str, 7)}
	frames, err := c.Frames(a)
	if err != nil {
		t.Fatal(err)
	}
	withStrings, without := v.Connected().LogLikelihoods(frames), plain.Connected().LogLikelihoods(frames)
	if slices.Equal(withStrings.Data, without.Data) {
		t.Error("the strings of the voice's words changed nothing")
	}
	heard, err := v.Connected().Recognize(a)
	if err != nil {
		t.Fatal(err)
	}
	if heard.Text != strings.Join(str, " ") {
		t.Errorf("taught two words and strings of them, heard %q, said %q", heard.Text, strings.Join(str, " "))
	}
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := c.ReadVoice(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back := r.Connected().LogLikelihoods(frames); !slices.Equal(back.Data, withStrings.Data) || !slices.Equal(r.Words(), v.Words()) {
		t.Errorf("read back: %q, and its read-out is not the one written", r.Words())
	}
}

// A word that is not the model's is refused by name, and teaches nothing.
func TestTeachingRefusesWordsNotInTheVocabulary(t *testing.T) {
	c, err := engine.NewConnected(loadTones(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := c.NewVoice()
	for _, w := range []string{"seven", engine.FillerLabel, ""} {
		err := v.Teach(&frontend.Audio{Rate: 8000, Samples: voiceString([]string{"lo"}, 3)}, w)
		if !errors.Is(err, engine.ErrNotInVocabulary) || !strings.Contains(err.Error(), `"`+w+`"`) {
			t.Errorf("taught %q: %v", w, err)
		}
	}
	if v.Taught() != 0 {
		t.Errorf("%d words taught after refusals", v.Taught())
	}
	wc, s := heardSession(t, 3, 5)
	x, _ := glideVectors(t, wc.Config, 1, 9, 1)
	if err := s.Teach(linalg.Row32(x, 0), "sideways"); !errors.Is(err, engine.ErrNotInVocabulary) || !strings.Contains(err.Error(), "sideways") {
		t.Errorf("word session taught %q: %v", "sideways", err)
	}
}

// A word session taught one recording of each word of a voice the model
// hears badly hears the rest of that voice better, and its file gives the
// same scores; the taught words do not count as heard recordings.
func TestTaughtWordSessionHearsTheVoice(t *testing.T) {
	m, _ := adaptableModel(t, []float64{0.5, 1})
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, labels := glideVectors(t, c.Config, 30, 410, 1.6)
	accuracy := func(s *engine.VoiceSession) int {
		ok := 0
		for i := 2; i < voice.Rows; i++ {
			v := slices.Clone(linalg.Row32(voice, i))
			if err := s.Normalise(v, false); err != nil {
				t.Fatal(err)
			}
			if sc := s.Score(v); (sc[1] > sc[0]) == (labels[i] == 1) {
				ok++
			}
		}
		return ok
	}
	plain := c.NewVoiceSession()
	before := accuracy(plain)
	taught := c.NewVoiceSession()
	for i := range 2 {
		if err := taught.Teach(linalg.Row32(voice, i), m.Labels[labels[i]]); err != nil {
			t.Fatal(err)
		}
	}
	after := accuracy(taught)
	t.Logf("%d of %d before teaching, %d after", before, voice.Rows-2, after)
	if after <= before || after < voice.Rows-2-2 {
		t.Errorf("taught two words: %d of %d right, %d before", after, voice.Rows-2, before)
	}
	if taught.Recordings() != 0 || taught.Taught() != 2 || !slices.Equal(taught.TaughtWords(), []string{"up", "down"}) {
		t.Errorf("%d recordings, %d taught (%v)", taught.Recordings(), taught.Taught(), taught.TaughtWords())
	}
	var b bytes.Buffer
	if _, err := taught.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := c.ReadVoiceSession(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i < 6; i++ {
		v, w := slices.Clone(linalg.Row32(voice, i)), slices.Clone(linalg.Row32(voice, i))
		taught.Normalise(v, false)
		r.Normalise(w, false)
		if g, want := r.Score(w), taught.Score(v); !slices.Equal(g, want) {
			t.Fatalf("recording %d: %v read back, %v before writing", i, g, want)
		}
	}
}

// Refitted with the model's training rows instead of toward its
// read-out (TeachWeight), two taught words make the session hear the rest
// of the voice better too; a model that fits its rows in the dual form
// cannot be taught so, and says so when taught.
func TestTaughtWithTrainingRowsHearsTheVoice(t *testing.T) {
	m, _ := adaptableModelOfSize(t, []float64{0.5, 1}, 15) // primal: 40 rows, 15 units
	c, err := engine.NewWordClassifier(m)
	if err != nil {
		t.Fatal(err)
	}
	voice, labels := glideVectors(t, c.Config, 30, 410, 1.6)
	accuracy := func(s *engine.VoiceSession) int {
		ok := 0
		for i := 2; i < voice.Rows; i++ {
			v := slices.Clone(linalg.Row32(voice, i))
			if err := s.Normalise(v, false); err != nil {
				t.Fatal(err)
			}
			if sc := s.Score(v); (sc[1] > sc[0]) == (labels[i] == 1) {
				ok++
			}
		}
		return ok
	}
	before := accuracy(c.NewVoiceSession())
	taught := c.NewVoiceSession()
	taught.TeachWeight = 10
	for i := range 2 {
		if err := taught.Teach(linalg.Row32(voice, i), m.Labels[labels[i]]); err != nil {
			t.Fatal(err)
		}
	}
	after := accuracy(taught)
	t.Logf("%d of %d before teaching, %d after", before, voice.Rows-2, after)
	if after <= before {
		t.Errorf("taught two words with the training rows: %d of %d right, %d before", after, voice.Rows-2, before)
	}
	dual, _ := adaptableModel(t, []float64{0.5, 1}) // 40 rows, 60 units
	dc, err := engine.NewWordClassifier(dual)
	if err != nil {
		t.Fatal(err)
	}
	s := dc.NewVoiceSession()
	s.TeachWeight = 10
	if err := s.Teach(linalg.Row32(voice, 0), dual.Labels[labels[0]]); err == nil || s.Taught() != 0 {
		t.Errorf("a model fitted in the dual form was taught with its training rows (%v, %d taught)", err, s.Taught())
	}
}

func loadTones(t *testing.T, kind string) *engine.Model {
	t.Helper()
	m, err := engine.LoadModel("../testdata/tones-" + kind + ".rfm")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Two teachings of one voice at once, each reading, teaching and writing
// its file under LockVoice, lose none of each other's words.
func TestConcurrentTeachingsKeepEveryWord(t *testing.T) {
	c, err := engine.NewConnected(loadTones(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	path, err := c.VoicePath(t.TempDir(), "pat")
	if err != nil {
		t.Fatal(err)
	}
	const each = 4
	errs := make(chan error, 2)
	for g, word := range []string{"lo", "hi"} {
		go func() {
			errs <- func() error {
				for i := range each {
					unlock, err := engine.LockVoice(path)
					if err != nil {
						return err
					}
					v, err := c.LoadVoice(path)
					if errors.Is(err, fs.ErrNotExist) {
						v, err = c.NewVoice()
					}
					if err == nil {
						err = v.Teach(&frontend.Audio{Rate: 8000, Samples: voiceString([]string{word}, uint32(100*g+i))}, word)
					}
					if err == nil {
						err = v.Save(path)
					}
					unlock()
					if err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	v, err := c.LoadVoice(path)
	if err != nil {
		t.Fatal(err)
	}
	words := v.Words()
	slices.Sort(words)
	if want := []string{"hi", "hi", "hi", "hi", "lo", "lo", "lo", "lo"}; !slices.Equal(words, want) {
		t.Errorf("the voice holds %v after two teachings of %d words each, want %v", words, each, want)
	}
}

// A recording to teach from is refused when it is too quiet, clipped,
// silence, a steady sound or a click, or longer than a word, and taken
// when it is a word, with silence around it or cut tight.
func TestCheckTeachable(t *testing.T) {
	word := voiceString([]string{"lo"}, 1)
	scaled := func(k float32) []float32 {
		out := slices.Clone(word)
		for i := range out {
			out[i] = max(-1, min(1, out[i]*k))
		}
		return out
	}
	if err := engine.CheckTeachable(word, 8000); err != nil {
		t.Errorf("a clear word: %v", err)
	}
	if err := engine.CheckTeachable(toymodels.Glide(400, 1500, 0.35, 1), 8000); err != nil {
		t.Errorf("a word cut tight: %v", err)
	}
	for name, c := range map[string]struct {
		s    []float32
		want error
	}{
		"quiet":   {scaled(0.01), engine.ErrTooQuiet},
		"clipped": {scaled(20), engine.ErrClipped},
		"silence": {pause(1, 3), engine.ErrTooQuiet},
		"noise":   {scaled(0)[:0:0], engine.ErrNoSpeech},
		"steady":  {steadyTone(2), engine.ErrNoSpeech},
		"long":    {pause(11, 5), engine.ErrTooLong},
		"click":   {append(append(pause(0.5, 6), steadyTone(0.03)...), pause(0.5, 7)...), engine.ErrNoSpeech},
	} {
		if err := engine.CheckTeachable(c.s, 8000); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

// steadyTone is sec seconds of one unchanging tone: no word in it.
func steadyTone(sec float64) []float32 {
	out := make([]float32, int(sec*8000))
	for i := range out {
		out[i] = float32(0.2 * math.Sin(2*math.Pi*400*float64(i)/8000))
	}
	return out
}

// The guard (GuardMisses): a voice the model already hears right keeps
// the model's recogniser, also read back from its file; one it hears
// wrong is taught; with the guard off, or fewer than GuardWords words
// taught, every voice is taught.
func TestGuardKeepsAVoiceTheModelHears(t *testing.T) {
	c, err := engine.NewConnected(loadTones(t, "rls"))
	if err != nil {
		t.Fatal(err)
	}
	own := func(w string, i int) []float32 {
		s := append(pause(0.3, uint32(i)), fixtures.ToneWord(w, 0.35, 0.2, 8000)...)
		return append(s, pause(0.7, uint32(i+100))...)
	}
	other := func(w string, i int) []float32 { return voiceString([]string{w}, uint32(50+i)) }
	teach := func(say func(string, int) []float32, n, misses int, withStrings bool) *engine.ConnectedVoice {
		v, err := c.NewVoice()
		if err != nil {
			t.Fatal(err)
		}
		v.GuardMisses, v.GuardStrings = misses, withStrings
		for i := range n {
			w := []string{"lo", "hi"}[i%2]
			if err := v.Teach(&frontend.Audio{Rate: 8000, Samples: say(w, i)}, w); err != nil {
				t.Fatal(err)
			}
		}
		return v
	}
	plain, err := engine.NewRecognizer(c.Model)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"lo", "hi"} {
		if res, err := plain.Recognize(own(w, i), 8000); err != nil || res.Text != w {
			t.Fatalf("the model hears its own voice's %q as %q (%v): the test needs a voice it hears", w, res.Text, err)
		}
	}
	v := teach(own, engine.GuardWords, 0, false)
	if !v.Guarded() || v.Connected() != c {
		t.Error("a voice the model hears right was taught")
	}
	if v := teach(own, engine.GuardWords, 0, true); !v.Guarded() {
		t.Error("a voice the model hears right, in strings of its words too, was taught")
	}
	if v := teach(own, engine.GuardWords, -1, false); v.Guarded() || v.Connected() == c {
		t.Error("with the guard off, a voice kept the model's recogniser")
	}
	if v := teach(own, engine.GuardWords-1, 0, false); v.Guarded() {
		t.Errorf("judged on %d words, fewer than %d", engine.GuardWords-1, engine.GuardWords)
	}
	if v := teach(other, engine.GuardWords, 0, true); v.Guarded() || v.Connected() == c {
		t.Error("a voice the model hears wrong was not taught")
	}
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	// A voice read from its file is judged with the defaults.
	defer func(was int) { engine.TaughtGuardMisses = was }(engine.TaughtGuardMisses)
	engine.TaughtGuardMisses = 0
	r, err := c.ReadVoice(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Guarded() || r.Taught() != engine.GuardWords {
		t.Errorf("read back, the voice of %d words is not guarded", r.Taught())
	}
}
