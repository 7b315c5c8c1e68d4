//go:build browser

package main

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserHearsARecordingFile: a recording picked in the page's file
// input (a FLAC and an 8-bit WAV of an FSDD string, named .bin so that only
// their headers tell them apart) is heard by `serve` with the default
// model, and the page shows the words `recognize` gives the same file.
func TestBrowserHearsARecordingFile(t *testing.T) {
	needBrowser(t)
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("SKIP: ffmpeg is needed to make the FLAC file")
	}
	x := fsddTakesJoined(t, "3_nicolas_2", "9_yweweler_4", "1_george_1")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	writeWAV(t, src, x)
	files := convertToEveryFormat(t, dir, src, len(x))

	var stdout bytes.Buffer
	sv, err := startServe([]string{"--port", "0", "--http", "127.0.0.1:0"}, &stdout, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close(io.Discard)
	ctx := headlessChromium(t, dir, fakeMicrophone(t, dir, make([]float32, 8000)))
	if err := chromedp.Do(ctx, chromedp.Navigate(sv.page.URL), chromedp.WaitVisible(chromedp.ID("audio-file"))); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"flac", "u8-odd"} {
		path := files[format]
		want := recognizeJSON(t, path)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('status').textContent = ''; document.getElementById('words').textContent = ''; true`)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("audio-file"), []string{path})); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		answered := `document.getElementById('status').textContent.startsWith('done') || document.getElementById('audio-error').textContent !== ''`
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](answered, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
			t.Fatalf("%s: no answer on the page: %v", format, err)
		}
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#words .word:not(.rejected)')).map((e) => e.dataset.word).join(' ')`))
		if err != nil {
			t.Fatal(err)
		}
		errText, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("audio-error")))
		t.Logf("%s: the page shows %q (error %q); recognize gives %q", format, shown, errText, want.Text)
		if shown != want.Text || want.Text == "" {
			t.Errorf("%s: the page shows %q (error %q); recognize gives %q", format, shown, errText, want.Text)
		}
	}
}
