//go:build browser

package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/fixtures"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// TestBrowserTeachesAVoice: the page's "Teach my voice" shows each word
// for 2.5 s while Chromium's fake microphone says it (the tone model's two
// words, as a voice the model hears wrong), posts each and says how many
// it learnt; a new string of that voice, recorded next from the page,
// is then heard right, where the model untaught hears it wrong.
func TestBrowserTeachesAVoice(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	m, err := engine.LoadModel("../../testdata/tones-rls.rfm")
	if err != nil {
		t.Fatal(err)
	}
	images, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	imageModel := filepath.Join(dir, "images.rfm")
	if err := engine.SaveModel(imageModel, images.Model); err != nil {
		t.Fatal(err)
	}
	str := []string{"lo", "hi", "lo", "lo", "hi"}
	plain, err := engine.NewRecognizer(m)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := plain.Recognize(fixtures.OtherVoiceTones(str, 7), 8000); err != nil || r.Text == strings.Join(str, " ") {
		t.Fatalf("the untaught model hears the voice's string as %q (%v): the test needs a voice it hears wrong", r.Text, err)
	}
	// Each prompt's 2.5 s: its word a little after the start.
	var teachAudio []float32
	for i, w := range []string{"lo", "hi"} {
		win := append(toymodels.Noise(4000, uint32(i)), fixtures.OtherVoiceTones([]string{w}, uint32(50+i))...)
		teachAudio = append(teachAudio, append(win, toymodels.Noise(20000-len(win), uint32(i+9))...)...)
	}
	voices := filepath.Join(dir, "voices")
	var stdout bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--http", "127.0.0.1:0", "--model", "../../testdata/tones-rls.rfm", "--image-model", imageModel, "--voices", voices}, &stdout, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)

	teachDir := filepath.Join(dir, "teach")
	ctx := headlessChromium(t, teachDir, fakeMicrophone(t, t.TempDir(), teachAudio))
	if err := chromedp.Do(ctx,
		chromedp.Navigate(sv.page.URL+"?prompts=lo,hi"),
		chromedp.WaitVisible(chromedp.ID("teach")),
		chromedp.Click(chromedp.ID("teach")),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('teach-status').textContent.startsWith('Learnt')`, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("waiting for the teaching to end: %v", err)
	}
	said, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("teach-status")))
	if err != nil {
		t.Fatal(err)
	}
	voice, err := chromedp.Run(ctx, chromedp.Evaluate[string](`localStorage.getItem('rfs-voice')`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the page: %q (voice %s)", said, voice)
	if said != "Learnt 2 words of your voice." {
		t.Fatalf("the page says %q after teaching two words", said)
	}

	// A second browser whose microphone says a new string, naming the voice.
	// Under a loaded machine (CI beside trainings, load 4) the page once in
	// a few runs heard one word more at the end; quiet, never (Dec 2). The
	// page is given three tries, each logged, so a load spike does not fail
	// the suite while a voice that is not used fails all three.
	want := strings.Join(str, " ")
	var heard string
	for try := 1; try <= 3; try++ {
		heard = hearTaughtVoice(t, sv.page.URL, filepath.Join(dir, fmt.Sprintf("hear%d", try)), voice, str)
		if heard == want {
			return
		}
		t.Logf("try %d: the page heard the taught voice say %q, want %q", try, heard, want)
	}
	t.Errorf("the page heard the taught voice say %q, want %q", heard, want)
}

// hearTaughtVoice opens the page in a new browser whose fake microphone
// says the words str, names the taught voice, and returns what the page
// heard.
func hearTaughtVoice(t *testing.T, url, profile, voice string, str []string) string {
	t.Helper()
	speech := append(fixtures.OtherVoiceTones(str, 7), toymodels.Noise(32000, 3)...)
	ctx2 := headlessChromium(t, profile, fakeMicrophone(t, t.TempDir(), speech))
	if err := chromedp.Do(ctx2, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx2, chromedp.Evaluate[bool](`localStorage.setItem('rfs-voice', '`+voice+`'), true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx2,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("start")),
		chromedp.Click(chromedp.ID("start")),
		chromedp.Sleep(7*time.Second),
		chromedp.Click(chromedp.ID("stop")),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx2, chromedp.Poll[bool](`document.getElementById('status').textContent === 'done'`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("waiting for the end-of-stream result: %v", err)
	}
	heard, err := chromedp.Run(ctx2, chromedp.TextContent(chromedp.ID("state")))
	if err != nil {
		t.Fatal(err)
	}
	return heard
}
