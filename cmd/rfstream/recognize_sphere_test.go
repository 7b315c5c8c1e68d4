package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/internal/fixtures"
)

// recognize reads NIST SPHERE files (TIDIGITS' and TIMIT's .wav files are
// SPHERE) told apart from WAV by the header, whatever the name says: the
// same samples as a SPHERE file named .wav, a WAV file named .sph and
// SPHERE on standard input get the WAV file's own result.
func TestRecognizeTellsSphereFromWAVByHeader(t *testing.T) {
	dir, model := toyWordModelFile(t)
	for i, x := range [][]float32{upWord(601), downWord(602)} {
		wav := filepath.Join(dir, "plain.wav")
		writeWAV(t, wav, x)
		want := recognizeJSON(t, wav, "--model", model)
		sphNamedWAV := filepath.Join(dir, "1a.wav")
		if err := os.WriteFile(sphNamedWAV, fixtures.EncodeSphere(x, 8000, i == 1), 0o644); err != nil {
			t.Fatal(err)
		}
		wavNamedSph := filepath.Join(dir, "x.sph")
		b, err := os.ReadFile(wav)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wavNamedSph, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{sphNamedWAV, wavNamedSph} {
			if got := recognizeJSON(t, p, "--model", model); got.Text != want.Text || got.Conf != want.Conf || got.Seconds != want.Seconds {
				t.Fatalf("%s: %+v, want %+v", p, got, want)
			}
		}
		stdin = bytes.NewReader(fixtures.EncodeSphere(x, 8000, false))
		got := recognizeJSON(t, "-", "--model", model)
		stdin = os.Stdin
		if got.Text != want.Text || got.Conf != want.Conf {
			t.Fatalf("SPHERE on standard input: %+v, want %+v", got, want)
		}
	}
	// A shorten-compressed file names the tool that expands it.
	bad := filepath.Join(dir, "2b.wav")
	head := "NIST_1A\n   1024\nsample_rate -i 20000\nsample_coding -s26 pcm,embedded-shorten-v2.00\nend_head\n"
	sph := append([]byte(head), bytes.Repeat([]byte(" "), 1024-len(head))...)
	if err := os.WriteFile(bad, append(sph, "ajkg\x02"...), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"recognize", "--model", model, bad}, &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), bad) || !strings.Contains(errb.String(), "sph2pipe") {
		t.Fatalf("shorten file: exit %d, %s", code, errb.String())
	}
}
