package rfstream_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// A live stream: audio arrives in 20 ms chunks, as from a microphone, a
// final result comes each time an utterance closes, and Flush ends the
// stream with the transcript of all of it.
func ExampleNewStream() {
	path, samples, done := exampleString()
	defer done()

	model, err := rfstream.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	stream, err := rfstream.NewStream(model, 8000)
	if err != nil {
		log.Fatal(err)
	}
	var results []rfstream.Result
	for len(samples) > 0 {
		n := min(160, len(samples))
		results = append(results, stream.Push(samples[:n])...)
		samples = samples[n:]
	}
	results = append(results, stream.Flush()...)
	for _, r := range results {
		if r.Final && !r.EOS {
			fmt.Println("heard:", r.Text)
		}
	}
	fmt.Println("transcript:", results[len(results)-1].Text)
	// Output:
	// heard: up
	// heard: up down
	// transcript: up down
}

// exampleString saves the toy connected up/down model in a temporary folder
// and returns its path, 8 kHz samples of "up", a pause of 1.2 s, then "down" (a
// rising and a falling glide in faint noise), and a function that removes
// the folder.
func exampleString() (path string, samples []float32, done func()) {
	c, err := toymodels.Connected()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rfstream-example-")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "updown-connected.rfm")
	if err := rfstream.SaveModel(path, c.Model); err != nil {
		log.Fatal(err)
	}
	samples = toymodels.Noise(2400, 1)
	samples = append(samples, toymodels.Glide(400, 1500, 0.3, 2)...)
	samples = append(samples, toymodels.Noise(9600, 3)...)
	samples = append(samples, toymodels.Glide(1500, 400, 0.3, 4)...)
	samples = append(samples, toymodels.Noise(4000, 5)...)
	return path, samples, func() { os.RemoveAll(dir) }
}
