package train

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/maxout"
)

// The last speaker of each voice tests, the one before them tunes, the
// rest train; with the voices taken in turn every voice is tested.
func TestEngineSpeakerRoles(t *testing.T) {
	var got []phoneRole
	for i := 0; i < 8; i++ {
		got = append(got, engineSpeakerRole(i, 8, 3))
	}
	want := []phoneRole{roleTrain, roleTrain, roleTrain, roleTrain, roleDev, roleTest, roleTest, roleTest}
	if !slices.Equal(got, want) {
		t.Fatalf("roles %v, want %v", got, want)
	}
}

// toyFSDD writes FSDD-named recordings (digit_speaker_take.wav) of two
// digits said by flite: take 5 is a training take, take 0 a test take.
func toyFSDD(t *testing.T) string {
	dir := t.TempDir()
	var jobs []datasets.SayJob
	for _, d := range []int{1, 2} {
		for _, take := range []int{0, 5} {
			jobs = append(jobs, datasets.SayJob{Text: datasets.DigitWords[d], Voice: "rms", Tempo: 1, Rate: 8000,
				Path: filepath.Join(dir, fmt.Sprintf("%d_toy_%d.wav", d, take))})
		}
	}
	if err := (datasets.FliteEngine{}).Say(jobs); err != nil {
		t.Fatal(err)
	}
	return dir
}

// End to end on a tiny flite corpus: the splits, phone times, FSDD words
// and augmented copies reach the trainer as they should, and a model
// trained on them recognises flite's test speakers far better than
// chance.
func TestVoicePhonesEndToEndOnATinyCorpus(t *testing.T) {
	if err := (datasets.FliteEngine{}).Available(); err != nil {
		t.Skip(err)
	}
	o := DefaultPhoneOptions()
	o.EspeakDir = filepath.Join(t.TempDir(), "unused")
	o.Voices.Engines = []string{"flite"}
	o.Voices.Dir = t.TempDir()
	o.Voices.Corpus = datasets.EnginePhoneOptions{Speakers: 11, PerSpeaker: 3, Cents: 100, MaxTempo: 1.1, Seed: 1, Rate: 8000}
	o.Voices.FSDD, o.Voices.FSDDPerDigit = toyFSDD(t), 1
	o.Voices.Augment = 0.5
	d, err := LoadPhones(o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// 11 speakers of 4 voices: 6 train, 1 tunes, 4 test (3 sentences each).
	var engineTrain, dev, fsdd, copies int
	for _, u := range d.Train {
		switch {
		case u.HeldOut:
			dev++
			if !u.ExactSpans || len(u.Spans) != len(u.Words) {
				t.Errorf("development utterance without its phone times: %d spans, %d phones", len(u.Spans), len(u.Words))
			}
		case !u.ExactSpans:
			fsdd++
			if got := strings.Join(u.Words, " "); got != datasets.DigitPhones[1] && got != datasets.DigitPhones[2] {
				t.Errorf("FSDD utterance labelled %q", got)
			}
		default:
			engineTrain++
			if len(u.Spans) != len(u.Words) {
				t.Errorf("%d spans for %d phones", len(u.Spans), len(u.Words))
			}
		}
	}
	copies = len(d.Train) - dev - 18 - 2
	if dev != 3 || len(d.Dev) != 3 || len(d.Test) != 12 || fsdd < 2 || copies < 1 || engineTrain+fsdd != 18+2+copies {
		t.Fatalf("%d training (%d engine, %d FSDD, %d copies), %d held out, %d dev, %d test utterances; want 18+2 training, 3 held out, 12 test",
			len(d.Train), engineTrain, fsdd, copies, dev, len(d.Dev), len(d.Test))
	}
	for _, u := range d.Test {
		if u.Engine != "flite" || !strings.HasPrefix(u.Speaker, "flite:") {
			t.Fatalf("test utterance of %q, engine %q", u.Speaker, u.Engine)
		}
	}
	if len(d.TestVoices) != 4 || len(d.DevVoices) != 1 || !slices.Contains(d.TrainVoices, "fsdd") {
		t.Fatalf("voices: train %v, dev %v, test %v", d.TrainVoices, d.DevVoices, d.TestVoices)
	}

	mp, err := maxout.New(engine.DefaultConnectedInput().Audio.Dim(), maxout.Params{M: 300, Q: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := TrainPhoneModel(o, d, PhoneModelSpec{Name: "tiny", Recipe: mp.Recipe(), Classifier: "rls"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetPhoneDecoder(o, m, d, true, &res, io.Discard); err != nil {
		t.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		t.Fatal(err)
	}
	var counts decode.ErrorCounts
	for _, u := range d.Test {
		a, err := frontend.ReadAudio(u.Path, c.Input.Audio.SampleRate)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.DecodeFrames(c.LogLikelihoods(mustFrames(t, c, a.Samples)))
		if err != nil {
			t.Fatal(err)
		}
		counts.Add(u.Phones, decode.Labels(r.Words))
	}
	last := res.Passes[len(res.Passes)-1]
	t.Logf("frame accuracy %.3f train, %.3f held out; test PER %.3f on %d phones", last.TrainFrameAcc, last.HeldOutFrameAcc, counts.ErrorRate(), counts.Ref)
	// Recognising nothing (all deletions) scores 1.0; so does a string
	// of the right length with the most frequent phone nearly everywhere.
	// 18 sentences of 40 phones train little: 0.63 measured (tuned).
	if counts.Ref < 100 || counts.ErrorRate() > 0.75 {
		t.Errorf("test PER %.3f on %d phones, want ≤ 0.75", counts.ErrorRate(), counts.Ref)
	}
}
