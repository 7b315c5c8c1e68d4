package engine_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// streamIn100ms pushes samples through a streaming recogniser in 100 ms
// chunks, as `rfstream stream` sends them, and returns every result.
func streamIn100ms(samples []float32, push func([]float32) []engine.Result, flush func() []engine.Result) []engine.Result {
	var out []engine.Result
	for i := 0; i < len(samples); i += 800 {
		out = append(out, push(samples[i:min(i+800, len(samples))])...)
	}
	return append(out, flush()...)
}

// toneString is lo/hi tone words with pauses of the tones models' floor.
func toneString(words []string, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, seed))
	var s []float32
	for _, w := range words {
		s = append(s, datasets.Silence(2000, fixtures.ToneFloor, rng)...)
		s = append(s, fixtures.ToneWord(w, 0.3, 0.2, 8000)...)
	}
	return append(s, datasets.Silence(2400, fixtures.ToneFloor, rng)...)
}

// A live recogniser hears a whole recording as the streaming recogniser of
// its model hears it chunk by chunk (ConnectedStream, WordSpotter): the
// same end-of-stream result, with the least sure word's confidence.
func TestNewLiveRecognizerIsTheStream(t *testing.T) {
	c := toneConnected(t)
	m := c.Model
	live, err := engine.NewLiveRecognizer(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, words := range [][]string{{"hi"}, {"lo", "hi", "lo"}} {
		s := toneString(words, 3)
		cs, err := engine.NewConnectedStream(c, engine.DefaultConnectedStreamConfig(), 8000)
		if err != nil {
			t.Fatal(err)
		}
		rs := streamIn100ms(s, cs.Push, cs.Flush)
		want := rs[len(rs)-1]
		got, err := live.Recognize(s, 8000)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Words, want.Words) || got.Text != want.Text || !got.EOS || got.NoSpeech || len(got.Words) != len(words) {
			t.Fatalf("%v: live %+v, streamed %+v", words, got, want)
		}
		least := got.Words[0].Conf
		for _, w := range got.Words {
			least = min(least, w.Conf)
		}
		if got.Conf != least || !(least > 0) {
			t.Fatalf("%v: confidence %v, least sure word's %v", words, got.Conf, least)
		}
	}

	wc, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	liveWords, err := engine.NewLiveRecognizer(wc.Model)
	if err != nil {
		t.Fatal(err)
	}
	s := toymodels.UpDown()
	sp, err := engine.NewWordSpotter(wc, engine.DefaultSpotterConfig(), 8000)
	if err != nil {
		t.Fatal(err)
	}
	rs := streamIn100ms(s, sp.Push, sp.Flush)
	got, err := liveWords.Recognize(s, 8000)
	if err != nil {
		t.Fatal(err)
	}
	if want := rs[len(rs)-1]; got.Text != "up down" || got.Text != want.Text || !reflect.DeepEqual(got.Words, want.Words) {
		t.Fatalf("word model: live %+v, spotted %+v", got, want)
	}
}

// Silence and a single sample hold no word: the live recogniser says so
// (NoSpeech, empty text) instead of naming one, and so does the end of a
// stream; a spoken word is not "no speech". (White noise is checked on
// the default digit model, cmd/rfstream's TestDefaultModelHearsNoSpeech:
// this toy model knows only tones over a faint floor and hears loud noise
// as its low tone.)
func TestNoSpeech(t *testing.T) {
	m, err := engine.LoadModel("../testdata/tones-rls.rfm")
	if err != nil {
		t.Fatal(err)
	}
	live, err := engine.NewLiveRecognizer(m)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string][]float32{"silence": make([]float32, 12000), "one sample": {0.04}} {
		got, err := live.Recognize(s, 8000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !got.NoSpeech || got.Text != "" || len(got.Words) != 0 || !got.EOS {
			t.Errorf("%s: %+v, want no speech", name, got)
		}
	}
	got, err := live.Recognize(toneString([]string{"lo"}, 5), 8000)
	if err != nil || got.NoSpeech || got.Text != "lo" {
		t.Fatalf("a spoken word: %+v, %v", got, err)
	}
}

// HeardWord finds the word in a recording that holds one, at any rate,
// and none in silence or a single sample.
func TestHeardWord(t *testing.T) {
	c, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name    string
		samples []float32
		want    bool
	}{{"a word", toymodels.UpWord(3), true}, {"silence", make([]float32, 12000), false}, {"one sample", []float32{0.04}, false}} {
		got, err := engine.HeardWord(c.Config, engine.DefaultSpotterConfig(), x.samples, 8000)
		if err != nil || got != x.want {
			t.Errorf("%s: heard a word %v (%v), want %v", x.name, got, err, x.want)
		}
	}
}

// The live recogniser decodes no partial results (only the end of the
// stream is read), yet its answer is the stream's to the word and the
// microsecond: on a long string cut into several utterances, one of them
// at MaxWordMs, while the stream pushed in 100 ms chunks decoded partials.
func TestLiveRecognizerSkipsPartialsNotWords(t *testing.T) {
	c := toneConnected(t)
	var words []string
	for i := range 14 {
		words = append(words, []string{"lo", "hi"}[i%3%2])
	}
	s := toneString(words, 9)
	// A pause longer than the endpointer's trailing silence: the string
	// is two utterances.
	s = append(append(s, make([]float32, 8000)...), toneString(words[:5], 10)...)
	cfg := engine.DefaultConnectedStreamConfig()
	cfg.MaxWordMs = 4000 // the first utterance is cut here once
	cs, err := engine.NewConnectedStream(c, cfg, 8000)
	if err != nil {
		t.Fatal(err)
	}
	rs := streamIn100ms(s, cs.Push, cs.Flush)
	partials, finals := 0, 0
	for _, r := range rs {
		if r.Final {
			finals++
		} else {
			partials++
		}
	}
	if partials < 10 || finals < 3 {
		t.Fatalf("the stream gave %d partial and %d final results: too few to compare", partials, finals)
	}
	r, err := engine.RecognizeFinalsOnly(c, cfg, s, 8000)
	if err != nil {
		t.Fatal(err)
	}
	want := rs[len(rs)-1]
	if !reflect.DeepEqual(r.Words, want.Words) || r.Text != want.Text || len(r.Words) == 0 {
		t.Fatalf("finals only %+v\nstreamed %+v", r, want)
	}
}
