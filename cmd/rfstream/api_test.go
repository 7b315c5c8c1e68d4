package main

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A Go program using the public package gets what `rfstream recognize
// --json` prints, for a word model (one word, or no speech) and a
// connected model (a string), on the same files: one recogniser, one
// answer. The connected model's text is also what a live stream of the
// file ends with.
func TestPublicAPIGivesRecognizesAnswer(t *testing.T) {
	_, wordModel := toyWordModelFile(t)
	c, err := toymodels.Connected()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	connectedModel := filepath.Join(dir, "connected.rfm")
	if err := engine.SaveModel(connectedModel, c.Model); err != nil {
		t.Fatal(err)
	}
	// long.wav is one utterance longer than the endpointer's 20 s, cut
	// once: a stream of it decodes dozens of partial results, which
	// recognize skips.
	long := toymodels.Noise(4000, 4)
	for i := range 24 {
		long = append(long, toymodels.Glide(450, 1400, 0.4, uint32(100+2*i))...)
		long = append(long, toymodels.Noise(2400, uint32(200+2*i))...)
		long = append(long, toymodels.Glide(1400, 450, 0.35, uint32(101+2*i))...)
		long = append(long, toymodels.Noise(2400, uint32(201+2*i))...)
	}
	long = append(long, toymodels.Noise(4000, 5)...)
	files := map[string][]float32{
		"up.wav":      upWord(3),
		"down.wav":    downWord(9),
		"silence.wav": make([]float32, 12000),
		"updown.wav":  toymodels.UpDown(),
		"long.wav":    long,
	}
	for name, x := range files {
		writeWAV(t, filepath.Join(dir, name), x)
	}
	for _, modelPath := range []string{wordModel, connectedModel} {
		model, err := rfstream.Load(modelPath)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rfstream.NewRecognizer(model)
		if err != nil {
			t.Fatal(err)
		}
		for name := range files {
			path := filepath.Join(dir, name)
			samples, rate, err := rfstream.ReadAudio(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := rec.Recognize(samples, rate)
			if err != nil {
				t.Fatal(err)
			}
			if want, ok := map[string]string{"up.wav": "up", "down.wav": "down", "silence.wav": ""}[name]; ok && got.Text != want {
				t.Errorf("%s on %s: heard %q, want %q", filepath.Base(modelPath), name, got.Text, want)
			}
			cli := recognizeJSON(t, path, "--model", modelPath)
			if got.Text != cli.Text || got.Conf != cli.Conf || got.NoSpeech != cli.NoSpeech || !sameWords(got.Words, cli.Words) {
				t.Errorf("%s on %s: the API says %+v, recognize %+v", filepath.Base(modelPath), name, got, cli)
			}
			if model.Task != engine.TaskConnected {
				continue
			}
			stream, err := rfstream.NewStream(model, rate)
			if err != nil {
				t.Fatal(err)
			}
			var last rfstream.Result
			partials := 0
			for i := 0; i < len(samples); i += 800 {
				for _, r := range stream.Push(samples[i:min(i+800, len(samples))]) {
					if !r.Final {
						partials++
					}
				}
			}
			for _, r := range stream.Flush() {
				last = r
			}
			if last.Text != got.Text || !sameWords(last.Words, got.Words) {
				t.Errorf("%s: the stream ends with %+v, the recogniser says %+v", name, last, got)
			}
			if name == "long.wav" && (partials < 50 || len(got.Words) < 40) {
				t.Errorf("long.wav: %d words, %d partial results: too few to compare the paths", len(got.Words), partials)
			}
		}
	}
}

// sameWords compares word lists, an empty one equal to none (JSON's
// omitempty leaves none).
func sameWords(a, b []engine.Word) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
