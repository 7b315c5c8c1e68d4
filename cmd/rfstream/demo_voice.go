package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/streaming"
	"github.com/rfstream/rfstream/train"
)

func init() {
	registerDemoPart(demoPart{order: 50, name: "a voice the model never heard: one recording at a time, a live session through NATS, its recordings as streams that name the voice, and adapting to all of it", run: demoVoice,
		takes: "trains an adaptable model without george, then hears his 500 recordings six ways: about 1.5 min on two cores"})
}

// demoVoiceSpeaker is the FSDD voice the demo's adaptable model is trained
// without (experiments/journal/audio.md has all six: this one gains the most).
const demoVoiceSpeaker = "george"

func demoVoice(stdout, stderr io.Writer) error {
	path := filepath.Join(defaults.DataDir(), "models", "digits-adaptable-without-"+demoVoiceSpeaker+".rfm")
	if _, err := os.Stat(path); err != nil {
		if _, err := exec.LookPath("espeak-ng"); err != nil {
			fmt.Fprintln(stdout, "skipped: this part trains its model with synthetic voices from espeak-ng, which is not installed (apt-get install espeak-ng)")
			return nil
		}
	}
	m, err := recipes.AdaptableAt(path, demoVoiceSpeaker, stderr)
	if err != nil {
		return err
	}
	words, err := engine.NewWordClassifier(m)
	if err != nil {
		return err
	}
	all, err := datasets.FSDD(defaults.FSDDDir())
	if err != nil {
		return err
	}
	var recs []datasets.Recording
	for _, r := range all {
		if r.Speaker == demoVoiceSpeaker {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return fmt.Errorf("no FSDD recordings of %s in %s", demoVoiceSpeaker, defaults.FSDDDir())
	}
	y, err := train.Indices(recs, train.LabelIndex(m.Labels))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model: FSDD without %s (%v recordings) + 50 synthetic voices, voice-normalised, adaptable; %s's %d recordings:\n",
		demoVoiceSpeaker, m.Meta["recordings"], demoVoiceSpeaker, len(recs))

	// One at a time: each recording alone, as a single `recognize` hears it.
	raw := linalg.NewGeneral32(len(recs), words.Config.Dim())
	alone := linalg.NewGeneral32(len(recs), words.Config.Dim())
	for i, r := range recs {
		a, err := readWAVFile(r.Path)
		if err != nil {
			return err
		}
		v, err := words.RawVector(a)
		if err != nil {
			return err
		}
		copy(linalg.Row32(raw, i), v)
		words.NormaliseAlone(v)
		copy(linalg.Row32(alone, i), v)
	}
	accuracy := func(s []int) float64 { return 100 * (1 - classifier.ErrorRate(s, y)) }
	fmt.Fprintf(stdout, "  one recording at a time:                %6.2f%%\n", accuracy(classifier.Argmax(words.ScoreRows(alone))))

	// A live session: every recording in one stream, in a shuffled order,
	// through the NATS pipeline, which follows the stream's voice and
	// self-trains on it as it goes (engine.VoiceSession).
	order, plan := datasets.SessionOrder(len(recs), 1), datasets.SessionPlan(demoVoiceSpeaker, recs, 1)
	audio, _, err := datasets.RenderString(plan, words.Config.Audio.SampleRate, datasets.Noise{}, 1)
	if err != nil {
		return err
	}
	_, client, stop, err := startDemoPipeline(streaming.Pipeline{Name: "voice", Words: words}, "demo voice client",
		streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		return err
	}
	defer stop()
	start := time.Now()
	// The session's error results (a self-training round that failed, a
	// gap) are printed after its line: its figure is not the session's
	// without them.
	var sessionErrors []string
	last, err := streaming.StreamAudio(context.Background(), client, "voice", "voice-"+demoVoiceSpeaker, audio, streaming.StreamOptions{}, func(r engine.Result) {
		if r.Error != "" {
			sessionErrors = append(sessionErrors, r.Error)
		}
	})
	if err != nil {
		return err
	}
	// The same session in process, on the whole files' vectors in the
	// same order.
	session, correct := words.NewVoiceSession(), 0
	for _, j := range order {
		v := append([]float32(nil), linalg.Row32(raw, j)...)
		if err := session.Normalise(v, true); err != nil {
			return err
		}
		if s := session.Score(v); classifier.Argmax(blas32.General{Rows: 1, Cols: len(s), Stride: len(s), Data: s})[0] == y[j] {
			correct++
		}
	}
	fmt.Fprintf(stdout, "  the same session on whole files:        %6.2f%%\n", 100*float64(correct)/float64(len(recs)))
	e := decode.EditDistance(plan.Words(), strings.Fields(last.Text))
	fmt.Fprintf(stdout, "  as one live session through NATS:       %6.2f%% of %d words (%d substituted, %d missed, %d extra; %.0f s of audio in %.1f s)\n",
		100*float64(e.RefLen-e.Errors())/float64(e.RefLen), e.RefLen, e.Sub, e.Del, e.Ins, audio.Duration(), time.Since(start).Seconds())
	for _, why := range sessionErrors {
		fmt.Fprintf(stdout, "    the session said: %s\n", why)
	}

	paths := make([]string, len(recs))
	for i, r := range recs {
		paths[i] = r.Path
	}
	lasts, errs := streamFiles(client, "voice", "one-"+demoVoiceSpeaker, paths, 16)
	ok := 0
	for i, r := range recs {
		if errs[i] == nil && lasts[i].Text == r.Label {
			ok++
		}
	}
	fmt.Fprintf(stdout, "  each recording its own stream:          %6.2f%%\n", 100*float64(ok)/float64(len(recs)))

	// The same streams one after another in the session's order, each
	// naming the voice (on its subject, as the web page does for a browser):
	// they share one session, which learns the voice across them.
	start = time.Now()
	ok = 0
	for k, j := range order {
		a, err := readWAVFile(recs[j].Path)
		if err != nil {
			return err
		}
		last, err := streaming.StreamAudio(context.Background(), client, "voice", fmt.Sprintf("named-%s-%d", demoVoiceSpeaker, k), a,
			streaming.StreamOptions{Voice: demoVoiceSpeaker}, nil)
		if err != nil {
			return err
		}
		if last.Text == recs[j].Label {
			ok++
		}
	}
	fmt.Fprintf(stdout, "  each its own stream, naming the voice:  %6.2f%% (one after another, %.1f s)\n", 100*float64(ok)/float64(len(recs)), time.Since(start).Seconds())

	// All of it at once: the voice estimated from every recording, then
	// self-training on them.
	start = time.Now()
	res, err := words.AdaptToVoice(raw)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  adapting to all %d first (--adapt):    %6.2f%% (%d self-training rounds in %.1f s)\n",
		len(recs), accuracy(classifier.Argmax(res.Scores)), len(res.Rounds), time.Since(start).Seconds())
	return nil
}
