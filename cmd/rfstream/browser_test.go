//go:build browser

// The browser test drives Debian's Chromium against a real `rfstream serve
// --http`: a fake microphone plays an FSDD recording into the page, which
// must show the digit the model gives offline; an MNIST image picked in the
// image panel must get the model's tag. Run it with `make test-browser`.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/recipes"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/train"
)

func chromiumPath() string {
	if p := os.Getenv("RFSTREAM_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// browserCase is what the page is fed and what it must show.
type browserCase struct {
	wordModel, imageModel string    // model files for serve
	speech                []float32 // 8 kHz audio: silence, one word, silence
	word                  string    // what the model says offline for speech
	image                 []byte    // PNG
	tag                   string    // the model's top tag for image offline
	what                  string
}

// realCase trains small models on FSDD and MNIST and picks an official
// test recording and a test image the models get right offline.
func realCase(t *testing.T, dir string) (*browserCase, error) {
	fsdd := os.Getenv("RFSTREAM_FSDD")
	if fsdd == "" {
		fsdd = "../../../shared/fsdd/recordings"
	}
	recs, err := datasets.FSDD(fsdd)
	if err != nil {
		return nil, err
	}
	mnist := defaults.MNISTDir()
	if _, err := os.Stat(filepath.Join(mnist, "t10k-images-idx3-ubyte")); err != nil {
		return nil, err
	}
	_, test := datasets.OfficialSplit(recs)
	log := testLog{t}
	wo := train.DefaultDigitOptions()
	wo.FSDD, wo.Map.M, wo.Log = fsdd, 1000, log
	// The synthetic voices come from the data cache, as rfstream models
	// builds them (unset, they were built again in the working directory).
	wo.Voices.SynthDir, wo.Voices.Engines.Dir = defaults.SynthDigitsDir(), defaults.VoicesDir()
	wm, err := train.Words(wo)
	if err != nil {
		return nil, err
	}
	words, err := engine.NewWordClassifier(wm)
	if err != nil {
		return nil, err
	}
	c := &browserCase{wordModel: filepath.Join(dir, "digits.rfm"), imageModel: filepath.Join(dir, "mnist.rfm"), what: "FSDD + MNIST"}
	if err := engine.SaveModel(c.wordModel, wm); err != nil {
		return nil, err
	}
	// A recording the model is sure of, so the browser's own resampling
	// cannot tip it; the page must then agree with the offline answer.
	for _, r := range test {
		if r.Label != "7" {
			continue
		}
		a, err := readWAVFile(r.Path)
		if err != nil {
			return nil, err
		}
		a8, err := frontend.Resample(a, wm8k(words))
		if err != nil {
			return nil, err
		}
		padded := append(append(toymodels.Noise(8000, 1), a8.Samples...), toymodels.Noise(8000, 2)...)
		got, err := offlineWords(words, padded)
		if err != nil {
			return nil, err
		}
		if len(got.Words) == 1 && got.Words[0].Word == r.Label && got.Words[0].Conf > 0.6 {
			c.speech, c.word = padded, got.Words[0].Word
			c.what += fmt.Sprintf(", recording %s", filepath.Base(r.Path))
			break
		}
	}
	if c.word == "" {
		return nil, errors.New("no test recording of 7 the small model is sure of")
	}

	imgOpts := train.DefaultImageOptions()
	imgOpts.Map.M, imgOpts.PerClass = 500, 300
	run, err := recipes.TrainImages(imgOpts, log)
	if err != nil {
		return nil, err
	}
	if err := engine.SaveModel(c.imageModel, run.Model); err != nil {
		return nil, err
	}
	tagger, err := engine.NewImageTagger(run.Model)
	if err != nil {
		return nil, err
	}
	testSet, err := frontend.ReadIDXPair(filepath.Join(mnist, "t10k-images-idx3-ubyte"), filepath.Join(mnist, "t10k-labels-idx1-ubyte"))
	if err != nil {
		return nil, err
	}
	for i := 0; i < 50 && c.tag == ""; i++ {
		img := grayPNG(linalg.Row32(testSet.X, i), testSet.Width)
		tags, err := tagger.TagImage(img, 3)
		if err != nil {
			return nil, err
		}
		if want := fmt.Sprint(testSet.Labels[i]); tags[0].Label == want && want != c.word {
			c.image, c.tag = img, tags[0].Label
			c.what += fmt.Sprintf(", MNIST test image %d", i)
		}
	}
	if c.tag == "" {
		return nil, errors.New("no MNIST test image the small model gets right")
	}
	return c, nil
}

// wm8k is the word model's sample rate.
func wm8k(w *engine.WordClassifier) int { return w.Config.Audio.SampleRate }

// toyCase uses the synthetic toy models when the data sets are missing:
// the check stays real (the page must show what the model says offline).
func toyCase(t *testing.T, dir string) (*browserCase, error) {
	words, err := toymodels.Words()
	if err != nil {
		return nil, err
	}
	images, err := toymodels.Images()
	if err != nil {
		return nil, err
	}
	c := &browserCase{wordModel: filepath.Join(dir, "toy-words.rfm"), imageModel: filepath.Join(dir, "toy-images.rfm"), what: "toy models"}
	if err := engine.SaveModel(c.wordModel, words.Model); err != nil {
		return nil, err
	}
	if err := engine.SaveModel(c.imageModel, images.Model); err != nil {
		return nil, err
	}
	c.speech = append(append(toymodels.Noise(8000, 1), toymodels.Glide(450, 1400, 0.4, 77)...), toymodels.Noise(8000, 2)...)
	got, err := offlineWords(words, c.speech)
	if err != nil || len(got.Words) != 1 {
		return nil, fmt.Errorf("toy word offline: %+v %v", got, err)
	}
	c.word = got.Words[0].Word
	c.image = grayPNG(toymodels.Bars(1, 3), 8)
	tags, err := images.TagImage(c.image, 2)
	if err != nil {
		return nil, err
	}
	c.tag = tags[0].Label
	return c, nil
}

// offlineWords runs the in-process recogniser over 8 kHz samples.
func offlineWords(w *engine.WordClassifier, samples []float32) (engine.Result, error) {
	sp, err := engine.NewWordSpotter(w, engine.DefaultSpotterConfig(), 8000)
	if err != nil {
		return engine.Result{}, err
	}
	rs := append(sp.Push(samples), sp.Flush()...)
	return rs[len(rs)-1], nil
}

func grayPNG(px []float32, width int) []byte {
	im := image.NewGray(image.Rect(0, 0, width, len(px)/width))
	for i, v := range px {
		im.SetGray(i%width, i/width, color.Gray{Y: uint8(min(255, max(0, v*255+0.5)))})
	}
	var b bytes.Buffer
	png.Encode(&b, im)
	return b.Bytes()
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// artifactPath is where the screenshot goes: $RFSTREAM_ARTIFACTS or out/.
func artifactPath(name string) string {
	dir := os.Getenv("RFSTREAM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "out")
	}
	os.MkdirAll(dir, 0o755)
	return filepath.Join(dir, name)
}

// needBrowser skips the test without Chromium or sox.
func needBrowser(t *testing.T) {
	chrome := chromiumPath()
	if _, err := os.Stat(chrome); err != nil {
		t.Skipf("SKIP: no Chromium at %s (apt-get install chromium, or set RFSTREAM_CHROMIUM); the browser test did not run", chrome)
	}
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("SKIP: sox is needed to make Chromium's fake microphone file")
	}
}

// fakeMicrophone writes 8 kHz speech as the 48 kHz 16-bit WAV Chromium's
// fake capture device plays (in a loop).
func fakeMicrophone(t *testing.T, dir string, speech []float32) string {
	raw := filepath.Join(dir, "speech-8k.wav")
	var b bytes.Buffer
	if err := frontend.EncodeWAV16(&b, &frontend.Audio{Rate: 8000, Samples: speech}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(raw, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(dir, "speech-48k.wav")
	if out, err := exec.Command("sox", raw, "-r", "48000", "-b", "16", "-c", "1", wav).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	return wav
}

// headlessChromium starts Chromium with its profile in dir and the fake
// microphone playing wav (Chromium's own beep for ""), logging the page's
// console, for at most 90 s.
func headlessChromium(t *testing.T, dir, wav string) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath()),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.WindowSize(1100, 700),
	}
	if wav != "" {
		opts = append(opts, chromedp.Flag("use-file-for-fake-audio-capture", wav))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value))
			}
			t.Logf("console.%s: %s", e.Type, strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			t.Logf("page exception: %s", e.ExceptionDetails.Text)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func TestBrowserShowsDigitAndTag(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	c, err := realCase(t, dir)
	if errors.Is(err, fs.ErrNotExist) {
		t.Logf("FSDD or MNIST missing (%v): using the toy models", err)
		c, err = toyCase(t, dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("case: %s; offline the model says %q and tags the image %q", c.what, c.word, c.tag)
	wav := fakeMicrophone(t, dir, c.speech)
	pngPath := filepath.Join(dir, "digit.png")
	if err := os.WriteFile(pngPath, c.image, 0o644); err != nil {
		t.Fatal(err)
	}

	var stdout bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--http", "127.0.0.1:0", "--model", c.wordModel, "--image-model", c.imageModel}, &stdout, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)
	ctx := headlessChromium(t, dir, wav)

	screenshot := func() {
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		p := artifactPath("browser-test.png")
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		abs, _ := filepath.Abs(p)
		t.Logf("screenshot: %s", abs)
	}
	defer screenshot()

	fail := func(step string, err error) {
		errText, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("audio-error")))
		t.Fatalf("%s: %v (page error: %q)", step, err, errText)
	}
	// The fake microphone loops the file: wait for the first word to close.
	err = chromedp.Do(ctx,
		chromedp.Navigate(sv.page.URL),
		chromedp.WaitVisible(chromedp.ID("start")),
		chromedp.Click(chromedp.ID("start")),
		chromedp.WaitVisible(chromedp.CSS("#words .word")),
	)
	if err != nil {
		fail("speaking into the page", err)
	}
	word, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#words .word"), "data-word"))
	if err != nil {
		fail("reading the word", err)
	}
	conf, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#words .word"), "data-conf"))
	if err != nil {
		fail("reading the confidence", err)
	}
	partials, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("body"), "data-partials"))
	if err != nil {
		fail("reading the partial count", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("stop"))); err != nil {
		fail("stopping", err)
	}
	// After Stop the page sends "end" and shows "done" at the end-of-stream result.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('status').textContent === 'done'`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		fail("waiting for the end-of-stream result", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{pngPath}),
		chromedp.WaitVisible(chromedp.CSS("#results .tag")),
	)
	if err != nil {
		fail("tagging", err)
	}
	tag, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#results .tag"), "data-label"))
	if err != nil {
		fail("reading the tag", err)
	}
	t.Logf("page shows word %q (confidence %s) after %s partial results, image tag %q", word.Value, conf.Value, partials.Value, tag.Value)
	if n, _ := strconv.Atoi(partials.Value); n < 1 {
		t.Errorf("no partial result reached the page before the word closed (data-partials=%q)", partials.Value)
	}
	if word.Value != c.word {
		t.Errorf("the page shows %q for the recording; offline the model says %q", word.Value, c.word)
	}
	if !conf.Exists || conf.Value == "" {
		t.Errorf("no confidence shown for the word")
	}
	if tag.Value != c.tag {
		t.Errorf("the page tags the image %q; offline the model says %q", tag.Value, c.tag)
	}
	// The recording named this browser's voice, kept in its storage.
	voice, err := chromedp.Run(ctx, chromedp.Evaluate[string](`localStorage.getItem('rfs-voice')`))
	if err != nil {
		fail("reading the voice name", err)
	}
	if !strings.HasPrefix(voice, "web-") || sv.stats().Voices != 1 {
		t.Errorf("voice name %q in the browser, %d voices in the pipeline; want a web-… name and one voice", voice, sv.stats().Voices)
	}
}

// TestBrowserLearnsAVoice serves a voice-normalised (adaptable) word model:
// the page says that it learns the voice, names the same voice for every
// recording from this browser (kept across a reload) and shows how many of
// the voice's words the server has heard, which grows from one recording
// to the next; "Forget this voice" drops it on the server and names another.
func TestBrowserLearnsAVoice(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	words, err := toymodels.AdaptableWords()
	if err != nil {
		t.Fatal(err)
	}
	images, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	wordModel, imageModel := filepath.Join(dir, "words.rfm"), filepath.Join(dir, "images.rfm")
	if err := engine.SaveModel(wordModel, words.Model); err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveModel(imageModel, images.Model); err != nil {
		t.Fatal(err)
	}
	speech := append(append(toymodels.Noise(8000, 1), toymodels.UpDown()...), toymodels.Noise(8000, 2)...)
	wav := fakeMicrophone(t, dir, speech)
	var stdout bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--http", "127.0.0.1:0", "--model", wordModel, "--image-model", imageModel}, &stdout, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)
	ctx := headlessChromium(t, dir, wav)

	// record loads the page, records until a word has closed, stops, and
	// returns the voice name and the number of words the page says the
	// server has heard of the voice.
	record := func(step string) (string, int) {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.Navigate(sv.page.URL),
			chromedp.WaitVisible(chromedp.ID("voice")),
			chromedp.Click(chromedp.ID("start")),
			chromedp.WaitVisible(chromedp.CSS("#words .word")),
			chromedp.Click(chromedp.ID("stop")),
		)
		if err != nil {
			t.Fatalf("%s: recording: %v", step, err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('status').textContent === 'done'`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("%s: waiting for the end-of-stream result: %v", step, err)
		}
		progress, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("voice-progress")))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		voice, err := chromedp.Run(ctx, chromedp.Evaluate[string](`localStorage.getItem('rfs-voice')`))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		var heard int
		if _, err := fmt.Sscanf(progress, "Heard %d word", &heard); err != nil {
			t.Fatalf("%s: the page says %q about the voice", step, progress)
		}
		t.Logf("%s: voice %s, the page says %q", step, voice, progress)
		return voice, heard
	}
	v1, n1 := record("first recording")
	v2, n2 := record("after a reload")
	if !strings.HasPrefix(v1, "web-") || v2 != v1 || n1 < 1 || n2 <= n1 {
		t.Fatalf("voice %q heard %d words, then voice %q heard %d: want one web-… voice whose count grows", v1, n1, v2, n2)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("forget-voice"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('status').textContent === 'voice forgotten'`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("forgetting the voice: %v", err)
	}
	if got := sv.stats().Voices; got != 0 {
		t.Fatalf("after Forget this voice the pipeline holds %d voices, want none", got)
	}
	v3, n3 := record("after Forget this voice")
	if v3 == v1 || n3 > n1+n2 {
		t.Fatalf("after Forget this voice: voice %q (was %q) heard %d words", v3, v1, n3)
	}
	if got := sv.stats().Voices; got != 1 {
		t.Fatalf("the pipeline holds %d voices, want the new one", got)
	}
}
